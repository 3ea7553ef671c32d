import { Gauge, type Registry } from "prom-client";
import type { Sql } from "../db/client.ts";
import { REGION_ONLINE_TTL_SECONDS } from "../domain/regions/catalog.ts";
import { regionWorkerSummary } from "../db/queries/region-workers.ts";
import { runnerCountsByStatus } from "../db/queries/runner-liveness.ts";

/**
 * What the API knows of the processes it cannot scrape: self-hosted runners (no inbound port, by
 * the spec) and the cloud workers of each region, read from their heartbeats at scrape time. Every
 * API instance reports the same fleet: aggregate with max(), not sum().
 */
export function registerFleetMetrics(registry: Registry, sql: Sql): void {
  if (registry.getSingleMetric("watchpost_runners")) return;
  new Gauge({
    name: "watchpost_runners",
    help: "Self-hosted runners of every organisation by status (online, offline, never_connected, suspended, revoked), from their heartbeats",
    labelNames: ["status"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const rows = await runnerCountsByStatus(sql).catch(() => []);
      for (const r of rows) this.set({ status: r.status }, r.n);
    },
  });
  new Gauge({
    name: "watchpost_region_workers_online",
    help: "Cloud workers that sent a heartbeat within the last 15 s, by region",
    labelNames: ["region"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const rows = await regionWorkerSummary(sql, REGION_ONLINE_TTL_SECONDS).catch(() => []);
      for (const r of rows) this.set({ region: r.region }, r.online_workers);
    },
  });
  new Gauge({
    name: "watchpost_region_in_flight",
    help: "Checks running now on the online workers of each region, as they last reported",
    labelNames: ["region"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const rows = await regionWorkerSummary(sql, REGION_ONLINE_TTL_SECONDS).catch(() => []);
      for (const r of rows) this.set({ region: r.region }, r.in_flight);
    },
  });
}
