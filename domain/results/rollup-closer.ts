import { withTx, type Sql } from "../../db/client.ts";
import {
  addHoursToDaily,
  advanceRollupWatermark,
  foldLateResults,
  lockRollupWatermarkExclusive,
  rollUpCommitted,
  rollUpCommittedSince,
  selectRollupWatermark,
  useCloserSettings,
} from "../../db/results/rollup-watermark.ts";
import { summarizeNewRanges } from "../../db/results/maintenance.ts";
import { storageMode } from "../../db/results/storage-mode.ts";
import { floorTo, HOUR_MS } from "./segments.ts";

export interface CloseOptions {
  /** Width of one step (one transaction) and the grid the watermark moves on; default one minute. */
  stepMs?: number;
  /** Results due this long ago may still be on their way; the watermark stays behind it. Default 30 s. */
  graceMs?: number;
  /** Steps per call at most, so a catch-up after downtime is spread over several runs; default 30. */
  maxSteps?: number;
  /**
   * How long a step waits for the watermark lock after reading what is committed; past it the step
   * is redone with the lock taken first. Default 2 s.
   */
  lockWaitMs?: number;
  /**
   * A step reads what is committed in this many parts of the monitors (a power of two, by a hash of
   * the monitor id), one statement each, resting after each as long as it took times `restRatio`, so
   * that a step of 100,000 monitors does not take the machine for two seconds at once. Default 4
   * parts, rest ratio 1 (at most 1 s a rest).
   */
  parts?: number;
  restRatio?: number;
}

export interface CloseOutcome {
  steps: number;
  /** Raw results added to the rollups. */
  results: number;
  /** The watermark afterwards; null with TimescaleDB (continuous aggregates, no watermark). */
  closedThrough: Date | null;
  /** Steps redone with the lock first (their first try waited too long for it). */
  lockedFirst?: number;
  /** The longest time one step held the watermark lock (ingest waits meanwhile), in ms. */
  lockHeldMs?: number;
  /** BRIN ranges of the raw rows summarised before the steps; null when a VACUUM held the partition (not waited for). */
  rangesSummarized?: number | null;
}

/** lock_not_available (lock_timeout) and deadlock_detected: the step is redone with the lock first. */
const LOCK_CONFLICT = new Set(["55P03", "40P01"]);

/** Thrown inside a step's transaction to roll it back: another closer moved the watermark meanwhile. */
class WatermarkMoved extends Error {}

/**
 * Plain PostgreSQL: rolls the raw results up to the last step boundary before `now` minus the grace,
 * one step per transaction, from where the watermark stands. Run once per cluster (the scheduler
 * leader's housekeeping); a second closer at once finds the watermark moved and gives its step up.
 *
 * A step holds ingest back only briefly. In one transaction (so readers see the rollup rows and the
 * watermark move at once) it first adds the step's raw rows committed so far to the hourly rollup, and
 * the hours it completes to the daily rollup, then takes the watermark lock, which waits for the ingest
 * batches that read the old watermark, adds the rows committed since its first read (by transaction id
 * against that read's snapshot) and the late results ingest kept for it (rollup_late: ingest never
 * writes the rows this step holds, so the two cannot deadlock), each to the daily rollup too when its
 * hour is there already, moves the watermark and commits. Only that last part holds ingest. Should
 * the lock not come within `lockWaitMs` (a long ingest batch; a rebuild waiting for a row this step
 * wrote), the step is redone with the lock taken first.
 */
