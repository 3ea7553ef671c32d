import type { Server } from "bun";
import type { KeyPair } from "./test-pki.ts";

interface SeenRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface HttpTarget {
  url: string;
  port: number;
  /** Every request that reached /echo, in order. */
  echoed: SeenRequest[];
  /** Client port of each request seen, in order: a new port means a new connection. */
  clientPorts: number[];
  stop(): Promise<void>;
}

const BIG = "x".repeat(3 * 1024 * 1024);
/** What /json answers (with the header x-version: 1.2.3), for assertion tests. */
const JSON_DOCUMENT = { status: "ok", count: 3, items: [{ id: 1, tags: ["a"] }, { id: 2, tags: [] }], meta: {}, note: null };

/**
 * A loopback HTTP(S) server with the routes the http and keyword tests need; /cross-origin
 * redirects to `otherOrigin()`.
 */
export function startHttpTarget(tls?: KeyPair, otherOrigin?: () => string): HttpTarget {
  const clientPorts: number[] = [];
  const echoed: SeenRequest[] = [];
  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls: tls ? { cert: tls.cert, key: tls.key } : undefined,
    async fetch(req, srv) {
      clientPorts.push(srv.requestIP(req)?.port ?? -1);
      const url = new URL(req.url);
      const path = url.pathname;
      const status = /^\/status\/(\d{3})$/.exec(path);
      if (status) return new Response(`status ${status[1]}`, { status: Number(status[1]) });
      const hops = /^\/redirect\/(\d+)$/.exec(path);
      if (hops) {
        const n = Number(hops[1]);
        return redirect(n > 1 ? `/redirect/${n - 1}` : "/", 302);
      }
      switch (path) {
        case "/":
          return new Response("<html><body>Hello from the Watchpost test target</body></html>", { headers: { "content-type": "text/html" } });
        case "/json":
          return Response.json(JSON_DOCUMENT, { headers: { "x-version": "1.2.3" } });
        case "/echo":
          echoed.push({ method: req.method, path, headers: Object.fromEntries(req.headers), body: await req.text() });
          return new Response("echoed");
        case "/slow":
          await Bun.sleep(250);
          return new Response("slow but fine");
        case "/big":
          return new Response(BIG);
        case "/loop":
          return redirect("/loop", 302);
        case "/see-other":
          return redirect("/echo", 303);
        case "/cross-origin":
          return redirect(`${otherOrigin?.() ?? ""}/echo`, 302);
        case "/to-metadata":
          return redirect("http://169.254.169.254/latest/meta-data/", 302);
        case "/to-metadata-name":
          return redirect("http://metadata.test/latest/meta-data/", 301);
        case "/to-mapped-metadata":
          return redirect("http://[::ffff:169.254.169.254]/latest/meta-data/", 307);
        case "/to-ftp":
          return redirect("ftp://example.com/file", 302);
        default:
          return new Response("not found", { status: 404 });
      }
    },
  });
  const port = server.port ?? 0;
  return {
    url: `${tls ? "https" : "http"}://127.0.0.1:${port}`,
    port,
    clientPorts,
    echoed,
    stop: () => server.stop(true),
  };
}

function redirect(location: string, status: number): Response {
  return new Response(null, { status, headers: { location } });
}
