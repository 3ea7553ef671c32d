import type { Sql } from "../../db/client.ts";
import { listWindows } from "../../db/queries/maintenance-windows.ts";
import { firingAlerts, hourFigures, latestResults, LOOKBACK_INTERVALS, LOOKBACK_SLACK_SECONDS, metricsMonitors, type HourRow } from "../../db/queries/monitor-metrics.ts";
import { storageMode } from "../../db/results/storage-mode.ts";
import { type CheckType, checkTypes, measuresResponseTime } from "../../schemas/check-types.ts";
import type { Actor } from "../access/actor.ts";
import { coversMonitor, windowActiveAt } from "../maintenance/window.ts";
import { HISTOGRAM_BOUNDS } from "./histogram.ts";

/**
 * Upper bounds (seconds) of the response-time histogram's buckets, +Inf aside: boundaries of the stored 47-bucket
 * histogram (domain/results/histogram.ts), so each cumulative count is exact (durations below the bound).
 */
export const RESPONSE_TIME_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60] as const;
const BUCKET_INDEX = RESPONSE_TIME_BUCKETS.map((le) => (HISTOGRAM_BOUNDS as readonly number[]).indexOf(le * 1000));

type Counts = Pick<HourRow, "up" | "down" | "degraded" | "timeout" | "unavailable">;

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
  /** Unix times (s) of the certificate's and the registration's expiry, from the newest check that ran. */
  certExpirySeconds: number | null;
  domainExpirySeconds: number | null;
  /** Checks since the start of the current UTC hour, by status (counters that restart each hour). */
  checks: Counts;
  /**
   * The hour's checks that ran as a histogram: cumulative counts per RESPONSE_TIME_BUCKETS bound, sum and count;
   * null for a type without a response time (heartbeat).
   */
  responseTime: { buckets: number[]; sumSeconds: number; count: number } | null;
  /** 1 while a maintenance window covering the monitor is in an occurrence; `maintenancePaused` when one pauses checks. */
  maintenance: 0 | 1;
  maintenancePaused: 0 | 1;
  alertsFiring: number;
}

const NO_CHECKS: Counts = { up: 0, down: 0, degraded: 0, timeout: 0, unavailable: 0 };
const seconds = (iso: string | null) => {
  const t = iso === null ? NaN : Date.parse(iso);
  return Number.isFinite(t) ? t / 1000 : null;
};
const hasResponseTime = (type: string) => !(type in checkTypes) || measuresResponseTime(type as CheckType);

/** Cumulative counts of the hour's histogram at each RESPONSE_TIME_BUCKETS bound. */
function cumulative(hist: readonly number[] | null): number[] {
  const out: number[] = [];
  let sum = 0;
  let i = 0;
  for (const end of BUCKET_INDEX) {
    for (; i < end; i++) sum += hist?.[i] ?? 0;
    out.push(sum);
  }
  return out;
}

/**
 * Every (monitor, location) series of one organisation, from five set-based queries: the monitors, then side by side
 * the newest result per location, the hour's rollups, the firing alerts and the maintenance windows; sorted by monitor
 * id then region so consecutive scrapes list series in the same order.
 */
export async function listMonitorSeries({ sql, actor }: { sql: Sql; actor: Actor }): Promise<MonitorSeries[]> {
  const orgId = actor.orgId;
  const monitors = await metricsMonitors(sql, orgId);
  const longest = monitors.reduce((max, m) => Math.max(max, m.interval_seconds), 0) * LOOKBACK_INTERVALS + LOOKBACK_SLACK_SECONDS;
  const [latest, hours, alerts, windows] = await Promise.all([
    latestResults(sql, orgId, longest),
    storageMode(sql).then((mode) => hourFigures(sql, orgId, mode === "partitioned")),
    firingAlerts(sql, orgId),
    listWindows(sql, orgId),
  ]);
  const now = Date.now();
  const active = windows.filter((w) => windowActiveAt(w, now));
  const byId = new Map(monitors.map((m) => [m.id, m]));
  const series = new Map<string, MonitorSeries>();
  const seriesOf = (monitorId: string, region: string): MonitorSeries | undefined => {
    const key = `${monitorId}\u0000${region}`;
    let s = series.get(key);
    if (s) return s;
    const m = byId.get(monitorId);
    if (!m) return undefined;
    const tags = [...m.tags].sort();
    const covering = active.filter((w) => coversMonitor(w, m.id, m.tags));
    s = {
      monitorId, name: m.name, type: m.type, region, group: tags[0] ?? "", tags: tags.join(","),
      up: null, lastCheckSeconds: null, certDays: null, domainDays: null, certExpirySeconds: null, domainExpirySeconds: null,
      checks: NO_CHECKS,
      responseTime: hasResponseTime(m.type) ? { buckets: cumulative(null), sumSeconds: 0, count: 0 } : null,
      maintenance: covering.length > 0 ? 1 : 0,
      maintenancePaused: covering.some((w) => w.pause_monitors) ? 1 : 0,
      alertsFiring: 0,
    };
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
    s.certExpirySeconds = seconds(r.cert_expires);
    s.domainExpirySeconds = seconds(r.domain_expires);
  }
  for (const h of hours) {
    const s = seriesOf(h.monitor_id, h.location);
    if (!s) continue;
    s.checks = { up: h.up, down: h.down, degraded: h.degraded, timeout: h.timeout, unavailable: h.unavailable };
    if (s.responseTime) s.responseTime = { buckets: cumulative(h.hist), sumSeconds: h.duration_sum / 1000, count: h.up + h.down + h.degraded + h.timeout };
  }
  for (const a of alerts) {
    const s = seriesOf(a.monitor_id, a.region);
    if (s) s.alertsFiring = a.firing;
  }
  return [...series.values()].sort((a, b) => (a.monitorId < b.monitorId ? -1 : a.monitorId > b.monitorId ? 1 : a.region < b.region ? -1 : a.region > b.region ? 1 : 0));
}
