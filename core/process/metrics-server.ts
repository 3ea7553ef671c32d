import type { Registry } from "prom-client";
import { listenError } from "./listen-error.ts";

/** /metrics (Prometheus) and /healthz for roles without an HTTP API of their own. */
export function startMetricsServer(o: { host: string; port: number; registry: Registry; healthy: () => boolean }) {
  let server: ReturnType<typeof Bun.serve>;
  try {
    server = serve(o);
  } catch (err) {
    return listenError("METRICS_PORT", o.port)(err);
  }
  return { port: server.port, stop: () => server.stop(true) };
}

function serve(o: { host: string; port: number; registry: Registry; healthy: () => boolean }) {
  return Bun.serve({
    hostname: o.host,
    port: o.port,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      if (path === "/metrics") return new Response(await o.registry.metrics(), { headers: { "content-type": o.registry.contentType } });
      if (path === "/healthz") return o.healthy() ? new Response("ok") : new Response("unhealthy", { status: 503 });
      return new Response("not found", { status: 404 });
    },
  });
}
