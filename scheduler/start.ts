import { hostname } from "node:os";
import type { Registry } from "prom-client";
import type { Bus } from "../core/bus/index.ts";
import { type Clock, systemClock } from "../core/clock.ts";
import { type Sql, withTx } from "../db/client.ts";
import { newId } from "../core/ids.ts";
import type { Logger } from "../core/log.ts";
import { pruneWorkers } from "../db/queries/region-workers.ts";
import { readWatermark, writeWatermark } from "../db/queries/scheduler.ts";
import { type RegionLoadRow, writeRegionLoads } from "../db/queries/region-load.ts";
import { type QueueStateRow, readQueueLines, replaceQueueStates } from "../db/queries/queue-state.ts";
import { Admission, type QueueLoad } from "./admission.ts";
import { queueFromRow } from "./job-queues.ts";
import { type LeaderBillingOptions, startLeaderBillingJobs } from "./billing-jobs.ts";
import { type HousekeepingOptions, startHousekeeping } from "./housekeeping.ts";
import { startLeaderElection } from "./leader.ts";
import { BlindTime } from "../core/process/blind-time.ts";
import { MaintenanceGate } from "./maintenance-gate.ts";
import { createSchedulerMetrics } from "./metrics.ts";
import { startPlacement } from "./placement.ts";
import { type LineState, Scheduler } from "./scheduler.ts";
import { startSync } from "./sync.ts";

export interface SchedulerDeps {
  sql: Sql;
  /** The same database as `sql`; the leader lock needs a connection of its own. */
  databaseUrl: string;
  bus: Bus;
  log: Logger;
  clock?: Clock;
  /** Process registry to add the scheduler's metrics to. */
  registry?: Registry;
  /** Due checks missed while no leader ran are published up to this far back; default 60. */
  backfillSeconds?: number;
  /** Standby lock retry; default 1500 ms. */
  lockRetryMs?: number;
  /** Placement answer for self-hosted runners; default the `runners` table when it exists, else offline. */
  isRunnerOnline?: (runnerId: string) => boolean;
  /** Full reconcile period; default 30 s. */
  reconcileMs?: number;
  /** Heartbeat sweep and result-storage periods of the leader. */
  housekeeping?: HousekeepingOptions;
  /** The leader's billing jobs; none when unset (tests). */
  billing?: LeaderBillingOptions;
  /** Backpressure: seconds of work a region's queue may hold beyond what its workers run at once; default 5. */
  queueSeconds?: number;
  /** SchedulerOptions.tickMs. */
  tickMs?: number;
  /**
   * The rollup closer's parts wait while checks wait to start (the all-in-one, where PostgreSQL shares the cores
   * with the checks: docs/performance.md); off by default.
   */
  closerYieldsToChecks?: boolean;
  /** Result durables whose backlog holds publishing back (the all-in-one's in-process ingest); none by default. */
  resultDurables?: readonly string[];
  /**
   * What this process could not see, kept across leader terms (core/process/blind-time.ts): the all-in-one
   * passes its own, blind before it started; by default only failed reads and lost terms count.
   */
  blind?: BlindTime;
}

export interface SchedulerHandle {
  isLeader(): boolean;
  /** Monitors in the schedule (0 on a standby). */
  size(): number;
  stop(): Promise<void>;
}

const WATERMARK_EVERY_MS = 1000;

/** A region's load for GET /regions: its standard queue and its browser engines' queues together. */
function regionLoads(loads: readonly QueueLoad[]): RegionLoadRow[] {
  const byRegion = new Map<string, RegionLoadRow>();
  for (const l of loads) {
    if (l.queue.kind === "runner") continue;
    const r = byRegion.get(l.queue.location) ?? { region: l.queue.location, overloadedSince: null, lagSeconds: 0, waiting: 0 };
    if (l.overloadedSince !== null && (r.overloadedSince === null || l.overloadedSince < r.overloadedSince)) r.overloadedSince = l.overloadedSince;
    r.lagSeconds = Math.max(r.lagSeconds, l.lagSeconds);
    r.waiting += l.waiting;
    byRegion.set(r.region, r);
  }
  return [...byRegion.values()];
}

/** The queues with a line (its watermark, for a successor) or an overload (a runner's status), as stored. */
const queueStates = (loads: readonly QueueLoad[]): QueueStateRow[] =>
  loads
    .filter((l) => l.releasedThrough !== null || l.overloadedSince !== null)
    .map((l) => ({ queue: l.queue.subject, kind: l.queue.kind, location: l.queue.location, engine: l.queue.engine, releasedThrough: l.releasedThrough, overloadedSince: l.overloadedSince, lagSeconds: l.lagSeconds, waiting: l.waiting }));

/**
 * Runs the scheduler role: competes for leadership and, while leader, keeps the schedule in
 * sync with the database and publishes due checks. A standby only retries the lock.
 */
