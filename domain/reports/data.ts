import type { Sql } from "../../db/client.ts";
import { selectCounts, selectIntervals, type CountRow } from "../../db/queries/uptime.ts";
import { orgName, periodIncidents, type PeriodIncident, type ReportRow, scopeMonitors, statusPageName } from "../../db/queries/reports.ts";
import { addHistogram, emptyHistogram, histogramQuantile } from "../results/histogram.ts";
import { rollupsCompleteThrough } from "../results/rollup-closer.ts";
import { planSegments } from "../results/segments.ts";
import { uptimePct } from "../results/uptime.ts";
import { daysOf, type ReportPeriod } from "./schedule.ts";

export interface MonitorSummary {
  id: string;
  name: string;
  type: string;
  /** null when no check counted in the period. */
  uptime_pct: number | null;
  /** Checks that ran (every status but 'unavailable'). */
  checks: number;
  /** down + timeout. */
  failed_checks: number;
  /** Failed checks × the check interval, averaged over the locations that checked. */
  downtime_seconds: number | null;
  avg_ms: number | null;
  p95_ms: number | null;
}

export interface ReportData {
  /** The organisation's or the status page's name. */
  title: string;
  frequency: ReportRow["frequency"];
  timezone: string;
  period: ReportPeriod;
  uptime_pct: number | null;
  monitors: MonitorSummary[];
  /** Up to five monitors with the highest average response time. */
  slowest: MonitorSummary[];
  incidents: PeriodIncident[];
  /** Overall uptime per local day of the period (the chart). */
  daily: { date: string; uptime_pct: number | null }[];
}

const SLOWEST = 5;

interface Sums {
  up: number;
  down: number;
  degraded: number;
  timeout: number;
  unavailable: number;
  duration_sum: number;
  duration_max: number | null;
  hist: number[] | null;
}
const zero = (): Sums => ({ up: 0, down: 0, degraded: 0, timeout: 0, unavailable: 0, duration_sum: 0, duration_max: null, hist: null });
function add(s: Sums, r: CountRow): Sums {
  s.up += r.up;
  s.down += r.down;
  s.degraded += r.degraded;
  s.timeout += r.timeout;
  s.unavailable += r.unavailable;
  s.duration_sum += Number(r.duration_sum);
  if (r.duration_max !== null) s.duration_max = Math.max(s.duration_max ?? r.duration_max, r.duration_max);
  if (r.hist) s.hist = addHistogram(s.hist ?? emptyHistogram(), r.hist);
  return s;
}
const ran = (s: Sums) => s.up + s.down + s.degraded + s.timeout;

/**
 * What one report says about one period: uptime per monitor (the same rule and the same rollup-backed
 * query as the uptime API), incidents open during the period, the slowest monitors by average response
 * time, and the overall uptime of each local day.
 */
export async function computeReportData(sql: Sql, report: Pick<ReportRow, "org_id" | "scope" | "status_page_id" | "frequency" | "timezone">, period: ReportPeriod): Promise<ReportData> {
  const orgId = report.org_id;
  const pageId = report.scope === "status_page" ? report.status_page_id : null;
  const [monitors, incidents, title] = await Promise.all([
    scopeMonitors(sql, orgId, pageId),
    periodIncidents(sql, orgId, pageId, period.from, period.to),
    pageId ? statusPageName(sql, orgId, pageId).then((n) => n ?? pageId) : orgName(sql, orgId),
  ]);
  const ids = monitors.map((m) => m.id);
  const days = daysOf(report.timezone, period);
  const through = await rollupsCompleteThrough(sql);
  const [rows, intervals, ...perDay] = await Promise.all([
    selectCounts(sql, { orgId, monitorIds: ids, segments: planSegments(period.from, period.to, through, "daily"), bucket: null, durations: true }),
    selectIntervals(sql, orgId, ids),
    ...days.map((d) => selectCounts(sql, { orgId, monitorIds: ids, segments: planSegments(d.from, d.to, through, "hourly"), bucket: null, durations: false })),
  ]);
  const all = zero();
  const summaries = monitors.map((m): MonitorSummary => {
    const mine = rows.filter((r) => r.monitor_id === m.id);
    const s = mine.reduce(add, zero());
    mine.forEach((r) => add(all, r));
    const checked = mine.filter((r) => r.up + r.down + r.degraded + r.timeout > 0);
    const interval = intervals.get(m.id);
    const downtime = interval === undefined || checked.length === 0 ? null : Math.round(checked.reduce((n, r) => n + (r.down + r.timeout) * interval, 0) / checked.length);
    const n = ran(s);
    return {
      id: m.id,
      name: m.name,
      type: m.type,
      uptime_pct: uptimePct(s),
      checks: n,
      failed_checks: s.down + s.timeout,
      downtime_seconds: downtime,
      avg_ms: n === 0 ? null : Math.round(s.duration_sum / n),
      p95_ms: n === 0 ? null : histogramQuantile(s.hist, 0.95, s.duration_max),
    };
  });
  const slowest = summaries
    .filter((m) => m.avg_ms !== null)
    .sort((a, b) => b.avg_ms! - a.avg_ms! || a.name.localeCompare(b.name))
    .slice(0, SLOWEST);
  const daily = days.map((d, i) => ({ date: d.date, uptime_pct: uptimePct(perDay[i]!.reduce(add, zero())) }));
  return { title, frequency: report.frequency, timezone: report.timezone, period, uptime_pct: uptimePct(all), monitors: summaries, slowest, incidents, daily };
}
