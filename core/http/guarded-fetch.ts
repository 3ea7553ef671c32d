import { Agent, buildConnector, fetch as undiciFetch } from "undici/index.js";
import { type HostResolver, HostResolutionError, RANGE_LABELS, resolveAndCheck, TargetRefusedError } from "../net-guard/index.ts";

interface HttpRequestInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  redirect?: "manual" | "follow" | "error";
}

/** The part of a fetch Response channels read; both undici's and the global fetch satisfy it. */
interface HttpResponse {
  status: number;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
}

export type HttpFetch = (url: string, init: HttpRequestInit) => Promise<HttpResponse>;

export interface HttpFetchOptions {
  /** ALLOW_PRIVATE_IPS: let channels reach private, loopback and link-local addresses (never cloud metadata). */
  allowPrivateAddresses: boolean;
  /**
   * Connect over IPv6 too. Off by default: the guard connects to the first checked address, and
   * on a host without IPv6 routes an AAAA answer first would fail every delivery.
   */
  ipv6?: boolean;
  connectTimeoutMs?: number;
  /** Extra trusted CA certificates (PEM), for receivers behind an internal CA. */
  ca?: string[];
  /** Replaces the system resolver (tests). */
  resolver?: HostResolver;
}

/**
 * The production fetcher: undici whose every connection goes through the platform's net guard,
 * connecting to the address the guard checked (so DNS rebinding and redirects cannot reach the
 * internal network); TLS still verifies the certificate against the URL's host name.
 */
export function createHttpFetch({ allowPrivateAddresses, ipv6 = false, connectTimeoutMs = 10_000, ca, resolver }: HttpFetchOptions): HttpFetch {
  const connect = buildConnector({ timeout: connectTimeoutMs, ...(ca ? { ca } : {}) });
  const guarded: buildConnector.connector = (options, callback) => {
    resolveAndCheck(options.hostname, { allowPrivate: allowPrivateAddresses, ipv6, resolver }).then(
      ({ address }) => connect({ ...options, hostname: address }, callback),
      (err: Error) => callback(err, null),
    );
  };
  const dispatcher = new Agent({ connect: guarded });
  return (url: string, init: HttpRequestInit) => undiciFetch(url, { ...init, dispatcher });
}

/** What an outbound request needs: the guarded fetcher, a time limit, and a clock for Retry-After dates. */
export interface HttpContext {
  fetch: HttpFetch;
  timeoutMs: number;
  clock: { now(): Date };
}

/** A failed outbound request: what happened and whether retrying the same request could help. */
export class HttpFailure extends Error {
  override readonly name = "HttpFailure";
  readonly permanent: boolean;
  readonly status?: number;
  readonly body?: string;
  readonly retryAfterMs?: number;

  constructor(message: string, o: { permanent: boolean; status?: number; body?: string; retryAfterMs?: number }) {
    super(message);
    this.permanent = o.permanent;
    this.status = o.status;
    this.body = o.body;
    this.retryAfterMs = o.retryAfterMs;
  }
}

const USER_AGENT = "Watchpost-Alerts/1";
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
const isPermanentStatus = (status: number) => status >= 300 && status < 500 && status !== 408 && status !== 429;

function statusError(what: string, status: number, text: string, retryAfterMs?: number): HttpFailure {
  const body = cutBody(text);
  const message = `${what} answered HTTP ${status}${body ? `: ${body}` : ""}`;
  return new HttpFailure(message, { permanent: isPermanentStatus(status), status, body, retryAfterMs });
}

function networkError(err: unknown, what: string, timeoutMs: number): HttpFailure {
  type Coded = Error & { code?: string };
  const e = err as Coded & { cause?: Coded };
  if (e.name === "TimeoutError" || e.name === "AbortError") {
    return new HttpFailure(`${what} did not answer within ${timeoutMs} ms`, { permanent: false });
  }
  const cause: Coded = e.cause ?? e;
  if (cause instanceof TargetRefusedError) {
    const range = cause.reason === "ipv6_disabled" ? "IPv6 address" : RANGE_LABELS[cause.reason];
    const target = cause.host === cause.address ? cause.address : `${cause.host} resolves to ${cause.address}`;
    const message = `${what} refused: ${target} (${range}), which alert channels may not reach on this deployment`;
    return new HttpFailure(message, { permanent: true });
  }
  if (cause instanceof HostResolutionError) return new HttpFailure(`${what} failed: ${cause.message}`, { permanent: false });
  const code = cause.code;
  return new HttpFailure(`${what} failed: ${cause.message}${code && !cause.message.includes(code) ? ` (${code})` : ""}`, { permanent: false });
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
 * One outbound request (an alert channel, a subscriber webhook): timeout, no redirects, and every failure turned into a
 * HttpFailure. `label` names the provider; messages add the host but never the full URL,
 * which often holds the credential (Slack, Discord, Telegram).
 */
export async function request(
  ctx: HttpContext,
  label: string,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<HttpResult> {
  // A stored config may predate a validation rule; a bad URL is then a permanent failure, not a crash.
  if (!URL.canParse(url)) throw new HttpFailure(`${label}: the configured URL is not a valid URL`, { permanent: true });
  const what = `${label} (${new URL(url).host})`;
  const headers = { "user-agent": USER_AGENT, ...init.headers };
  try {
    const signal = AbortSignal.timeout(ctx.timeoutMs);
    const res = await ctx.fetch(url, { method: init.method ?? "POST", headers, body: init.body, signal, redirect: "manual" });
    const text = await res.text();
    if (res.status >= 200 && res.status < 300) return { status: res.status, text };
    throw statusError(what, res.status, text, parseRetryAfter(res.headers.get("retry-after"), ctx.clock.now()));
  } catch (err) {
    throw err instanceof HttpFailure ? err : networkError(err, what, ctx.timeoutMs);
  }
}

/** POSTs a JSON body; see `request`. */
export function postJson(ctx: HttpContext, label: string, url: string, body: unknown, headers: Record<string, string> = {}) {
  return request(ctx, label, url, { headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
}
