import { type HttpContext, HttpFailure, type HttpResult, postJson as postJsonOf, request as requestOf } from "../../core/http/guarded-fetch.ts";
import { type ChannelContext, ChannelError } from "./types.ts";

// Guarded outbound HTTP is the kernel's (core/http); channels (and subscriber webhooks) use it through these
// wrappers, which turn the kernel's HttpFailure into the ChannelError the dispatcher reads.
export { createHttpFetch, cutBody, parseJson, parseRetryAfter } from "../../core/http/guarded-fetch.ts";

const asChannelError = (e: HttpFailure) => new ChannelError(e.message, { permanent: e.permanent, status: e.status, body: e.body, retryAfterMs: e.retryAfterMs });

async function channelErrors<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw err instanceof HttpFailure ? asChannelError(err) : err;
  }
}

/**
 * One outbound request for a channel: timeout, no redirects, and every failure turned into a
 * ChannelError. `label` names the provider; messages add the host but never the full URL,
 * which often holds the credential (Slack, Discord, Telegram).
 */
export function request(ctx: ChannelContext | HttpContext, label: string, url: string, init: { method?: string; headers?: Record<string, string>; body?: string }): Promise<HttpResult> {
  return channelErrors(() => requestOf(ctx, label, url, init));
}

/** POSTs a JSON body; see `request`. */
export function postJson(ctx: ChannelContext | HttpContext, label: string, url: string, body: unknown, headers: Record<string, string> = {}): Promise<HttpResult> {
  return channelErrors(() => postJsonOf(ctx, label, url, body, headers));
}
