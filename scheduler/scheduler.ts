import type { Bus } from "../core/bus/index.ts";
import type { Clock } from "../core/clock.ts";
import { type CheckResultMessage, jobId, type LocationType, resultSubject, unavailableResult } from "../schemas/messages/check-messages.ts";
import type { Logger } from "../core/log.ts";
import { LogThrottle } from "../core/log-throttle.ts";
import type { SchedulableRow } from "../db/queries/scheduler.ts";
import { browserEngineOf } from "../schemas/checks/browser-fields.ts";
import { buildCheckJob } from "../domain/monitors/job.ts";
import { NOWHERE_LOCATION } from "../domain/monitors/locations.ts";
import { dueAfter, dueAtOrAfter, expiryOf, phaseOf } from "./grid.ts";
import type { MaintenanceGate } from "./maintenance-gate.ts";
import type { SchedulerMetrics } from "./metrics.ts";
import { Entry } from "./entry.ts";
import { EntryTable } from "./entry-table.ts";
import { Interner } from "./intern.ts";
import { MinHeap } from "./min-heap.ts";
import type { Placement } from "./placement.ts";
import { retry } from "../core/retry.ts";
import type { Admission, Waiting } from "./admission.ts";
import { type JobQueue, queueOf } from "./job-queues.ts";
import { LINE_RECOVERY_MS, recoverLine, routesTo } from "./line-recovery.ts";
import { OwedGaps } from "./owed-gaps.ts";

/** One message to hand to the bus for one (monitor, location, due time). */
interface Outgoing {
  due: number;
  /** For the logs: the job (or unavailable result) id, its monitor and organisation. */
  jobId: string;
  monitorId: string;
  orgId: string;
  expiresAt: number;
  location: string;
  locationType: LocationType;
  send(): Promise<unknown>;
  kind: "job" | "unavailable";
  /** The unavailable result an `unavailable` item publishes. */
  result?: CheckResultMessage;
  reason?: string;
  /**
   * A job still runnable when enqueued: given up if it expires while queued here (publishing behind). A due time a new
   * leader replays (its backfill) is published anyway, expired already or expiring behind the rest of the replay, so
   * its worker records the gap.
   */
  shedIfExpired?: boolean;
  /** Taken off an admission line: settled there once handled, so the line's watermark moves on. */
  released?: Waiting;
}

/** Where the previous leader's line of one queue stood: every due check up to `releasedThrough` was published. */
export interface LineState {
  queue: JobQueue;
  releasedThrough: number;
}

export interface SchedulerOptions {
  bus: Bus;
  clock: Clock;
  log: Logger;
  placement: Placement;
  maintenance: MaintenanceGate;
  metrics?: SchedulerMetrics;
  /**
   * Backpressure per job queue (scheduler/admission.ts): when given, a job is published only while its queue (a
   * region's, a browser engine's of a region, a runner's) has room; the rest wait in line and the schedule slips evenly.
   */
  admission?: Admission;
  /** Checked before every round of publishing; false pauses publishing until it is true again. */
  isLeader(): boolean;
  /** Due times older than this are not published (after a pause or at takeover). */
  backfillMs: number;
  /** Publishes in flight at once. */
  publishConcurrency?: number;
  /**
   * New monitors (created, resumed, unsuspended) whose first check runs at once rather than at their
   * grid slot, per second; the rest of a burst (a bulk create or resume) keeps its grid slot, which the
   * id hash already spreads over the first interval. Default FIRST_CHECKS_PER_SECOND.
   */
  firstChecksPerSecond?: number;
  /**
   * Due checks are published on ticks of this many ms (0: each at its own due time). A check then starts up to a tick
   * late, the same amount at every due time of a monitor (its phase is fixed), so its interval is unchanged; in
   * return the checks due within a tick go out in one turn of the event loop, and a check thread wakes once for them
   * instead of once per check (docs/performance.md, "Cut: due checks published on ticks").
   */
  tickMs?: number;
  /**
   * Gaps kept while the bus is down (due checks it did not take before they expired, to be recorded unavailable once
   * it is back); past that a gap is given up unrecorded and counted dropped. Default MAX_OWED_GAPS.
   */
  maxOwedGaps?: number;
}

