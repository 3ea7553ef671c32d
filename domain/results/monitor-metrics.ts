import type { Sql } from "../../db/client.ts";
import type { Actor } from "../access/actor.ts";
import { firingAlerts, latestResults, LOOKBACK_INTERVALS, LOOKBACK_SLACK_SECONDS, metricsMonitors, windowFigures, type WindowRow } from "../../db/queries/monitor-metrics.ts";
import { storageMode } from "../../db/results/storage-mode.ts";
import { histogramQuantile } from "./histogram.ts";

/** The quantiles of the response-time summary. */
export const RESPONSE_TIME_QUANTILES = [0.5, 0.95, 0.99] as const;

/** What one (monitor, location) series reports; the writer turns it into Prometheus samples. */
export interface MonitorSeries {
  monitorId: string;
  name: string;
  type: string;
  /** Region name, runner id, or "heartbeat" for heartbeat pings. */
  region: string;
  /** The monitor's first tag in sorted order ("" without tags). */
  group: string;
  /** Every tag, sorted, joined with "," (tags cannot hold commas). */
  tags: string;
  /** 1 for up or degraded, 0 for down or timeout; null without a recent executed result. */
  up: 0 | 1 | null;
  lastCheckSeconds: number | null;
  certDays: number | null;
  domainDays: number | null;
  checks: Pick<WindowRow, "up" | "down" | "degraded" | "timeout" | "unavailable">;
  /** Over the checks that ran in the window; null when none did. */
  responseTime: { quantiles: number[]; sumSeconds: number; count: number } | null;
  alertsFiring: number;
}

const NO_CHECKS = { up: 0, down: 0, degraded: 0, timeout: 0, unavailable: 0 };

/**
 * Every (monitor, location) series of one organisation, from four set-based queries: the monitors, then
 * side by side the newest result per location, the window's rollups and the firing alerts; sorted by monitor id
 * then region so consecutive scrapes list series in the same order.
 */
export async function listMonitorSeries({ sql, actor }: { sql: Sql; actor: Actor }): Promise<MonitorSeries[]> {
  const orgId = actor.orgId;
  const monitors = await metricsMonitors(sql, orgId);
  const longest = monitors.reduce((max, m) => Math.max(max, m.interval_seconds), 0) * LOOKBACK_INTERVALS + LOOKBACK_SLACK_SECONDS;
  const [latest, windows, alerts] = await Promise.all([latestResults(sql, orgId, longest), storageMode(sql).then((mode) => windowFigures(sql, orgId, mode === "partitioned")), firingAlerts(sql, orgId)]);
  const byId = new Map(monitors.map((m) => [m.id, m]));
  const series = new Map<string, MonitorSeries>();
  const seriesOf = (monitorId: string, region: string): MonitorSeries | undefined => {
    const key = `${monitorId}\u0000${region}`;
    let s = series.get(key);
    if (s) return s;
    const m = byId.get(monitorId);
    if (!m) return undefined;
    const tags = [...m.tags].sort();
    s = { monitorId, name: m.name, type: m.type, region, group: tags[0] ?? "", tags: tags.join(","), up: null, lastCheckSeconds: null, certDays: null, domainDays: null, checks: NO_CHECKS, responseTime: null, alertsFiring: 0 };
    series.set(key, s);
    return s;
  };
  for (const r of latest) {
    const s = seriesOf(r.monitor_id, r.location);
    if (!s) continue;
    s.up = r.status === "up" || r.status === "degraded" ? 1 : 0;
    s.lastCheckSeconds = r.checked_at.getTime() / 1000;
    s.certDays = r.cert_days;
    s.domainDays = r.domain_days;
  }
  for (const w of windows) {
    const s = seriesOf(w.monitor_id, w.location);
    if (!s) continue;
    s.checks = { up: w.up, down: w.down, degraded: w.degraded, timeout: w.timeout, unavailable: w.unavailable };
    const count = w.up + w.down + w.degraded + w.timeout;
    if (count > 0) {
      s.responseTime = {
        quantiles: RESPONSE_TIME_QUANTILES.map((q) => (histogramQuantile(w.hist, q, w.duration_max) ?? 0) / 1000),
        sumSeconds: w.duration_sum / 1000,
        count,
      };
    }
  }
  for (const a of alerts) {
    const s = seriesOf(a.monitor_id, a.region);
    if (s) s.alertsFiring = a.firing;
  }
  return [...series.values()].sort((a, b) => (a.monitorId < b.monitorId ? -1 : a.monitorId > b.monitorId ? 1 : a.region < b.region ? -1 : a.region > b.region ? 1 : 0));
}
