import { withTx, type Sql } from "../../db/client.ts";
import { closeRollupRange, lockRollupWatermarkExclusive, selectRollupWatermark } from "../../db/results/rollup-watermark.ts";
import { storageMode } from "../../db/results/storage-mode.ts";
import { floorTo } from "./segments.ts";

export interface CloseOptions {
  /** Width of one step (one transaction) and the grid the watermark moves on; default one minute. */
  stepMs?: number;
  /** Results due this long ago may still be on their way; the watermark stays behind it. Default 30 s. */
  graceMs?: number;
  /** Steps per call at most, so a catch-up after downtime is spread over several runs; default 30. */
  maxSteps?: number;
}

export interface CloseOutcome {
  steps: number;
  /** Raw results added to the rollups. */
  results: number;
  /** The watermark afterwards; null with TimescaleDB (continuous aggregates, no watermark). */
  closedThrough: Date | null;
}

/**
 * Plain PostgreSQL: rolls the raw results up to the last step boundary before `now` minus the grace,
 * one step per transaction under the watermark lock, from where the watermark stands. Run once per
 * cluster (the scheduler leader's housekeeping); a second closer at once only waits for the lock.
 */
export async function closeRollups(sql: Sql, now: Date, o: CloseOptions = {}): Promise<CloseOutcome> {
  if ((await storageMode(sql)) !== "partitioned") return { steps: 0, results: 0, closedThrough: null };
  const step = o.stepMs ?? 60_000;
  const target = floorTo(now.getTime() - (o.graceMs ?? 30_000), step);
  const out: CloseOutcome = { steps: 0, results: 0, closedThrough: await selectRollupWatermark(sql) };
  while (out.steps < (o.maxSteps ?? 30) && out.closedThrough!.getTime() < target) {
    const moved = await withTx(sql, async (tx) => {
      const from = await lockRollupWatermarkExclusive(tx);
      if (from.getTime() >= target) return { to: from, results: 0 };
      const to = new Date(Math.min(floorTo(from.getTime(), step) + step, target));
      return { to, results: (await closeRollupRange(tx, to)).results };
    });
    out.steps++;
    out.results += moved.results;
    out.closedThrough = moved.to;
  }
  return out;
}

/**
 * The instant through which the rollups are complete (every result due before it is counted in
 * them), for readers planning which buckets to read from rollups; null when they are complete at
 * any moment (TimescaleDB's real-time continuous aggregates).
 */
export async function rollupsCompleteThrough(sql: Sql): Promise<Date | null> {
  return (await storageMode(sql)) === "partitioned" ? selectRollupWatermark(sql) : null;
}
