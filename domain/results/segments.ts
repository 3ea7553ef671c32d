import type { Segment, Source } from "../../db/queries/uptime.ts";

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

// The segment types live with the uptime queries that read them (db/ imports no domain).
export type { BucketSize, Segment } from "../../db/queries/uptime.ts";

/** Rounds down/up to a multiple of `step` ms since the epoch: UTC hours and days. */
export const floorTo = (t: number, step: number) => Math.floor(t / step) * step;
export const ceilTo = (t: number, step: number) => Math.ceil(t / step) * step;

/**
 * Splits [from, to) into whole UTC days read from the daily rollup, whole hours at the edges read
 * from the hourly rollup, and the sub-hour remainders read from raw rows, so that any range is
 * exact. Rollup buckets are read only when they end by `rollupsThrough` (the rollups are complete
 * up to it: plain PostgreSQL's watermark; null for always, TimescaleDB); after it, raw rows.
 * `coarsest` caps the source used (hour buckets cannot come from daily rows).
 */
export function planSegments(from: Date, to: Date, rollupsThrough: Date | null, coarsest: "hourly" | "daily" = "daily"): Segment[] {
  const f = from.getTime();
  const t = to.getTime();
  if (!(f < t)) return [];
  const seg = (source: Source, a: number, b: number): Segment[] => (a < b ? [{ source, from: new Date(a), to: new Date(b) }] : []);
  const h1 = ceilTo(f, HOUR_MS);
  const h2 = floorTo(rollupsThrough ? Math.min(t, rollupsThrough.getTime()) : t, HOUR_MS);
  if (h1 >= h2) return seg("raw", f, t);
  const d1 = ceilTo(h1, DAY_MS);
  const d2 = floorTo(h2, DAY_MS);
  const middle =
    coarsest === "daily" && d1 < d2
      ? [...seg("hourly", h1, d1), ...seg("daily", d1, d2), ...seg("hourly", d2, h2)]
      : seg("hourly", h1, h2);
  return [...seg("raw", f, h1), ...middle, ...seg("raw", h2, t)];
}
