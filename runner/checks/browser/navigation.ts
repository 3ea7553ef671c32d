import type { Response } from "playwright-core";
import { type BrowserGuard } from "./page-guard.ts";
import { browserErrorText } from "./define-browser-check.ts";
import { PROXY_MARK_HEADER } from "./guard-proxy.ts";

const hostOf = (url: string) => {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, "").toLowerCase();
  } catch {
    return "";
  }
};

/**
 * Why a navigation failed, in the guard's words when the guard stopped it (the page's URL, or
 * a redirect hop to a refused address); Playwright timeouts are passed through unchanged so the
 * check can tell its deadline apart from other failures.
 */
export function navigationError(err: unknown, url: string, guard: BrowserGuard): Error {
  const host = hostOf(url);
  // The page's own certificate or TLS fault: another host's incident is a request of the browser's (Chromium
  // probes connectivitycheck.gstatic.com after a certificate error), not why the page failed.
  const ownTlsFault = err instanceof Error && /net::ERR_(CERT|SSL)_/.test(err.message);
  const incident =
    guard.incidents.find((i) => i.host === host) ??
    (ownTlsFault ? undefined : (guard.incidents.find((i) => i.kind === "refused") ?? guard.incidents.find((i) => i.kind === "unreachable")));
  if (incident && !(err instanceof Error && err.name === "TimeoutError")) return new Error(incident.message);
  if (err instanceof Error && err.name === "TimeoutError") return err;
  return new Error(browserErrorText(err));
}

/** Throws when the document's answer came from the guard proxy rather than the target. */
export function assertFromTarget(response: Response | null, url: string, guard: BrowserGuard): void {
  if (!response?.headers()[PROXY_MARK_HEADER]) return;
  throw navigationError(new Error(`the guard stopped ${response.url()}`), response.url() || url, guard);
}
