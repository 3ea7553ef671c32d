import type { InsertedResult, RollupDelta } from "../../db/queries/results.ts";
import { emptyHistogram, histogramIndex } from "./histogram.ts";
import { DAY_MS, HOUR_MS, floorTo } from "./segments.ts";

/**
 * What a batch of newly inserted results adds to each hourly and daily rollup row, keyed and
 * sorted by (org, monitor, bucket, location) so concurrent batches lock rows in the same order.
 * Durations (sum, max, histogram) cover every status but 'unavailable', as in the SQL aggregates.
 */
export function rollupDeltas(rows: readonly InsertedResult[]): { hourly: RollupDelta[]; daily: RollupDelta[] } {
  const build = (step: number) => {
    const byKey = new Map<string, RollupDelta>();
    for (const r of rows) {
      const bucket = new Date(floorTo(r.scheduled_at.getTime(), step)).toISOString();
      const key = `${r.org_id}\u0000${r.monitor_id}\u0000${bucket}\u0000${r.location}`;
      let d = byKey.get(key);
      if (!d) {
        d = { org_id: r.org_id, monitor_id: r.monitor_id, location: r.location, bucket, total: 0, up: 0, down: 0, degraded: 0, timeout: 0, unavailable: 0, duration_sum: 0, duration_max: null, hist: emptyHistogram() };
        byKey.set(key, d);
      }
      d.total++;
      d[r.status]++;
      if (r.status !== "unavailable") {
        d.duration_sum += r.duration_ms;
        d.duration_max = Math.max(d.duration_max ?? r.duration_ms, r.duration_ms);
        d.hist[histogramIndex(r.duration_ms)]!++;
      }
    }
    return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, d]) => d);
  };
  return { hourly: build(HOUR_MS), daily: build(DAY_MS) };
}