export async function startScheduler(deps: SchedulerDeps): Promise<SchedulerHandle> {
  const { sql, log } = deps;
  const clock = deps.clock ?? systemClock;
  const instanceId = `${hostname()}/${process.pid}/${newId("sch").slice(-6)}`;
  const metrics = createSchedulerMetrics(deps.registry);
  let term: { stop(handOver: boolean): Promise<void>; scheduler: Scheduler } | null = null;
  const blind = deps.blind ?? new BlindTime();

  const election = startLeaderElection({
    databaseUrl: deps.databaseUrl,
    log,
    retryMs: deps.lockRetryMs,
    async onElected() {
      metrics.leader.set(1);
      term = await beginTerm();
    },
    async onDeposed(reason) {
      metrics.leader.set(0);
      // A lost lock or connection: blind from the last good read until a later term reads again.
      if (reason !== "stopping") blind.failed();
      const t = term;
      term = null;
      await t?.stop(reason === "stopping");
    },
  });

  async function beginTerm() {
    const gate = new MaintenanceGate((err, windowId) => log.error({ op: "scheduler.maintenance", err, windowId }, "maintenance window cannot be evaluated; ignored"));
    const placement = await startPlacement(sql, log, { isRunnerOnline: deps.isRunnerOnline, now: () => clock.now(), blind });
    const admission = new Admission({
      bus: deps.bus,
      clock,
      log,
      metrics,
      queueSeconds: deps.queueSeconds ?? 5,
      concurrencyOf: (queue) => placement.queueConcurrency(queue),
      resultDurables: deps.resultDurables,
    });
    const scheduler = new Scheduler({
      admission,
      bus: deps.bus,
      clock,
      log,
      placement,
      maintenance: gate,
      metrics,
      isLeader: () => election.isLeader(),
      backfillMs: (deps.backfillSeconds ?? 60) * 1000,
      tickMs: deps.tickMs,
    });
    let sync: Awaited<ReturnType<typeof startSync>> | null = null;
    try {
      sync = await startSync({ sql, scheduler, gate, log, reconcileMs: deps.reconcileMs });
      const watermark = await readWatermark(sql);
      const lines: LineState[] = [];
      for (const row of await readQueueLines(sql)) {
        const queue = queueFromRow(row.kind, row.location, row.engine);
        if (queue) lines.push({ queue, releasedThrough: row.releasedThrough });
      }
      scheduler.start(watermark, lines);
      admission.start();
      log.info({ op: "scheduler.start", monitors: scheduler.size, watermark: watermark && new Date(watermark).toISOString() }, "schedule running");
    } catch (err) {
      scheduler.stop();
      admission.stop();
      placement.stop();
      await sync?.stop();
      throw err;
    }

    let lastWritten = 0;
    const persist = async () => {
      const through = scheduler.handledThrough();
      if (through === null || through <= lastWritten || !election.isLeader()) return;
      const loads = admission.loads();
      // The watermark and the lines from one instant: a successor rebuilds the lines between the two.
      await withTx(sql, async (tx) => {
        await writeWatermark(tx, through, instanceId);
        await replaceQueueStates(tx, queueStates(loads));
      });
      lastWritten = through;
      // Each region's load for GET /regions and the dashboard's banner (a row per region, no tenant data).
      await writeRegionLoads(sql, regionLoads(loads));
    };
    const watermarkTimer = setInterval(() => void persist().catch((err) => log.warn({ op: "scheduler.watermark", err }, "watermark write failed")), WATERMARK_EVERY_MS);
    const pruneTimer = setInterval(() => void pruneWorkers(sql, 3600).catch(() => {}), 60_000);
    const checksWaiting = deps.closerYieldsToChecks ? () => admission.checksWaiting() : undefined;
    const housekeeping = startHousekeeping(sql, deps.bus, log, { blind, checksWaiting, ...deps.housekeeping });
    const billing = deps.billing ? startLeaderBillingJobs(sql, log, deps.billing) : null;
    return {
      scheduler,
      /** handOver: a clean stop while still holding the lock; the successor then backfills from here. */
      async stop(handOver: boolean) {
        const through = scheduler.handledThrough();
        // Stop publishing first (synchronously), then the rest; no periodic write after the final one below.
        scheduler.stop();
        clearInterval(watermarkTimer);
        const loads = admission.loads();
        const regions = regionLoads(loads).map((r) => ({ ...r, overloadedSince: null, lagSeconds: 0, waiting: 0 }));
        admission.stop();
        await writeRegionLoads(sql, regions).catch(() => {});
        // Handing over: the successor takes the lines over from here. Deposed: it may lead already, so leave its rows alone.
        const lines = queueStates(loads)
          .filter((q) => q.releasedThrough !== null)
          .map((q) => ({ ...q, overloadedSince: null }));
        if (handOver && through !== null) {
          await withTx(sql, async (tx) => {
            await writeWatermark(tx, through, instanceId);
            await replaceQueueStates(tx, lines);
          }).catch(() => {});
        }
        clearInterval(pruneTimer);
        await housekeeping.stop();
        await billing?.stop();
        placement.stop();
        await sync?.stop();
      },
    };
  }

  return {
    isLeader: () => election.isLeader(),
    size: () => (term as { scheduler: Scheduler } | null)?.scheduler.size ?? 0,
    async stop() {
      await election.stop();
    },
  };
}
