import { Elysia } from "elysia";
import { listMonitorSeries } from "../../../domain/results/monitor-metrics.ts";
import type { ApiDeps } from "../../context.ts";
import { authPlugin } from "../../middleware/auth.ts";
import { PROMETHEUS_CONTENT_TYPE, writeMonitorMetrics } from "./prometheus-text.ts";

/**
 * The organisation's monitors in the Prometheus text format, for a Prometheus server to scrape with
 * an API key holding monitors:read (a session works too, to look at it in a browser). Not the
 * process metrics of METRICS_PORT: see docs/metrics.md.
 */
export const metricsRoutes = (deps: ApiDeps) =>
  new Elysia({ prefix: "/metrics", detail: { tags: ["monitors"] } })
    .use(authPlugin)
    .guard({ requires: "monitors:read" }, (app) =>
      app.get(
        "",
        async ({ actor, request }) => {
          const text = writeMonitorMetrics(await listMonitorSeries({ sql: deps.sql, actor }));
          const headers = { "content-type": PROMETHEUS_CONTENT_TYPE, "cache-control": "no-store", vary: "accept-encoding" };
          // Prometheus asks for gzip; the text shrinks about tenfold for a few tens of ms at level 1.
          if (/\bgzip\b/.test(request.headers.get("accept-encoding") ?? "")) {
            return new Response(Bun.gzipSync(text, { level: 1 }), { headers: { ...headers, "content-encoding": "gzip" } });
          }
          return new Response(text, { headers });
        },
        {
          detail: {
            summary: "Per-monitor metrics of the organisation in the Prometheus text format",
            description:
              "One series per monitor and location (region, runner id, or `heartbeat`) with the labels monitor_id, name, type, region, group (the first tag in sorted order) and tags (every tag, sorted, joined with commas): watchpost_monitor_up, watchpost_monitor_last_check_timestamp_seconds, watchpost_monitor_response_time_seconds (histogram; not for heartbeat monitors), watchpost_monitor_checks_total{status} (counters that restart at each UTC hour), watchpost_monitor_certificate_expiry_timestamp_seconds, watchpost_monitor_domain_expiry_timestamp_seconds, watchpost_monitor_maintenance, watchpost_monitor_maintenance_paused, watchpost_monitor_alerts_firing, and the deprecated watchpost_monitor_certificate_days_left and watchpost_monitor_domain_days_left. Needs monitors:read. docs/metrics.md has a Prometheus scrape config, example rules and a Grafana dashboard.",
            responses: {
              200: {
                description: "Prometheus text exposition format 0.0.4",
                content: { "text/plain": { schema: { type: "string" } } },
              },
            },
          },
        },
      ),
    );
