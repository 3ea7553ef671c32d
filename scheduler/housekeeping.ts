import type { Bus } from "../core/bus/index.ts";
import type { Sql } from "../db/client.ts";
import type { Logger } from "../core/log.ts";
import { sweepHeartbeats } from "../domain/monitors/heartbeat.ts";
import { sweepStaleRunnerQueues } from "../domain/runners/queue.ts";
import { BlindTime } from "../core/process/blind-time.ts";
import { type PeriodicTask, runPeriodically } from "../core/process/periodic.ts";
import { enforceRetention, maintainPartitions } from "../domain/results/retention.ts";
import { closeRollups, partsFor } from "../domain/results/rollup-closer.ts";
import { rekeyResults } from "../domain/results/result-key.ts";
import { sweepRegionQueues } from "./region-queues.ts";

export interface HousekeepingOptions {
  /** How often missed heartbeats are recorded as down; default 5 s. */
  heartbeatSweepMs?: number;
  /** How often the queues of offline, revoked and suspended runners are recorded as unavailable; default 10 s. */
  runnerSweepMs?: number;
  /** How often jobs that expired unclaimed in regions without workers are recorded as unavailable; default 10 s. */
  regionSweepMs?: number;
  /** How often result partitions are created ahead, retention is enforced and the results' key moved on; default 1 h. */
  storageMs?: number;
  /** How often the rollups are closed through the watermark (plain PostgreSQL); default 15 s. */
  rollupCloseMs?: number;
  now?: () => Date;
  /**
   * Whether checks wait to start (the scheduler's admission): the rollup closer's spread parts wait meanwhile.
   * Given where PostgreSQL shares the machine's cores with the checks (the all-in-one).
   */
  checksWaiting?: () => boolean;
  /** The process's blind time (core/process/blind-time.ts), kept across leader terms; default one of the term's own. */
  blind?: BlindTime;
}

/**
 * The leader's periodic duties besides publishing jobs: down results for missed heartbeats, the
 * stale jobs of runners that went offline (re-queued by their ack deadline, recorded unavailable), the
 * jobs that expired unclaimed in regions whose workers all went away (recorded unavailable), and the
 * storage of check results (daily partitions ahead, drops and deletes past each plan's retention, the
 * raw results rolled up through the watermark, the raw results' unique key moved to due time first).
 * All are idempotent, so a leader change mid-run does no harm; stopping cancels a key build in progress.
 */
export function startHousekeeping(sql: Sql, bus: Bus, log: Logger, o: HousekeepingOptions = {}): { stop(): Promise<void> } {
  const now = o.now ?? (() => new Date());
  const stopping = new AbortController();
  let toldOperator = false;
  // What the sweeps could not see (failed runs; in the all-in-one, before the process started; in the scaled mode,
  // while no API process was up) is no evidence
  // of silence: runners silent only then keep their queues, and heartbeat deadlines a refused ping would have
  // met are recorded unavailable, not down. Without the process's own, one on the schedule's clock.
  const blind = o.blind ?? new BlindTime({ clock: () => now().getTime() });
  const tasks: PeriodicTask[] = [
    runPeriodically(
      "scheduler.heartbeats",
      o.heartbeatSweepMs ?? 5_000,
      async () => {
        const missed = await blind.watch((span) => sweepHeartbeats(sql, bus, now(), span));
        if (missed > 0) log.info({ op: "scheduler.heartbeats", missed }, "recorded missed heartbeats");
      },
      log,
    ),
    runPeriodically(
      "scheduler.runner-queues",
      o.runnerSweepMs ?? 10_000,
      async () => {
        await blind.watch((span) => sweepStaleRunnerQueues(sql, bus, log, span));
      },
      log,
    ),
    runPeriodically(
      "scheduler.region-queues",
      o.regionSweepMs ?? 10_000,
      async () => {
        await sweepRegionQueues(sql, bus, log, () => now().getTime());
      },
      log,
    ),
    runPeriodically(
      "scheduler.rollups",
      o.rollupCloseMs ?? 15_000,
      async () => {
        // Each step in parts of about 40,000 results; the one that catches up spread over half a minute, so that
        // PostgreSQL's work comes in short bursts between the checks (docs/performance.md).
        const closed = await closeRollups(sql, now(), { parts: partsFor, spreadMs: 30_000, yieldTo: o.checksWaiting, signal: stopping.signal });
        // One step per run is the steady state; more is a catch-up worth a line.
        if (closed.steps > 1) log.info({ op: "scheduler.rollups", ...closed }, "rollups closed");
      },
      log,
    ),
    runPeriodically(
      "scheduler.storage",
      o.storageMs ?? 3_600_000,
      async () => {
        const partitions = await maintainPartitions(sql, now());
        const retention = await enforceRetention(sql, now());
        log.info({ op: "scheduler.storage", ...partitions, ...retention }, "result storage maintained");
        // After the partitions, never beside them: creating one locks every partition, and would queue ingest
        // behind a concurrent build holding one.
        const rekeyed = await rekeyResults(sql, { signal: stopping.signal });
        if (rekeyed.built.length > 0 || rekeyed.droppedOldKey) log.info({ op: "scheduler.storage", resultKey: rekeyed }, "raw results' unique key moved on");
        if (rekeyed.waitsForOperator && !toldOperator) {
          toldOperator = true;
          log.warn({ op: "scheduler.storage" }, "check_results keeps its old unique key, each insert costing a buffer read more: run `bun run cli results:rekey` in a quiet hour (it holds writes while it builds; docs/operations.md)");
        }
      },
      log,
    ),
  ];
  return {
    async stop() {
      stopping.abort();
      await Promise.all(tasks.map((t) => t.stop()));
    },
  };
}
