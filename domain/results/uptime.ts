import { inSnapshot, type Sql } from "../../db/client.ts";
import { validationError } from "../../core/errors.ts";
import { selectCounts, selectIntervals, type CountRow } from "../../db/queries/uptime.ts";
import { addHistogram, emptyHistogram, histogramQuantile } from "./histogram.ts";
import { rollupsCompleteThrough } from "./rollup-closer.ts";
import { DAY_MS, HOUR_MS, floorTo, planSegments, type BucketSize, type Segment } from "./segments.ts";
import type { ResultCounts } from "./types.ts";

export type UptimeWindow = "24h" | "7d" | "30d" | "90d";
const UPTIME_WINDOWS: Record<UptimeWindow, number> = { "24h": DAY_MS, "7d": 7 * DAY_MS, "30d": 30 * DAY_MS, "90d": 90 * DAY_MS };

/** 'raw' reads raw rows only (for checking the rollups); 'auto' uses rollups plus raw edges. */
export type ReadSource = "auto" | "raw";

interface UptimeFigures {
  /** (up + degraded) / (up + degraded + down + timeout) × 100; null when no check counted. */
  uptime_pct: number | null;
  /** Every result, 'unavailable' ones included. */
  total: number;
  up: number;
  down: number;
  degraded: number;
  timeout: number;
  /** Monitoring gaps: excluded from uptime. */
  unavailable: number;
  /** (down + timeout) × the monitor's interval, averaged over the locations that checked. */
  downtime_seconds_estimate: number | null;
}

interface LocationUptime extends UptimeFigures {
  location: string;
}

export interface Uptime extends UptimeFigures {
  from: Date;
  to: Date;
  locations?: LocationUptime[];
}

export interface AggregateBucket {
  start: Date;
  /** Checks that ran (every status but 'unavailable'); durations are over these. */
  checks: number;
  unavailable: number;
  uptime_pct: number | null;
  avg_ms: number | null;
  p50_ms: number | null;
  p95_ms: number | null;
  p99_ms: number | null;
  max_ms: number | null;
}

export interface DailyBar {
  /** UTC day, YYYY-MM-DD. */
  date: string;
  uptime_pct: number | null;
  total: number;
  up: number;
  down: number;
  degraded: number;
  timeout: number;
  unavailable: number;
}

const MAX_BUCKETS = 10_000;

const zero = (): ResultCounts => ({ total: 0, up: 0, down: 0, degraded: 0, timeout: 0, unavailable: 0, duration_sum: 0, duration_max: null, hist: null });

function add(into: ResultCounts, r: ResultCounts): ResultCounts {
  into.total += r.total;
  into.up += r.up;
  into.down += r.down;
  into.degraded += r.degraded;
  into.timeout += r.timeout;
  into.unavailable += r.unavailable;
  into.duration_sum += r.duration_sum;
  if (r.duration_max !== null) into.duration_max = Math.max(into.duration_max ?? r.duration_max, r.duration_max);
  if (r.hist) into.hist = addHistogram(into.hist ?? emptyHistogram(), r.hist);
  return into;
}

/** The uptime rule: degraded is up (the target answered), timeout is down, unavailable is left out. */
export function uptimePct(c: Pick<ResultCounts, "up" | "down" | "degraded" | "timeout">): number | null {
  const counted = c.up + c.degraded + c.down + c.timeout;
  return counted === 0 ? null : ((c.up + c.degraded) / counted) * 100;
}

const counted = (c: ResultCounts) => c.up + c.degraded + c.down + c.timeout;

function figures(c: ResultCounts, downtime: number | null): UptimeFigures {
  const { total, up, down, degraded, timeout, unavailable } = c;
  return { uptime_pct: uptimePct(c), total, up, down, degraded, timeout, unavailable, downtime_seconds_estimate: downtime };
}

/** `through`: rollupsCompleteThrough(), read before planning (an older value is still exact). */
function segmentsFor(from: Date, to: Date, source: ReadSource, bucket: BucketSize | null, through: Date | null): Segment[] {
  if (!(from.getTime() < to.getTime())) throw validationError([{ path: "query.from", message: "from must be before to" }]);
  return source === "raw" ? [{ source: "raw", from, to }] : planSegments(from, to, through, bucket === "hour" ? "hourly" : "daily");
}