/** See SchedulerOptions.maxOwedGaps: about 20 MB at most, a minute's due checks at 100,000 monitors on a 20 s interval. */
const MAX_OWED_GAPS = 300_000;

/** One due check's gap, owed while the bus is down. */
interface Gap {
  due: number;
  result: CheckResultMessage;
  reason: string;
}

/** See SchedulerOptions.firstChecksPerSecond. */
const FIRST_CHECKS_PER_SECOND = 20;

/** At most one warning this often while due checks expire before they are published. */
const EXPIRED_WARN_MS = 10_000;

/** A grid slot this close is as good as at once: the first check keeps it instead of running twice. */
const FIRST_CHECK_SOON_MS = 2000;

/** Thrown inside the retry loop once stopped; one instance (an Error per publish cost a stack capture per check). */
const STOPPED = new Error("scheduler stopped");


/**
 * The in-memory schedule: a min-heap of each monitor's next due time and one timer for the
 * earliest. At a due time it publishes one job per location, or an `unavailable` result when
 * the location cannot run it, or nothing when a maintenance window pauses the monitor.
 */
export class Scheduler {
  private readonly entries = new EntryTable<Entry>();
  private readonly interned = new Interner();
  /** Every entry of a running schedule, at its next due time. */
  private readonly heap = new MinHeap<Entry>();
  private readonly queue: Outgoing[] = [];
  /** Due time → messages not yet confirmed by the bus; holds the watermark back. */
  private readonly inflight = new Map<number, number>();
  /** Due checks expired unpublished, and due checks whose first publish failed: a warn line per EXPIRED_WARN_MS each. */
  private readonly expiredLog: LogThrottle;
  private readonly failedLog: LogThrottle;
  /** Set by a publish the bus refused, cleared by one it took: a due check expiring meanwhile is a gap of its outage. */
  private busRefusing = false;
  private readonly gaps: OwedGaps<Gap>;
  /** Gaps recorded since the bus came back; gaps given up unrecorded, an error line per EXPIRED_WARN_MS. */
  private gapsRecorded = 0;
  private readonly droppedLog: LogThrottle;
  private readonly idleWaiters: (() => void)[] = [];
  private timer: unknown = null;
  private timerAt = Infinity;
  private running = false;
  private started = false;
  private startFrom = 0;
  /** When start() ran: due times up to it are the takeover's replay, never given up unrecorded. */
  private replayThrough = Number.NEGATIVE_INFINITY;
  private senders = 0;
  /** The second (ms) the immediate first checks are counted in, and how many it has had. */
  private firstWindow = 0;
  private firstInWindow = 0;
  private readonly regionQueues = new Map<string, JobQueue>();
  private readonly browserQueues = new Map<string, JobQueue>();
  private readonly runnerQueues = new Map<string, JobQueue>();

  constructor(private readonly o: SchedulerOptions) {
    if (o.admission) o.admission.onSample = () => this.releaseWaiting();
    const now = () => o.clock.now();
    this.expiredLog = new LogThrottle(EXPIRED_WARN_MS, now);
    this.failedLog = new LogThrottle(EXPIRED_WARN_MS, now);
    this.droppedLog = new LogThrottle(EXPIRED_WARN_MS, now);
    this.gaps = new OwedGaps<Gap>({
      clock: o.clock,
      limit: o.maxOwedGaps ?? MAX_OWED_GAPS,
      publish: (g) => o.bus.publishResult(resultSubject(g.result.org_id, g.result.monitor_id), g.result),
      recorded: (g) => this.gapRecorded(g),
      drained: () => this.o.log.info({ op: "scheduler.publish", gaps: this.gapsRecorded }, "recorded the gaps of a bus outage as unavailable"),
    });
  }

