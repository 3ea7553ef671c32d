import type { paths } from "../../../api/schema.gen";
import type { Series } from "../../../components/time-chart";

export type CheckResult = paths["/api/v1/monitors/{id}/checks"]["get"]["responses"]["200"]["content"]["application/json"]["data"][number];
export type Bucket = paths["/api/v1/monitors/{id}/aggregates"]["get"]["responses"]["200"]["content"]["application/json"]["data"][number];

const secs = (iso: string) => new Date(iso).getTime() / 1000;

/** A check that failed: how fast it failed (a refused connection in 2 ms) is no response time. */
const failed = (status: string) => status === "down" || status === "timeout";

/**
 * One line per location over the given results (any order), on a shared time axis. Another location's
 * instant is undefined (the line joins over it); a failed check is null, so the line breaks there
 * (draw with `spanGaps` false) instead of dipping to how fast it failed.
 */
export function durationSeries(checks: Pick<CheckResult, "checked_at" | "location" | "duration_ms" | "status">[]): { x: number[]; series: Series[] } {
  const ran = checks.filter((c) => c.status !== "unavailable").sort((a, b) => a.checked_at.localeCompare(b.checked_at));
  const locations = [...new Set(ran.map((c) => c.location))].sort();
  return {
    x: ran.map((c) => secs(c.checked_at)),
    series: locations.map((loc) => ({ label: loc, values: ran.map((c) => (c.location !== loc ? undefined : failed(c.status) ? null : c.duration_ms)) })),
  };
}

/**
 * Timing phases of one location's results: one line per phase field of the check type's data
 * (`dns_ms`, `connect_ms`, `tls_ms`, `ttfb_ms` for HTTP), only the phases that were measured.
 */
export function phaseSeries(checks: Pick<CheckResult, "checked_at" | "location" | "data" | "status">[], location: string, phases: string[]): { x: number[]; series: Series[] } {
  const rows = checks.filter((c) => c.location === location && c.status !== "unavailable").sort((a, b) => a.checked_at.localeCompare(b.checked_at));
  const measured = phases.filter((p) => rows.some((c) => typeof c.data[p] === "number"));
  return {
    x: rows.map((c) => secs(c.checked_at)),
    series: measured.map((p) => ({ label: phaseLabel(p), values: rows.map((c) => (typeof c.data[p] === "number" ? (c.data[p] as number) : null)) })),
  };
}

export const phaseLabel = (field: string) => field.replace(/_ms$/, "").replace(/_/g, " ").replace(/^(dns|tls|ttfb|lcp|rtt)\b/, (s) => s.toUpperCase());

/** Buckets of several locations (each oldest first, same bucket size) as one line per location of `field`. */
export function bucketSeries(byLocation: Map<string, Bucket[]>, field: "avg_ms" | "p50_ms" | "p95_ms" | "p99_ms" | "max_ms"): { x: number[]; series: Series[] } {
  const starts = [...new Set([...byLocation.values()].flatMap((b) => b.map((x) => x.start)))].sort();
  const index = new Map(starts.map((s, i) => [s, i]));
  const series = [...byLocation].map(([loc, buckets]) => {
    const values: (number | null)[] = starts.map(() => null);
    for (const b of buckets) values[index.get(b.start)!] = b[field];
    return { label: loc, values };
  });
  return { x: starts.map(secs), series };
}

export type BarLevel = "none" | "good" | "ok" | "warn" | "bad";
/** Colour band of a day: ≥ 99.9 % good, ≥ 99 % ok, ≥ 95 % warn, below bad; no checks none. */
export function barLevel(uptime: number | null | undefined, checks: number): BarLevel {
  if (uptime == null || checks === 0) return "none";
  return uptime >= 99.9 ? "good" : uptime >= 99 ? "ok" : uptime >= 95 ? "warn" : "bad";
}

/** The words a screen reader hears for the daily bar. */
export function describeBars(days: { uptime: number | null; checks: number }[]): string {
  const counted = days.filter((d) => d.checks > 0 && d.uptime != null);
  if (counted.length === 0) return `No checks in the last ${days.length} days`;
  const below = counted.filter((d) => d.uptime! < 99.9).length;
  const worst = Math.min(...counted.map((d) => d.uptime!));
  return `${counted.length} of ${days.length} days with checks; ${below === 0 ? "every day at 99.9 % or better" : `${below} day${below === 1 ? "" : "s"} below 99.9 %, worst ${worst.toFixed(2)} %`}`;
}

/** A shaded stretch of a chart's time axis (seconds): failing checks, maintenance, or no monitoring. */
export interface Band {
  from: number;
  to: number;
  kind: "failure" | "degraded" | "maintenance" | "gap";
}

/** Bands of the same kind that touch or overlap become one, sorted by start. */
export function mergeBands(bands: Band[]): Band[] {
  const out: Band[] = [];
  for (const b of [...bands].sort((a, c) => a.kind.localeCompare(c.kind) || a.from - c.from)) {
    const last = out[out.length - 1];
    if (last && last.kind === b.kind && b.from <= last.to) last.to = Math.max(last.to, b.to);
    else out.push({ ...b });
  }
  return out.sort((a, b) => a.from - b.from || a.kind.localeCompare(b.kind));
}

