/**
 * The loopback world of the fault tests: a TLS load balancer in front of the API processes (what a
 * proxy does in production; the runner talks HTTPS only) and the monitored targets.
 */

/**
 * HTTPS on loopback, round robin over the API processes; a request whose upstream fails (refused, reset) is sent
 * to the next one with the same body, up to twice round. `onRetry` hears each retry, for a test's timeline.
 */
export function startBalancer(tls: { cert: string; key: string }, upstreams: string[], onRetry?: (path: string, upstream: string, err: unknown) => void) {
  let next = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls,
    // Runner claims are long polls of up to 30 s.
    idleTimeout: 120,
    async fetch(req) {
      const u = new URL(req.url);
      const body = req.method === "GET" || req.method === "HEAD" ? undefined : await req.arrayBuffer();
      const headers = new Headers(req.headers);
      headers.delete("host");
      for (let tries = 0; tries < upstreams.length * 2; tries++) {
        const upstream = upstreams[next++ % upstreams.length]!;
        try {
          const res = await fetch(`${upstream}${u.pathname}${u.search}`, { method: req.method, headers, body, redirect: "manual" });
          const out = new Headers(res.headers);
          // fetch() already decoded the body.
          out.delete("content-encoding");
          out.delete("content-length");
          return new Response(res.body, { status: res.status, headers: out });
        } catch (err) {
          onRetry?.(u.pathname, upstream, err);
          await Bun.sleep(100);
        }
      }
      return Response.json({ error: "no API process answered", code: "BAD_GATEWAY" }, { status: 502 });
    },
  });
  return { url: `https://127.0.0.1:${server.port}`, stop: () => server.stop(true) };
}

export interface TargetHit {
  path: string;
  at: number;
  done: number | null;
}

/**
 * /ok answers 200; /slow/<name> after 1.5 s; /flap/<name> answers 500 in every other `flapMs` window
 * (counted from `epoch`), 200 otherwise. Every request is recorded with its start and end.
 */
export function startTargets(flapMs: number, epoch = Date.now()) {
  const hits: TargetHit[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 30,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      const hit: TargetHit = { path, at: Date.now(), done: null };
      hits.push(hit);
      try {
        if (path.startsWith("/slow/")) await Bun.sleep(1500);
        if (path.startsWith("/flap/") && isDown(Date.now())) return new Response("flapping: down", { status: 500 });
        return new Response("ok");
      } finally {
        hit.done = Date.now();
      }
    },
  });
  const isDown = (t: number) => Math.floor((t - epoch) / flapMs) % 2 === 1;
  return {
    url: `http://127.0.0.1:${server.port}`,
    hits,
    /** Requests that arrived and were not answered yet. */
    inFlight: (prefix: string) => hits.filter((h) => h.done === null && h.path.startsWith(prefix)),
    stop: () => server.stop(true),
  };
}
