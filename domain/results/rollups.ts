import { withTx, type Sql } from "../../db/client.ts";
import { rebuildRollups as rebuildRollupRows, refreshContinuousAggregates } from "../../db/results/maintenance.ts";
import { lockRollupWatermarkExclusive } from "../../db/results/rollup-watermark.ts";
import { storageMode } from "../../db/results/storage-mode.ts";
import { DAY_MS, HOUR_MS, ceilTo, floorTo } from "./segments.ts";

/**
 * Recomputes the rollups of some monitors over the whole UTC days covering [from, to) from raw
 * rows (after a bulk load or a repair): plain PostgreSQL rebuilds its tables in one transaction,
 * from the raw rows due before the rollup watermark (the closer adds the later ones; daily rows hold
 * the hours before the watermark's, rollup-closer.ts), under its lock;
 * TimescaleDB refreshes its continuous aggregates for everyone (call it outside a transaction there).
 */
export async function rebuildRollups(sql: Sql, orgId: string, monitorIds: string[], from: Date, to: Date): Promise<void> {
  const lo = new Date(floorTo(from.getTime(), DAY_MS));
  const hi = new Date(ceilTo(to.getTime(), DAY_MS));
  if ((await storageMode(sql)) !== "partitioned") return refreshContinuousAggregates(sql, lo, hi);
  // A closer's step may hold rollup rows of the watermark's hour while it waits for the lock held
  // here: one of the two is chosen as the deadlock's victim; the closer redoes its step, this retries.
  for (let attempt = 1; ; attempt++) {
    try {
      return await withTx(sql, async (tx) => {
        const watermark = await lockRollupWatermarkExclusive(tx);
        // The hour and day holding the watermark are rebuilt partly, as the closer keeps them.
        const to = Math.min(hi.getTime(), watermark.getTime());
        if (to > lo.getTime()) await rebuildRollupRows(tx, orgId, monitorIds, lo, new Date(to), new Date(Math.min(to, floorTo(watermark.getTime(), HOUR_MS))));
      });
    } catch (err) {
      if (attempt >= 3 || (err as { code?: string }).code !== "40P01") throw err;
    }
  }
}