  get size(): number {
    return this.entries.size;
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  versionOf(id: string): number | undefined {
    return this.entries.get(id)?.version;
  }

  ids(): IterableIterator<string> {
    return this.entries.keys();
  }

  /** Calls `fn` with each monitor held and its version, without a lookup per id (the reconcile's digests). */
  eachVersion(fn: (id: string, version: number) => void): void {
    for (const e of this.entries.values()) fn(e.id, e.version);
  }

  /**
   * Adds or updates a monitor; a new interval takes effect from the next grid point of that interval.
   * A monitor new to a running schedule (created, resumed, unsuspended) is checked at once, within
   * the firstChecksPerSecond budget, then on its grid.
   */
  upsert(row: SchedulableRow): void {
    const intervalMs = row.interval_seconds * 1000;
    const existing = this.entries.get(row.id);
    // Held for every monitor until it changes: values many monitors repeat are kept once (see intern.ts).
    const profile = this.interned.profile({
      orgId: row.org_id,
      type: row.type,
      intervalMs,
      timeoutMs: row.timeout_ms,
      regions: row.regions,
      runnerIds: row.runner_ids,
      tags: row.tags,
    });
    const config = this.interned.config(row.config);
    if (existing && existing.intervalMs === intervalMs) {
      existing.profile = profile;
      existing.config = config;
      existing.secretsEnc = row.secrets_enc;
      existing.version = row.version;
      return;
    }
    const entry = new Entry(row.id, profile, config, row.secrets_enc, row.version, phaseOf(row.id, intervalMs));
    if (existing) this.heap.remove(existing);
    this.entries.set(entry);
    this.o.metrics?.monitors.set(this.entries.size);
    if (!this.started) return;
    const now = this.o.clock.now();
    const grid = dueAtOrAfter(now, entry.phase, intervalMs);
    this.place(entry, !existing && grid - now > FIRST_CHECK_SOON_MS && this.takeFirstCheck(now) ? now : grid);
  }

  /** One immediate first check from this second's budget, if any is left. */
  private takeFirstCheck(now: number): boolean {
    const second = Math.floor(now / 1000);
    if (second !== this.firstWindow) {
      this.firstWindow = second;
      this.firstInWindow = 0;
    }
    if (this.firstInWindow >= (this.o.firstChecksPerSecond ?? FIRST_CHECKS_PER_SECOND)) return false;
    this.firstInWindow++;
    return true;
  }

  /** Stops scheduling a monitor (deleted, paused, suspended). */
  remove(id: string): void {
    const e = this.entries.get(id);
    if (!e) return;
    this.entries.delete(id);
    this.heap.remove(e);
    this.o.metrics?.monitors.set(this.entries.size);
  }

  /**
   * Starts firing. Due times after `fromMs` are published, so a new leader picks up where
   * the last one's watermark stopped (bounded by backfillMs); null starts from now. `lines`: where the
   * last leader's admission lines stood; the checks still waiting in them are put back in line first.
   */
  start(fromMs: number | null, lines: readonly LineState[] = []): void {
    const now = this.o.clock.now();
    // A watermark far ahead of this clock comes from a badly skewed host: start from now instead.
    const trusted = fromMs !== null && fromMs <= now + this.o.backfillMs;
    const from = trusted ? Math.max(fromMs!, now - this.o.backfillMs) : now - 1;
    this.startFrom = from;
    this.replayThrough = now;
    this.started = true;
    this.running = true;
    if (trusted && this.o.admission) {
      const floor = now - Math.max(this.o.backfillMs, LINE_RECOVERY_MS);
      for (const { queue, releasedThrough } of lines) {
        const line = recoverLine(this.entries.values(), queue, Math.max(releasedThrough, floor), from);
        this.o.admission.seed(queue, line);
        if (line.length > 0) this.o.log.info({ op: "scheduler.start", queue: queue.subject, waiting: line.length }, "took over the last leader's line of due checks");
      }
    }
    for (const e of this.entries.values()) this.place(e, dueAfter(from, e.phase, e.intervalMs), false);
    this.arm();
  }

  /** Stops at once: no further publish starts; publishes already handed to the bus may still land. */
  stop(): void {
    this.running = false;
    if (this.timer !== null) this.o.clock.clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = Infinity;
    this.queue.length = 0;
    this.heap.clear();
    // Gaps still owed stay unrecorded here: the watermark was held before them, so a successor replays them.
    this.gaps.stop();
  }

  /** Every due time up to this instant has been handled (published, recorded unavailable, skipped or given up). */
  handledThrough(): number | null {
    if (!this.started) return null;
    let w = this.o.clock.now();
    for (const [due, n] of this.inflight) if (n > 0 && due - 1 < w) w = due - 1;
    const top = this.peekLive();
    if (top && top.due - 1 < w) w = top.due - 1;
    return Math.max(w, this.startFrom);
  }

  /** Resolves when nothing is queued or being published. */
  idle(): Promise<void> {
    if (this.queue.length === 0 && this.senders === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Puts the entry in the heap at `due` (moved there if it is in already). */
  private place(e: Entry, due: number, rearm = true): void {
    this.heap.set(e, due);
    if (rearm && this.running && due < this.timerAt) this.arm();
  }

  /** The entry due first: the heap holds only current entries (replaced and removed ones are taken out). */
  private peekLive(): Entry | undefined {
    return this.heap.peek();
  }

  private arm(): void {
    if (!this.running) return;
    const top = this.peekLive();
    if (this.timer !== null) this.o.clock.clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = Infinity;
    if (!top) return;
    const tick = this.o.tickMs ?? 0;
    this.timerAt = tick > 0 ? Math.ceil(top.due / tick) * tick : top.due;
    this.timer = this.o.clock.setTimeout(() => this.fire(), Math.max(0, this.timerAt - this.o.clock.now()));
  }

  private fire(): void {
    this.timer = null;
    this.timerAt = Infinity;
    if (!this.running) return;
    if (!this.o.isLeader()) {
      // Leadership not confirmed lately: hold the due checks until it is (or until stop()).
      this.timerAt = this.o.clock.now() + 200;
      this.timer = this.o.clock.setTimeout(() => this.fire(), 200);
      return;
    }
    const now = this.o.clock.now();
    const floor = now - this.o.backfillMs;
    for (let e = this.peekLive(); e && e.due <= now; e = this.peekLive()) {
      const due = e.due;
      this.plan(e, due, now);
      // Back on the grid after an immediate first check; after a long stall, skip what is older than the backfill window.
      const next = dueAfter(due, e.phase, e.intervalMs);
      this.place(e, next >= floor ? next : dueAtOrAfter(floor, e.phase, e.intervalMs), false);
    }
    this.pump();
    this.arm();
  }

  /** Builds the messages for one due check of one monitor. */
  private plan(e: Entry, due: number, now: number): void {
    if (this.o.maintenance.isPaused(e, due)) {
      this.o.metrics?.skipped.inc();
      return;
    }
    if (e.regions.length + e.runnerIds.length === 0 && e.type !== "heartbeat") {
      // Nowhere to run (its runners were revoked): a gap in monitoring to record, not a silence.
      const expiresAt = expiryOf(due, e.intervalMs);
      const base = { org_id: e.orgId, monitor_id: e.id, due_at: due, expires_at: expiresAt };
      const result = unavailableResult({ ...base, id: jobId(e.id, NOWHERE_LOCATION, due), location: NOWHERE_LOCATION, location_type: "region" }, "no region or runner to run on (its runners were revoked)", now);
      this.enqueue({
        due,
        expiresAt,
        location: NOWHERE_LOCATION,
        locationType: "region",
        jobId: result.id,
        monitorId: e.id,
        orgId: e.orgId,
        kind: "unavailable",
        result,
        reason: "no_location",
        send: () => this.o.bus.publishResult(resultSubject(e.orgId, e.id), result),
      });
      return;
    }
    for (const region of e.regions) this.planAt(e, due, now, "region", region);
    for (const runner of e.runnerIds) this.planAt(e, due, now, "runner", runner);
  }

  /**
   * One location of one due check: its job, an `unavailable` result when the location cannot run it, or
   * nothing yet when its queue is full (admission keeps it in line). `released`: it waited in that line,
   * so it expires a full expiry after now rather than after its due time.
   */
  private planAt(e: Entry, due: number, now: number, locationType: LocationType, location: string, released?: Waiting): void {
    const admitted = released !== undefined;
    const engine = browserEngineOf(e.type, e.config);
    const id = jobId(e.id, location, due);
    const ownExpiry = locationType === "runner" ? this.runnerJobExpiry(due, e.intervalMs) : expiryOf(due, e.intervalMs);
    const expiresAt = admitted ? Math.max(ownExpiry, expiryOf(now, e.intervalMs)) : ownExpiry;
    const base = { org_id: e.orgId, monitor_id: e.id, due_at: due, expires_at: expiresAt };
    const online = locationType === "region" ? this.o.placement.regionOnline(location) : this.o.placement.runnerOnline(location);
    // A browser check needs a location offering its engine; without one it is a gap (monitoring_unavailable), not downtime.
    const engines = engine === null || !online ? null : locationType === "region" ? this.o.placement.regionEngines?.(location) : this.o.placement.runnerEngines?.(location);
    const browserless = engine !== null && online && !engines?.has(engine);
    if (!online || browserless) {
      const reason = browserless
        ? locationType === "region"
          ? `no worker with a ${engine} browser online in region ${location}`
          : `runner has no ${engine} browser (its BROWSERS setting)`
        : locationType === "region"
          ? `no worker online in region ${location}`
          : "runner offline";
      const metric = browserless ? "no_browser" : locationType === "region" ? "region_offline" : "runner_offline";
      const result: CheckResultMessage = unavailableResult({ ...base, id, location, location_type: locationType }, reason, now);
      this.enqueue({
        due,
        expiresAt,
        location,
        locationType,
        jobId: id,
        monitorId: e.id,
        orgId: e.orgId,
        kind: "unavailable",
        result,
        reason: metric,
        released,
        send: () => this.o.bus.publishResult(resultSubject(e.orgId, e.id), result),
      });
      return;
    }
    // Every queue (a region's, a browser engine's, a runner's) goes through its backpressure (docs/scheduling.md).
    const queue = this.queueAt(locationType, location, engine);
    // A due time replayed already expired (a new leader's backfill) only records its gap: it goes past the backpressure,
    // where a later due time of the same monitor would be merged into it and leave it unrecorded.
    if (!admitted && expiresAt > now && this.o.admission && !this.o.admission.offer(queue, e.id, due)) return;
    const job = buildCheckJob(
      { id: e.id, org_id: e.orgId, type: e.type, config: e.config, secrets_enc: e.secretsEnc, timeout_ms: e.timeoutMs },
      { id, location, location_type: locationType, due_at: due, expires_at: expiresAt, ...(locationType === "runner" ? { life_ms: expiryOf(due, e.intervalMs) - due } : {}) },
    );
    this.enqueue({ due, expiresAt, location, locationType, jobId: id, monitorId: e.id, orgId: e.orgId, kind: "job", released, send: () => this.o.bus.publishJob(queue.subject, job) });
  }

  /**
   * A runner's job lives as long as any job, counted only on time its runner could have been heard: a runner reaches
   * its jobs through the API, so a due time of an outage of the service (a restart's backfill) is not spent before the
   * runner could claim it (docs/runners.md).
   */
  private runnerJobExpiry(due: number, intervalMs: number): number {
    const life = expiryOf(due, intervalMs) - due;
    return this.o.placement.runnerJobExpiry?.(due, life) ?? due + life;
  }

  /** One descriptor per queue, kept: the hot path allocates none per check. */
  private queueAt(locationType: LocationType, location: string, engine: string | null): JobQueue {
    const byLocation = locationType === "runner" ? this.runnerQueues : engine === null ? this.regionQueues : this.browserQueues;
    const key = engine === null ? location : `${location}.${engine}`;
    let q = byLocation.get(key);
    if (!q) byLocation.set(key, (q = queueOf(locationType, location, engine)));
    return q;
  }

  /** Publishes the due checks kept back that their queues have room for now (after each admission sample). */
  private releaseWaiting(): void {
    const admission = this.o.admission;
    if (!admission || !this.running || !this.o.isLeader()) return;
    const now = this.o.clock.now();
    for (const w of admission.releasable()) {
      const e = this.entries.get(w.monitorId);
      // Removed, moved to other locations or paused by a maintenance window while it waited: nothing to publish.
      if (!e || !routesTo(e, w.queue) || this.o.maintenance.isPaused(e, w.due)) {
        admission.settle(w);
        continue;
      }
      this.planAt(e, w.due, now, w.queue.kind === "runner" ? "runner" : "region", w.queue.location, w);
    }
    this.pump();
  }

  private enqueue(item: Outgoing): void {
    // Planned now: a job that can still run now is given up if it expires before its turn to be published, unless it is
    // part of the takeover's replay (a burst the successor owes; its gap is recorded by the worker instead).
    if (item.kind === "job") item.shedIfExpired = item.expiresAt > this.o.clock.now() && item.due > this.replayThrough;
    this.queue.push(item);
    this.inflight.set(item.due, (this.inflight.get(item.due) ?? 0) + 1);
  }

  private pump(): void {
    const limit = this.o.publishConcurrency ?? 64;
    while (this.senders < limit && this.queue.length > 0) {
      this.senders++;
      void this.sendLoop();
    }
  }

  private async sendLoop(): Promise<void> {
    try {
      for (let item = this.queue.shift(); item; item = this.running ? this.queue.shift() : undefined) {
        await this.deliver(item);
        if (item.released) this.o.admission?.settle(item.released);
        this.release(item.due);
      }
    } finally {
      this.senders--;
      if (this.senders === 0 && (this.queue.length === 0 || !this.running)) {
        if (!this.running) this.inflight.clear();
        for (const wake of this.idleWaiters.splice(0)) wake();
      }
    }
  }

  /** Counts one message of this due time as handled: it no longer holds the watermark back. */
  private release(due: number): void {
    const left = (this.inflight.get(due) ?? 1) - 1;
    if (left > 0) this.inflight.set(due, left);
    else this.inflight.delete(due);
  }

  /**
   * Publishes with retries (core/retry) until the job would have expired anyway; a due check the bus did not take
   * by then is a gap of the bus's outage, recorded unavailable once the bus is back (oweGap).
   */
  private async deliver(item: Outgoing): Promise<void> {
    if (item.shedIfExpired && this.o.clock.now() >= item.expiresAt) {
      // The bus refusing messages: a gap of its outage. Otherwise publishing fell behind by more than the job's life:
      // a worker could only record it unavailable, at the full cost of a result, which deepens the overload it comes
      // from. Given up here, counted and warned about instead.
      if (this.busRefusing) this.oweGap(item);
      else this.expiredUnsent(item);
      return;
    }
    if (!this.running) return;
    // The first attempt outside the retry loop: nearly every publish succeeds, and this runs for every check.
    try {
      await item.send();
    } catch (err) {
      this.busRefusing = true;
      if (!(await this.retryDeliver(item, err))) return;
    }
    this.busRefusing = false;
    const m = this.o.metrics;
    if (item.kind === "job") {
      m?.jobs.inc({ location_type: item.locationType });
      m?.lag.observe(Math.max(0, this.o.clock.now() - item.due) / 1000);
    } else m?.unavailable.inc({ reason: item.reason ?? "unknown" });
  }

  /** After the first attempt failed with `first`: true once the bus took the message, false when given up. */
  private async retryDeliver(item: Outgoing, first: unknown): Promise<boolean> {
    const stopped = STOPPED;
    const expired = () => this.o.clock.now() >= item.expiresAt;
    try {
      await retry(
        async (attempt) => {
          if (attempt === 1) throw first;
          if (!this.running) throw stopped;
          await item.send();
        },
        {
          attempts: Number.POSITIVE_INFINITY,
          baseMs: 100,
          maxMs: 2000,
          jitter: false,
          sleep: (ms) => new Promise<void>((resolve) => this.o.clock.setTimeout(resolve, ms)),
          isPermanent: (err) => err === stopped || expired(),
          onFailure: (err, attempt) => {
            if (err === stopped) return;
            this.o.metrics?.publishErrors.inc();
            if (attempt === 1 && !expired()) this.publishFailed(item, err);
          },
        },
      );
      return true;
    } catch (err) {
      if (err !== stopped) this.oweGap(item);
      return false;
    }
  }

  /**
   * A due check the bus did not take before it expired: its gap, an `unavailable` result, goes out once the bus takes
   * messages again, and holds the watermark until then (a successor replays it). One warn line when an outage's
   * first gap is owed and one info line when its gaps are recorded; past maxOwedGaps a gap is dropped unrecorded.
   */
  private oweGap(item: Outgoing): void {
    if (!this.running) return;
    const now = this.o.clock.now();
    const result =
      item.result ??
      unavailableResult(
        { id: item.jobId, org_id: item.orgId, monitor_id: item.monitorId, location: item.location, location_type: item.locationType, due_at: item.due },
        `the message bus did not take the check before it expired (due ${new Date(item.due).toISOString()})`,
        now,
      );
    const first = this.gaps.size === 0;
    if (this.gaps.owe({ due: item.due, result, reason: item.kind === "job" ? "bus_outage" : (item.reason ?? "unknown") })) {
      this.inflight.set(item.due, (this.inflight.get(item.due) ?? 0) + 1);
      if (first) {
        this.gapsRecorded = 0;
        this.o.log.warn(
          { op: "scheduler.publish", due: item.due, jobId: item.jobId, monitorId: item.monitorId, orgId: item.orgId },
          "the message bus did not take due checks before they expired; their gaps are recorded unavailable once it takes messages again",
        );
      }
      return;
    }
    this.o.metrics?.dropped.inc();
    const dropped = this.droppedLog.hit();
    if (dropped === null) return;
    this.o.log.error(
      { op: "scheduler.publish", dropped, owed: this.gaps.size, due: item.due },
      "the message bus has been down too long: due checks were given up and their gaps not recorded",
    );
  }

  private gapRecorded(g: Gap): void {
    this.release(g.due);
    this.o.metrics?.unavailable.inc({ reason: g.reason });
    this.gapsRecorded++;
  }

  /**
   * A due check's first publish failed (it is retried): a warn line at once, then at most one per EXPIRED_WARN_MS with
   * how many failed meanwhile, so a bus outage is not a line per due check. The line names the latest check.
   */
  private publishFailed(item: Outgoing, err: unknown): void {
    const failed = this.failedLog.hit();
    if (failed === null) return;
    this.o.log.warn({ op: "scheduler.publish", err, failed, jobId: item.jobId, monitorId: item.monitorId, orgId: item.orgId }, "publish failed; retrying");
  }

  /** One warn line per EXPIRED_WARN_MS while due checks expire unpublished (not one per check), with how many. */
  private expiredUnsent(item: Outgoing): void {
    this.o.metrics?.dropped.inc();
    const expired = this.expiredLog.hit();
    if (expired === null) return;
    this.o.log.warn(
      { op: "scheduler.publish", expired, behindMs: this.o.clock.now() - item.due, queued: this.queue.length },
      "publishing is behind: due checks expired before they could be published and were given up",
    );
  }
}
