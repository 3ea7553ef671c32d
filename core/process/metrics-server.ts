import type { Registry } from "prom-client";

/** /metrics (Prometheus) and /healthz for roles without an HTTP API of their own. */
export function startMetricsServer(o: { host: string; port: number; registry: Registry; healthy: () => boolean }) {
  const server = Bun.serve({
    hostname: o.host,
    port: o.port,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      if (path === "/metrics") return new Response(await o.registry.metrics(), { headers: { "content-type": o.registry.contentType } });
      if (path === "/healthz") return o.healthy() ? new Response("ok") : new Response("unhealthy", { status: 503 });
      return new Response("not found", { status: 404 });
    },
  });
  return { port: server.port, stop: () => server.stop(true) };
}