/**
 * Bands over raw results. A result speaks for its location from its check until that location's next
 * result, at most one interval (the latest one until `now` at the latest): a failing result (down,
 * timeout) shades red from the failing check on, a degraded one amber, an `unavailable` one as a gap.
 * Silence of more than 2.5 intervals between results is a gap from when the next check was due.
 */
export function checkBands(checks: (Pick<CheckResult, "checked_at" | "status"> & { location?: string })[], intervalSeconds: number, now = Infinity): Band[] {
  const rows = [...checks].sort((a, b) => a.checked_at.localeCompare(b.checked_at));
  const bands: Band[] = [];
  // Walking back from the latest result: the next result of each location.
  const nextOf = new Map<string | undefined, number>();
  for (let i = rows.length - 1; i >= 0; i--) {
    const c = rows[i]!;
    const t = secs(c.checked_at);
    const to = Math.max(t, Math.min(t + intervalSeconds, nextOf.get(c.location) ?? now));
    nextOf.set(c.location, t);
    const kind = failed(c.status) ? "failure" : c.status === "degraded" ? "degraded" : c.status === "unavailable" ? "gap" : null;
    if (kind) bands.push({ from: t, to, kind });
    const prev = i > 0 ? secs(rows[i - 1]!.checked_at) : null;
    if (prev !== null && t - prev > 2.5 * intervalSeconds) bands.push({ from: prev + intervalSeconds, to: t, kind: "gap" });
  }
  return mergeBands(bands);
}

/**
 * Bands over buckets (all locations together, oldest first): a bucket below 100 % uptime is a failure,
 * one where no check ran although the monitor existed (after `since`, before `now`) a gap.
 */
export function bucketBands(buckets: Pick<Bucket, "start" | "checks" | "uptime_pct" | "unavailable">[], bucketSeconds: number, since: number, now: number): Band[] {
  const bands: Band[] = [];
  for (const b of buckets) {
    const from = secs(b.start);
    const to = from + bucketSeconds;
    if (Number(b.checks) > 0 && b.uptime_pct != null && b.uptime_pct < 100) bands.push({ from, to, kind: "failure" });
    else if (Number(b.checks) === 0 && to > since && from < now) bands.push({ from: Math.max(from, since), to: Math.min(to, now), kind: "gap" });
  }
  return mergeBands(bands);
}

/** Maintenance occurrences as grey bands. */
export const maintenanceBands = (spans: { starts_at: string; ends_at: string }[]): Band[] => mergeBands(spans.map((s) => ({ from: secs(s.starts_at), to: secs(s.ends_at), kind: "maintenance" as const })));

/** p50, p95 and p99 of buckets (oldest first) as three lines. */
export function percentileSeries(buckets: Pick<Bucket, "start" | "p50_ms" | "p95_ms" | "p99_ms">[]): { x: number[]; series: Series[] } {
  return {
    x: buckets.map((b) => secs(b.start)),
    series: [
      { label: "p50", values: buckets.map((b) => b.p50_ms) },
      { label: "p95", values: buckets.map((b) => b.p95_ms) },
      { label: "p99", values: buckets.map((b) => b.p99_ms) },
    ],
  };
}

export type RangeKey = "recent" | "1h" | "24h" | "7d" | "30d" | "90d" | "custom";
const HOUR = 3600;
const DAY = 86_400;
export const RANGE_SECONDS: Record<Exclude<RangeKey, "recent" | "custom">, number> = { "1h": HOUR, "24h": DAY, "7d": 7 * DAY, "30d": 30 * DAY, "90d": 90 * DAY };

/** How a range is read: raw results up to 6 hours, hourly buckets up to 14 days, daily beyond. */
export function resolutionOf(fromSec: number, toSec: number): "raw" | "hour" | "day" {
  const span = toSec - fromSec;
  return span <= 6 * HOUR ? "raw" : span <= 14 * DAY ? "hour" : "day";
}

/**
 * The x axis a chart shows: the range picked, when there is one (so one result sits in its place on a
 * whole day), else the data's own span, widened to at least two minutes around a lone instant.
 */
export function xRangeOf(x: number[], window?: [number, number]): [number, number] {
  if (window) return window;
  if (x.length === 0) {
    const now = Math.floor(Date.now() / 1000);
    return [now - HOUR, now];
  }
  const min = Math.min(...x);
  const max = Math.max(...x);
  return max - min < 120 ? [min - 60, max + 60] : [min, max];
}

export interface CalendarCell {
  day: string;
  uptime: number | null;
  checks: number;
}

/**
 * Days laid out as a calendar: one column per week (Monday first), one row per weekday; days before
 * the first or after the last are null.
 */
export function calendarWeeks(days: CalendarCell[]): (CalendarCell | null)[][] {
  if (days.length === 0) return [];
  const weekday = (d: string) => (new Date(`${d}T00:00:00Z`).getUTCDay() + 6) % 7;
  const weeks: (CalendarCell | null)[][] = [];
  let week: (CalendarCell | null)[] = Array.from({ length: weekday(days[0]!.day) }, () => null);
  for (const d of days) {
    week.push(d);
    if (week.length === 7) {
      weeks.push(week);
      week = [];
    }
  }
  if (week.length > 0) weeks.push([...week, ...Array.from({ length: 7 - week.length }, () => null)]);
  return weeks;
}