/** The rollup watermark when the read uses rollups. */
const throughFor = (sql: Sql, source: ReadSource | undefined) => (source === "raw" ? Promise.resolve(null) : rollupsCompleteThrough(sql));

/** Folds per-location rows of one monitor into the overall figures and (optionally) per location. */
function foldUptime(rows: CountRow[], interval: number | undefined, from: Date, to: Date, byLocation: boolean): Uptime {
  const all = zero();
  let downtime: number | null = null;
  let checkedLocations = 0;
  const locations: LocationUptime[] = [];
  for (const r of rows) {
    add(all, r);
    const bad = r.down + r.timeout;
    const locDowntime = interval === undefined ? null : bad * interval;
    if (counted(r) > 0) {
      checkedLocations++;
      if (locDowntime !== null) downtime = (downtime ?? 0) + locDowntime;
    }
    if (byLocation) locations.push({ location: r.location, ...figures(r, locDowntime) });
  }
  const overall = figures(all, downtime === null || checkedLocations === 0 ? null : Math.round(downtime / checkedLocations));
  locations.sort((a, b) => (a.location < b.location ? -1 : a.location > b.location ? 1 : 0));
  return { from, to, ...overall, ...(byLocation ? { locations } : {}) };
}

/** Uptime of one monitor over [from, to): exact for any range (rollups for whole hours/days, raw rows at the edges). */
export async function uptime(
  sql: Sql,
  orgId: string,
  monitorId: string,
  opts: { from: Date; to: Date; byLocation?: boolean; source?: ReadSource },
): Promise<Uptime> {
  const segments = segmentsFor(opts.from, opts.to, opts.source ?? "auto", null, await throughFor(sql, opts.source));
  const [rows, intervals] = await Promise.all([
    selectCounts(sql, { orgId, monitorIds: [monitorId], segments, bucket: null, durations: false }),
    selectIntervals(sql, orgId, [monitorId]),
  ]);
  return foldUptime(rows, intervals.get(monitorId), opts.from, opts.to, opts.byLocation ?? false);
}

/** Uptime over the last 24 h, 7, 30 and 90 days, ending at `now`. */
export async function uptimeWindows(
  sql: Sql,
  orgId: string,
  monitorId: string,
  opts: { now?: Date; byLocation?: boolean; source?: ReadSource } = {},
): Promise<Record<UptimeWindow, Uptime>> {
  const to = opts.now ?? new Date();
  const names = Object.keys(UPTIME_WINDOWS) as UptimeWindow[];
  const froms = names.map((w) => new Date(to.getTime() - UPTIME_WINDOWS[w]));
  // One snapshot for every window: read apart, a result stored between two reads counted in one window and not in a
  // longer one (a new monitor's page showed 100 % for 24 h beside "—" for 7 days).
  const [intervals, ...counts] = await inSnapshot(sql, async (tx) => {
    const through = await throughFor(tx, opts.source);
    return Promise.all([
      selectIntervals(tx, orgId, [monitorId]),
      ...froms.map((from) =>
        selectCounts(tx, { orgId, monitorIds: [monitorId], segments: segmentsFor(from, to, opts.source ?? "auto", null, through), bucket: null, durations: false }),
      ),
    ]);
  });
  return Object.fromEntries(
    names.map((w, i) => [w, foldUptime(counts[i]!, intervals.get(monitorId), froms[i]!, to, opts.byLocation ?? false)]),
  ) as Record<UptimeWindow, Uptime>;
}

/** Overall uptime of many monitors (a dashboard or status page) in one counting query; monitors without data get null uptime. */
export async function uptimeForMonitors(
  sql: Sql,
  orgId: string,
  monitorIds: readonly string[],
  window: UptimeWindow | { from: Date; to: Date },
  opts: { now?: Date; source?: ReadSource } = {},
): Promise<Record<string, Uptime>> {
  const to = typeof window === "string" ? (opts.now ?? new Date()) : window.to;
  const from = typeof window === "string" ? new Date(to.getTime() - UPTIME_WINDOWS[window]) : window.from;
  const segments = segmentsFor(from, to, opts.source ?? "auto", null, await throughFor(sql, opts.source));
  const [rows, intervals] = await Promise.all([
    selectCounts(sql, { orgId, monitorIds, segments, bucket: null, durations: false }),
    selectIntervals(sql, orgId, monitorIds),
  ]);
  const byMonitor = new Map<string, CountRow[]>();
  for (const r of rows) byMonitor.set(r.monitor_id, [...(byMonitor.get(r.monitor_id) ?? []), r]);
  return Object.fromEntries(monitorIds.map((id) => [id, foldUptime(byMonitor.get(id) ?? [], intervals.get(id), from, to, false)]));
}

