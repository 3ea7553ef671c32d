import type { paths } from "../../../api/schema.gen";
import type { Series } from "../../../components/time-chart";

export type CheckResult = paths["/api/v1/monitors/{id}/checks"]["get"]["responses"]["200"]["content"]["application/json"]["data"][number];
export type Bucket = paths["/api/v1/monitors/{id}/aggregates"]["get"]["responses"]["200"]["content"]["application/json"]["data"][number];

const secs = (iso: string) => new Date(iso).getTime() / 1000;

/** One line per location over the given results (any order), on a shared time axis; gaps are null. */
export function durationSeries(checks: Pick<CheckResult, "checked_at" | "location" | "duration_ms" | "status">[]): { x: number[]; series: Series[] } {
  const ran = checks.filter((c) => c.status !== "unavailable").sort((a, b) => a.checked_at.localeCompare(b.checked_at));
  const locations = [...new Set(ran.map((c) => c.location))].sort();
  return {
    x: ran.map((c) => secs(c.checked_at)),
    series: locations.map((loc) => ({ label: loc, values: ran.map((c) => (c.location === loc ? c.duration_ms : null)) })),
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
export function bucketSeries(byLocation: Map<string, Bucket[]>, field: "avg_ms" | "p50_ms" | "p95_ms" | "max_ms"): { x: number[]; series: Series[] } {
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
