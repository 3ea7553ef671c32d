import type { BrowserContext } from "playwright-core";
import { type GuardOptions, type ResolvedAddress, resolveAndCheck, TargetRefusedError } from "../../../core/net-guard/index.ts";
import { describeError } from "../shared/describe-error.ts";
import { type ProxyIncident, startGuardProxy } from "./guard-proxy.ts";

export interface BrowserGuard {
  /** For the context's `proxy.server`. */
  readonly proxyUrl: string;
  /** Requests refused or not forwarded, in order, from both layers. */
  readonly incidents: ProxyIncident[];
  /** Route interception on the context: every request the page makes is judged before it is sent. */
  install(context: BrowserContext): Promise<void>;
  /** The first refusal of a host, for the check's error. */
  refusalFor(host: string): ProxyIncident | undefined;
  close(): void;
}

/** Schemes a page may load without the network (inline data, same-page objects). */
const LOCAL_SCHEMES = new Set(["data:", "blob:", "about:"]);

/**
 * The private-address guard for one browser check, in two layers over one per-check verdict
 * cache: route interception judges every request the page makes (scheme and host) and aborts
 * refused ones before they leave the browser; the guard proxy, through which the context sends
 * all traffic, judges every connection again — redirect hops (which route handlers never see),
 * WebSockets and workers included — and connects only to the address it judged.
 */
export async function startBrowserGuard(
  guard: Omit<GuardOptions, "signal">,
  opts: { loopbackStandIns?: string[]; relayTls?: { extraCa?: readonly string[] } } = {},
): Promise<BrowserGuard> {
  const incidents: ProxyIncident[] = [];
  const verdicts = new Map<string, Promise<ResolvedAddress>>();
  const standIns = new Set((opts.loopbackStandIns ?? []).map((h) => h.toLowerCase()));
  const judge = (host: string) => {
    const key = host.toLowerCase();
    let verdict = verdicts.get(key);
    if (!verdict) {
      verdict = resolveAndCheck(key, guard);
      if (standIns.has(key)) verdict = verdict.then((judged) => ({ ...judged, address: "127.0.0.1" }));
      verdict.catch(() => {});
      verdicts.set(key, verdict);
    }
    return verdict;
  };
  const proxy = await startGuardProxy({ judge, incidents, relayTls: opts.relayTls });
  const record = (i: ProxyIncident) => {
    if (!incidents.some((x) => x.target === i.target && x.kind === i.kind)) incidents.push(i);
  };

  return {
    proxyUrl: proxy.url,
    incidents,
    refusalFor: (host) => incidents.find((i) => i.kind === "refused" && i.host === host.toLowerCase().replace(/^\[|\]$/g, "")),
    async install(context) {
      await context.route("**/*", async (route) => {
        const raw = route.request().url();
        let url: URL;
        try {
          url = new URL(raw);
        } catch {
          return route.abort("blockedbyclient");
        }
        if (LOCAL_SCHEMES.has(url.protocol)) return route.continue();
        const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
        if (url.protocol !== "http:" && url.protocol !== "https:") {
          record({ target: raw.slice(0, 200), host, kind: "refused", message: `refused to load ${url.protocol} URLs in a browser check` });
          return route.abort("blockedbyclient");
        }
        try {
          await judge(host);
        } catch (err) {
          if (err instanceof TargetRefusedError) {
            record({ target: `${url.origin}${url.pathname}`.slice(0, 300), host, kind: "refused", message: describeError(err) });
            return route.abort("blockedbyclient").catch(() => {});
          }
          // Unresolvable names are left to the browser, which reports them as its own network error.
        }
        return route.continue().catch(() => {});
      });
    },
    close: () => proxy.close(),
  };
}
