import { setTimeout as delay } from "node:timers/promises";
import { withTx, type Sql } from "../../db/client.ts";
import {
  addHoursToDaily,
  countDue,
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
   * parts, rest ratio 1 (at most 1 s a rest). A function is given the step's raw results, counted
   * first (`partsFor`: the housekeeping's closer).
   */
  parts?: number | ((results: number) => number);
  restRatio?: number;
  /**
   * When a step is the last one due (the closer has caught up), its parts start evenly over this span,
   * so that PostgreSQL's work comes in short bursts with the checks' time between them instead of a
   * few seconds of a whole core: on two cores such a burst made every due check start late. A catch-up
   * rests by `restRatio` alone. Default 0; the housekeeping's closer spreads over half the step.
   */
  spreadMs?: number;
  /**
   * In a spread step, the next part waits while this says so (checks wait to start on the cores PostgreSQL
   * shares with them: the all-in-one), looking again every 250 ms, until the step has run for half as long
   * again as its spread; then the rest of the step runs regardless, resting by `restRatio` alone.
   */
  yieldTo?: () => boolean;
  /** Ends the rests between parts at once (the process is stopping); the step itself still completes. */
  signal?: AbortSignal;
}

/**
 * Raw results per part of a step: one short burst of PostgreSQL's time (about half a second on two cores). Each part
 * scans the whole minute for its monitors, so more, smaller parts cost more: 16 of 20,000 added a tenth to PostgreSQL's
 * CPU per check at 100,000 monitors, 8 of 40,000 less (docs/performance.md).
 */
const RESULTS_PER_PART = 40_000;
const MAX_PARTS = 8;

/**
 * The parts a step of `results` raw results is read in: a power of two, up to 8, for about 40,000
 * results each (at 100,000 monitors every 20 s, a minute's 300,000 results in 8 parts).
 */
export function partsFor(results: number): number {
  let parts = 1;
  while (parts < MAX_PARTS && parts * RESULTS_PER_PART < results) parts *= 2;
  return parts;
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
    // Only the step that catches up is spread: a catch-up's steps follow one another as before.
    const spread = to.getTime() >= target ? o : { ...o, spreadMs: 0 };
    let moved = await withTx(sql, (tx) => closeStepLockLast(tx, from, to, spread)).catch((err) => {
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

/** Waits `ms`, or less once `signal` is aborted. */
async function pause(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return;
  await delay(ms, undefined, { signal }).catch(() => {});
}

interface Step {
  to: Date;
  results: number;
  /** performance.now() when the step had the lock. */
  lockedAt: number;
}

async function closeStepLockLast(tx: Sql, from: Date, to: Date, o: CloseOptions): Promise<Step> {
  await useCloserSettings(tx);
  const parts = typeof o.parts === "function" ? o.parts(await countDue(tx, from, to)) : (o.parts ?? 4);
  const spreadMs = o.spreadMs ?? 0;
  const gap = spreadMs / parts;
  // The spread, waits for the checks included, ends by then: the rest of the step runs without them.
  const spreadUntil = performance.now() + spreadMs * 1.5;
  const snapshots: string[] = [];
  let results = 0;
  for (let part = 0; part < parts; part++) {
    while (spreadMs > 0 && o.yieldTo?.() && performance.now() < spreadUntil && !o.signal?.aborted) await pause(Math.min(250, spreadUntil - performance.now()), o.signal);
    const started = performance.now();
    const read = await rollUpCommitted(tx, from, to, { part, parts });
    snapshots.push(read.snapshot);
    results += read.results;
    const took = performance.now() - started;
    if (part < parts - 1) await pause(Math.max(Math.min(1_000, took * (o.restRatio ?? 1)), Math.min(gap - took, spreadUntil - performance.now())), o.signal);
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
