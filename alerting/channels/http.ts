import { HostResolutionError, RANGE_LABELS, TargetRefusedError } from "../../core/net-guard/index.ts";
import { type ChannelContext, ChannelError } from "./types.ts";

// The guarded fetcher is the kernel's; channels and subscriber webhooks share it.
export { createHttpFetch } from "../../core/http/guarded-fetch.ts";

export const USER_AGENT = "Watchpost-Alerts/1";
const BODY_LIMIT = 300;

/** Collapses whitespace and cuts a response body to what fits in a log line or alert history. */
export function cutBody(text: string, limit = BODY_LIMIT): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > limit ? `${flat.slice(0, limit)}…` : flat;
}

/** Retry-After as seconds or an HTTP date, in milliseconds from now. */
export function parseRetryAfter(value: string | null, now: Date): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
}

/** 4xx means the request itself is wrong, except 408/429 which ask us to come back; 3xx is not followed. */
export const isPermanentStatus = (status: number) => status >= 300 && status < 500 && status !== 408 && status !== 429;

export function statusError(what: string, status: number, text: string, retryAfterMs?: number): ChannelError {
  const body = cutBody(text);
  const message = `${what} answered HTTP ${status}${body ? `: ${body}` : ""}`;
  return new ChannelError(message, { permanent: isPermanentStatus(status), status, body, retryAfterMs });
}

function networkError(err: unknown, what: string, timeoutMs: number): ChannelError {
  type Coded = Error & { code?: string };
  const e = err as Coded & { cause?: Coded };
  if (e.name === "TimeoutError" || e.name === "AbortError") {
    return new ChannelError(`${what} did not answer within ${timeoutMs} ms`, { permanent: false });
  }
  const cause: Coded = e.cause ?? e;
  if (cause instanceof TargetRefusedError) {
    const range = cause.reason === "ipv6_disabled" ? "IPv6 address" : RANGE_LABELS[cause.reason];
    const target = cause.host === cause.address ? cause.address : `${cause.host} resolves to ${cause.address}`;
    const message = `${what} refused: ${target} (${range}), which alert channels may not reach on this deployment`;
    return new ChannelError(message, { permanent: true });
  }
  if (cause instanceof HostResolutionError) return new ChannelError(`${what} failed: ${cause.message}`, { permanent: false });
  const code = cause.code;
  return new ChannelError(`${what} failed: ${cause.message}${code && !cause.message.includes(code) ? ` (${code})` : ""}`, { permanent: false });
}

/** JSON.parse that answers undefined for a body that is not JSON (receivers are not always honest). */
export function parseJson(text: string | undefined): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

export interface HttpResult {
  status: number;
  text: string;
}

/**
 * One outbound request for a channel: timeout, no redirects, and every failure turned into a
 * ChannelError. `label` names the provider; messages add the host but never the full URL,
 * which often holds the credential (Slack, Discord, Telegram).
 */
export async function request(
  ctx: ChannelContext,
  label: string,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<HttpResult> {
  // A stored config may predate a validation rule; a bad URL is then a permanent failure, not a crash.
  if (!URL.canParse(url)) throw new ChannelError(`${label}: the configured URL is not a valid URL`, { permanent: true });
  const what = `${label} (${new URL(url).host})`;
  const headers = { "user-agent": USER_AGENT, ...init.headers };
  try {
    const signal = AbortSignal.timeout(ctx.timeoutMs);
    const res = await ctx.fetch(url, { method: init.method ?? "POST", headers, body: init.body, signal, redirect: "manual" });
    const text = await res.text();
    if (res.status >= 200 && res.status < 300) return { status: res.status, text };
    throw statusError(what, res.status, text, parseRetryAfter(res.headers.get("retry-after"), ctx.clock.now()));
  } catch (err) {
    throw err instanceof ChannelError ? err : networkError(err, what, ctx.timeoutMs);
  }
}

/** POSTs a JSON body; see `request`. */
export function postJson(ctx: ChannelContext, label: string, url: string, body: unknown, headers: Record<string, string> = {}) {
  return request(ctx, label, url, { headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
}
