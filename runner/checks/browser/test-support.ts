import type { Server } from "bun";
import type { HostResolver } from "../../../core/net-guard/index.ts";
import type { CheckContext } from "../types.ts";
import { BrowserPool, type BrowserPoolOptions } from "./browser-pool.ts";

/** A page server on loopback: path → handler; unknown paths answer 404. Counts the requests it got per path. */
export function startPageServer(routes: Record<string, (req: Request, server: Server<unknown>) => Response | Promise<Response> | undefined>, hostname = "127.0.0.1") {
  const hits = new Map<string, number>();
  const server = Bun.serve({
    hostname,
    port: 0,
    fetch(req, srv) {
      const path = new URL(req.url).pathname;
      hits.set(path, (hits.get(path) ?? 0) + 1);
      const handler = routes[path];
      return handler ? handler(req, srv) : new Response("not found", { status: 404 });
    },
    websocket: { message() {} },
  });
  return {
    url: (path = "/") => `http://${hostname}:${server.port}${path}`,
    port: server.port!,
    hits,
    total: () => [...hits.values()].reduce((a, b) => a + b, 0),
    stop: () => server.stop(true),
  };
}

export const html = (body: string, init: ResponseInit = {}) =>
  new Response(`<!doctype html><html><head><meta charset="utf-8">${body.includes("<title>") ? "" : "<title>Test page</title>"}</head><body>${body}</body></html>`, {
    ...init,
    headers: { "content-type": "text/html; charset=utf-8", ...(init.headers as Record<string, string> | undefined) },
  });

/** A page that never answers (the request is held until the server stops). */
export const never = () => new Promise<Response>(() => {});

/** A small pool of Chromium for one test file. */
export function testPool(o: Partial<BrowserPoolOptions> = {}) {
  return BrowserPool.start({ engines: ["chromium"], size: 1, ...o });
}

/** Resolves `*.test` names to a public address, so the guard judges them public (see browserLoopbackStandIns). */
export const publicResolver: HostResolver = async (host) => {
  if (host.endsWith(".test")) return [{ address: "93.184.216.34", family: 4 }];
  throw Object.assign(new Error(`no such host ${host}`), { code: "ENOTFOUND" });
};

/** Context for a browser check against loopback pages; `allowPrivate` false with stand-ins tests the guard. */
export function browserCtx(pool: BrowserPool, o: Partial<CheckContext> & { standIns?: string[] } = {}): CheckContext {
  const { standIns, ...rest } = o;
  return {
    timeoutMs: 10_000,
    guard: { allowPrivate: true, ipv6: false, resolver: publicResolver },
    browsers: pool,
    endpoints: standIns ? { browserLoopbackStandIns: standIns } : undefined,
    ...rest,
  };
}