export async function closeRollups(sql: Sql, now: Date, o: CloseOptions = {}): Promise<CloseOutcome> {
  if ((await storageMode(sql)) !== "partitioned") return { steps: 0, results: 0, closedThrough: null };
  const step = o.stepMs ?? 60_000;
  const target = floorTo(now.getTime() - (o.graceMs ?? 30_000), step);
  const out: CloseOutcome = { steps: 0, results: 0, closedThrough: await selectRollupWatermark(sql), lockedFirst: 0, lockHeldMs: 0 };
  // The steps find their minutes through the BRIN index on the due time, which visits every range not summarised yet.
  if (out.closedThrough!.getTime() < target) out.rangesSummarized = await summarizeNewRanges(sql, out.closedThrough!, new Date(target - 1));
  while (out.steps < (o.maxSteps ?? 30) && out.closedThrough!.getTime() < target) {
    const from = out.closedThrough!;
    const to = new Date(Math.min(floorTo(from.getTime(), step) + step, target));
    let moved = await withTx(sql, (tx) => closeStepLockLast(tx, from, to, o)).catch((err) => {
      if (err instanceof WatermarkMoved || LOCK_CONFLICT.has((err as { code?: string }).code ?? "")) return null;
      throw err;
    });
    if (!moved) {
      out.lockedFirst!++;
      moved = await withTx(sql, (tx) => closeStepLockFirst(tx, step, target));
    }
    out.steps++;
    out.results += moved.results;
    out.closedThrough = moved.to;
    out.lockHeldMs = Math.max(out.lockHeldMs!, performance.now() - moved.lockedAt);
  }
  return out;
}

interface Step {
  to: Date;
  results: number;
  /** performance.now() when the step had the lock. */
  lockedAt: number;
}

async function closeStepLockLast(tx: Sql, from: Date, to: Date, o: CloseOptions): Promise<Step> {
  await useCloserSettings(tx);
  const parts = o.parts ?? 4;
  const snapshots: string[] = [];
  let results = 0;
  for (let part = 0; part < parts; part++) {
    const started = performance.now();
    const read = await rollUpCommitted(tx, from, to, { part, parts });
    snapshots.push(read.snapshot);
    results += read.results;
    if (part < parts - 1) await Bun.sleep(Math.min(1_000, (performance.now() - started) * (o.restRatio ?? 1)));
  }
  // The hours this step completes go to the daily rollup before the lock (1.5 s at 100,000 monitors, once an hour);
  // what is added to them under it goes to both rollups.
  await addHoursToDaily(tx, from, to);
  const dailyBefore = new Date(floorTo(to.getTime(), HOUR_MS));
  const completesHours = dailyBefore.getTime() > floorTo(from.getTime(), HOUR_MS);
  const at = await lockRollupWatermarkExclusive(tx, { timeoutMs: o.lockWaitMs ?? 2_000 });
  const lockedAt = performance.now();
  if (at.getTime() !== from.getTime()) throw new WatermarkMoved();
  // Only a step that completes hours has rows of them in its range; the late ones may be of any earlier hour.
  const rest = await rollUpCommittedSince(tx, from, to, snapshots, completesHours ? dailyBefore : undefined);
  const late = await foldLateResults(tx, dailyBefore);
  await advanceRollupWatermark(tx, from, to, { dailyDone: true });
  return { to, results: results + rest.results + late, lockedAt };
}

async function closeStepLockFirst(tx: Sql, step: number, target: number): Promise<Step> {
  await useCloserSettings(tx);
  const from = await lockRollupWatermarkExclusive(tx);
  const lockedAt = performance.now();
  if (from.getTime() >= target) return { to: from, results: 0, lockedAt };
  const to = new Date(Math.min(floorTo(from.getTime(), step) + step, target));
  const { results } = await rollUpCommitted(tx, from, to);
  // Late results of hours already in the daily rollup go to it too; the rest with the hours this step completes.
  const late = await foldLateResults(tx, new Date(floorTo(from.getTime(), HOUR_MS)));
  await advanceRollupWatermark(tx, from, to);
  return { to, results: results + late, lockedAt };
}

/**
 * The instant through which the rollups are complete (every result due before it is counted in
 * them), for readers planning which buckets to read from rollups; null when they are complete at
 * any moment (TimescaleDB's real-time continuous aggregates).
 */
export async function rollupsCompleteThrough(sql: Sql): Promise<Date | null> {
  return (await storageMode(sql)) === "partitioned" ? selectRollupWatermark(sql) : null;
}
