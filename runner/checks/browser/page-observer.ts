import type { Page, Request } from "playwright-core";
import { PROXY_MARK_HEADER } from "./guard-proxy.ts";

const KEEP = 10;
const cut = (s: string, n = 300) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** What a page did while a check watched it. */
export interface PageObservation {
  readonly consoleErrors: string[];
  readonly failedRequests: string[];
  /** Requests the page started (documents, subresources, redirect hops). */
  requests(): number;
  /** Bytes received (headers and encoded bodies) of every finished request; waits briefly for the last sizes. */
  transferBytes(waitMs?: number): Promise<number>;
  /** Number of console errors and failed requests seen (the lists keep the first ten). */
  counts(): { consoleErrors: number; failedRequests: number };
}

/**
 * Watches a page for console errors (console.error and uncaught exceptions), failed requests
 * (network errors and HTTP 4xx/5xx answers to subresources; the guard's refusals are reported
 * apart) and the bytes it transferred.
 */
export function observePage(page: Page, refusedHost: (host: string) => boolean): PageObservation {
  const refused = (url: string) => {
    try {
      return refusedHost(new URL(url).hostname.replace(/^\[|\]$/g, "").toLowerCase());
    } catch {
      return false;
    }
  };
  const isMainDocument = (r: Request) => {
    try {
      return r.isNavigationRequest() && r.frame() === page.mainFrame();
    } catch {
      return false;
    }
  };
  const consoleErrors: string[] = [];
  const failedRequests: string[] = [];
  let consoleCount = 0;
  let failedCount = 0;
  let requests = 0;
  let bytes = 0;
  const sizes: Promise<void>[] = [];
  const addConsole = (text: string) => {
    consoleCount++;
    if (consoleErrors.length < KEEP) consoleErrors.push(cut(text));
  };
  const counted = new WeakSet<Request>();
  const addFailed = (text: string) => {
    failedCount++;
    if (failedRequests.length < KEEP) failedRequests.push(cut(text));
  };

  page.on("console", (msg) => {
    // Chromium repeats every failed load as a console error; those are counted as failed requests.
    if (msg.type() === "error" && !msg.text().startsWith("Failed to load resource")) addConsole(msg.text());
  });
  page.on("pageerror", (err) => addConsole(`uncaught ${err.name}: ${err.message}`));
  page.on("request", () => requests++);
  page.on("requestfailed", (r) => {
    const reason = r.failure()?.errorText ?? "failed";
    // Refused by the private-address guard: reported as blocked_requests, not as a site fault.
    if (isMainDocument(r) || /BLOCKED_BY_CLIENT/i.test(reason) || refused(r.url()) || counted.has(r)) return;
    counted.add(r);
    addFailed(`${r.method()} ${r.url()}: ${reason}`);
  });
  page.on("requestfinished", (r) => {
    sizes.push(
      Promise.all([r.sizes(), r.response()]).then(
        ([s, res]) => {
          // The guard proxy's own answer (refused, unreachable) carried nothing of the site's.
          if (res?.headers()[PROXY_MARK_HEADER]) return;
          bytes += Math.max(0, s.responseHeadersSize) + Math.max(0, s.responseBodySize);
        },
        () => {},
      ),
    );
  });
  page.on("response", (res) => {
    const r = res.request();
    if (res.status() < 400 || isMainDocument(r) || res.headers()[PROXY_MARK_HEADER] || counted.has(r)) return;
    counted.add(r);
    addFailed(`${r.method()} ${res.url()}: HTTP ${res.status()}`);
  });

  return {
    consoleErrors,
    failedRequests,
    requests: () => requests,
    async transferBytes(waitMs = 1000) {
      await Promise.race([Promise.all(sizes), Bun.sleep(waitMs)]);
      return bytes;
    },
    counts: () => ({ consoleErrors: consoleCount, failedRequests: failedCount }),
  };
}