/**
 * Hour or day buckets (UTC) covering [from, to), every bucket present; a bucket cut by `from` or
 * `to` counts only the results inside the range. p50/p95/p99 come from the duration histogram.
 */
export async function aggregates(
  sql: Sql,
  orgId: string,
  monitorId: string,
  opts: { bucket: BucketSize; from: Date; to: Date; location?: string; source?: ReadSource },
): Promise<AggregateBucket[]> {
  const step = opts.bucket === "hour" ? HOUR_MS : DAY_MS;
  const first = floorTo(opts.from.getTime(), step);
  if ((opts.to.getTime() - first) / step > MAX_BUCKETS) {
    throw validationError([{ path: "query.bucket", message: `at most ${MAX_BUCKETS} buckets per request` }]);
  }
  const rows = await selectCounts(sql, {
    orgId,
    monitorIds: [monitorId],
    segments: segmentsFor(opts.from, opts.to, opts.source ?? "auto", opts.bucket, await throughFor(sql, opts.source)),
    bucket: opts.bucket,
    location: opts.location,
    durations: true,
  });
  const sums = new Map<number, ResultCounts>();
  for (const r of rows) {
    const t = r.bucket!.getTime();
    sums.set(t, add(sums.get(t) ?? zero(), r));
  }
  const out: AggregateBucket[] = [];
  for (let t = first; t < opts.to.getTime(); t += step) {
    const c = sums.get(t) ?? zero();
    const checks = counted(c);
    out.push({
      start: new Date(t),
      checks,
      unavailable: c.unavailable,
      uptime_pct: uptimePct(c),
      avg_ms: checks === 0 ? null : Math.round((c.duration_sum / checks) * 10) / 10,
      p50_ms: histogramQuantile(c.hist, 0.5, c.duration_max),
      p95_ms: histogramQuantile(c.hist, 0.95, c.duration_max),
      p99_ms: histogramQuantile(c.hist, 0.99, c.duration_max),
      max_ms: c.duration_max,
    });
  }
  return out;
}

/** Per-UTC-day uptime of each monitor for the `days` days ending today (the status-page bar), oldest first. */
export async function dailyBars(
  sql: Sql,
  orgId: string,
  monitorIds: string | readonly string[],
  opts: { days?: number; now?: Date; source?: ReadSource } = {},
): Promise<Record<string, DailyBar[]>> {
  const ids = typeof monitorIds === "string" ? [monitorIds] : monitorIds;
  const days = opts.days ?? 90;
  const end = floorTo((opts.now ?? new Date()).getTime(), DAY_MS) + DAY_MS;
  const from = new Date(end - days * DAY_MS);
  const rows = await selectCounts(sql, { orgId, monitorIds: ids, segments: segmentsFor(from, new Date(end), opts.source ?? "auto", "day", await throughFor(sql, opts.source)), bucket: "day", durations: false });
  const sums = new Map<string, ResultCounts>();
  for (const r of rows) {
    const key = `${r.monitor_id} ${r.bucket!.getTime()}`;
    sums.set(key, add(sums.get(key) ?? zero(), r));
  }
  return Object.fromEntries(
    ids.map((id) => [
      id,
      Array.from({ length: days }, (_, i) => {
        const t = from.getTime() + i * DAY_MS;
        const { total, up, down, degraded, timeout, unavailable } = sums.get(`${id} ${t}`) ?? zero();
        const date = new Date(t).toISOString().slice(0, 10);
        return { date, uptime_pct: uptimePct({ up, down, degraded, timeout }), total, up, down, degraded, timeout, unavailable };
      }),
    ]),
  );
}
