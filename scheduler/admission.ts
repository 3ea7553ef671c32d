import type { Bus } from "../core/bus/index.ts";
import type { Clock } from "../core/clock.ts";
import type { Logger } from "../core/log.ts";
import type { JobQueue } from "./job-queues.ts";
import type { SchedulerMetrics } from "./metrics.ts";
import { OverloadWatch } from "./overload-watch.ts";

/** A due check kept back because its queue was full: at most one per (monitor, queue). */
export interface Waiting {
  monitorId: string;
  queue: JobQueue;
  /** The first due time it stood for (its place in the line). */
  firstDue: number;
  /** The latest due time merged into it: the one published. */
  due: number;
}

/** What the scheduler knows of one queue's load (metrics, the warn line, GET /regions, the runner's status). */
export interface QueueLoad {
  queue: JobQueue;
  /** Since when due checks have been kept back (ms since the epoch); null while the queue keeps up. */
  overloadedSince: number | null;
  /** How long the oldest due check kept back has waited. */
  lagSeconds: number;
  waiting: number;
  /** Jobs in the queue at the last sample (waiting and running). */
  queued: number;
  limit: number;
  drainPerSecond: number;
  /**
   * Every due check of this queue up to this time has been published (confirmed by the bus); later ones up to
   * the schedule's watermark still wait in line. Null while nothing waits. A new leader rebuilds the line from it.
   */
  releasedThrough: number | null;
}

export interface AdmissionOptions {
  bus: Bus;
  /** The schedule's clock: due times and lag. The sampler itself runs on wall time (it measures the bus). */
  clock: Clock;
  log: Logger;
  metrics?: SchedulerMetrics;
  /** Seconds of work a queue may hold beyond the checks its consumers run at once. */
  queueSeconds: number;
  /** Checks the queue's consumers run at once (a region's workers' CONCURRENCY, a runner's, or a lower bound). */
  concurrencyOf(queue: JobQueue): number;
  /** Result durables whose backlog holds publishing back too (the all-in-one's in-process ingest). */
  resultDurables?: readonly string[];
  sampleMs?: number;
  /** What the drain is measured against; default performance.now (tests drive it with the schedule's clock). */
  sampleClock?: () => number;
}

/** Waiting jobs a queue may hold before its drain is measured (start-up). */
const FLOOR = 20;
/** ...and once it is: a slow queue (long checks, few consumers) must not queue more than its jobs' expiry allows. */
const MIN_WAITING = 5;
/** Results a watched durable may always hold. */
const RESULTS_FLOOR = 2000;
/** A queue idle this long is forgotten (its gauges go back to 0). */
const IDLE_MS = 120_000;
/**
 * A runner's queue is read at most this often (a region's at every sample): on NATS each read is a request to the
 * server, and a hosted deployment may have many runners. Its limit holds seconds of work, so this is soon enough.
 */
const RUNNER_SAMPLE_MS = 1000;
/** Seconds of a queue's drain waiting beyond what its consumers run at once: checks start late (checksWaiting). */
const WAITING_SECONDS = 0.25;
/** Weight of the newest drain sample in the moving average. */
const ALPHA = 0.3;

interface Gate {
  queue: JobQueue;
  queued: number;
  /** Jobs handed to the bus since the last sample was requested. */
  taken: number;
  credit: number;
  drain: number;
  limit: number;
  sampledAt: number;
  usedAt: number;
  /** Insertion order is the line: the oldest due check first. */
  waiting: Map<string, Waiting>;
  /** Taken off the line, not yet confirmed by the bus: still counted as waiting for the line's watermark. */
  releasing: Set<Waiting>;
  watch: OverloadWatch;
}

const describe = (q: JobQueue): { what: string; fields: Record<string, unknown> } =>
  q.kind === "runner"
    ? { what: `runner ${q.location}`, fields: { runnerId: q.location } }
    : q.kind === "browser"
      ? { what: `the ${q.engine} browsers of region ${q.location}`, fields: { region: q.location, engine: q.engine } }
      : { what: `region ${q.location}`, fields: { region: q.location } };

/** Prometheus labels of a region's queues; runner queues are counted together (one series per runner would not scale). */
const labelsOf = (q: JobQueue) => (q.kind === "browser" ? { region: q.location, engine: q.engine! } : { region: q.location });

/**
 * Backpressure between the scheduler and the consumers of each job queue: a region's workers (standard checks,
 * `jobs.region.<r>`), the workers offering one browser engine (`jobs.region.<r>.<engine>`), one self-hosted
 * runner (`jobs.runner.<id>`). A queue may hold the checks its consumers run at once plus `queueSeconds` of its
 * measured drain; past that, due checks wait here in line (one per monitor: a later due time of a monitor still
 * waiting merges into it) and are published oldest first as the queue drains. So past capacity the consumers
 * stay busy, no job waits long enough in the queue to expire, and the schedule slips evenly: every monitor is
 * still checked, less often. Works on any Bus (it reads only pendingJobs and pendingResults).
 */
export class Admission {
  private readonly gates = new Map<string, Gate>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private sampling = false;
  private resultsBehind = false;
  /** Called after every sample, when credit may have come back. */
  onSample: () => void = () => {};

  private readonly wall: () => number;

  constructor(private readonly o: AdmissionOptions) {
    this.wall = o.sampleClock ?? (() => performance.now());
  }

  start(): void {
    const loop = () => {
      this.timer = setTimeout(() => void this.sample().finally(() => this.timer !== null && loop()), this.o.sampleMs ?? 250);
    };
    loop();
  }

  stop(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    for (const g of this.gates.values()) this.forget(g, true);
    this.gates.clear();
  }

  /** True: publish now (one unit of the queue's credit taken). False: the check waits in line. */
  offer(queue: JobQueue, monitorId: string, due: number): boolean {
    const g = this.gate(queue);
    g.usedAt = Date.now();
    if (g.waiting.size === 0 && g.credit > 0 && !this.resultsBehind) {
      g.credit--;
      g.taken++;
      return true;
    }
    const w = g.waiting.get(monitorId);
    if (w) {
      // Still in line from an earlier due time: the monitor is checked once, for the latest one.
      w.due = Math.max(w.due, due);
      this.slipped(g);
    } else g.waiting.set(monitorId, { monitorId, queue: g.queue, firstDue: due, due });
    return false;
  }

  /**
   * A line taken over from the previous leader (oldest first), ahead of anything this leader puts in line: each
   * check that waited there keeps its place instead of starting over behind the ones due after it.
   */
  seed(queue: JobQueue, line: readonly { monitorId: string; firstDue: number; due: number }[]): void {
    if (line.length === 0) return;
    const g = this.gate(queue);
    for (const w of line) {
      const had = g.waiting.get(w.monitorId);
      if (had) had.due = Math.max(had.due, w.due);
      else g.waiting.set(w.monitorId, { monitorId: w.monitorId, queue: g.queue, firstDue: w.firstDue, due: w.due });
    }
  }

  /**
   * Due checks the queues have room for now, oldest first; each one yielded is taken off the line and must be
   * handed back to `settle` once the bus has it (or it was given up).
   */
  *releasable(): Generator<Waiting> {
    if (this.resultsBehind) return;
    for (const g of this.gates.values()) {
      for (const w of g.waiting.values()) {
        if (g.credit <= 0) break;
        g.waiting.delete(w.monitorId);
        g.releasing.add(w);
        g.credit--;
        g.taken++;
        yield w;
      }
    }
  }

  /** A released check is on the bus (or was dropped): it no longer holds its line's watermark back. */
  settle(w: Waiting): void {
    this.gates.get(w.queue.subject)?.releasing.delete(w);
  }

  /**
   * Whether checks wait to start now, by the last sample: a region's queue (standard or browser; runners check
   * elsewhere) keeps due checks back, or holds more jobs than its consumers run at once plus a quarter of a
   * second of its drain. Deferrable work sharing the machine with the checks yields meanwhile (the rollup
   * closer's parts in the all-in-one: docs/performance.md).
   */
  checksWaiting(): boolean {
    for (const g of this.gates.values()) {
      if (g.queue.kind === "runner") continue;
      if (g.waiting.size > 0 || g.queued > this.o.concurrencyOf(g.queue) + g.drain * WAITING_SECONDS) return true;
    }
    return false;
  }

  loads(): QueueLoad[] {
    return [...this.gates.values()].map((g) => ({
      queue: g.queue,
      overloadedSince: g.watch.since,
      lagSeconds: this.lagMs(g) / 1000,
      waiting: g.waiting.size,
      queued: g.queued,
      limit: g.limit,
      drainPerSecond: g.drain,
      releasedThrough: this.releasedThrough(g),
    }));
  }

  private releasedThrough(g: Gate): number | null {
    let oldest = Number.POSITIVE_INFINITY;
    const first = g.waiting.values().next();
    if (!first.done) oldest = first.value.firstDue;
    for (const w of g.releasing) if (w.firstDue < oldest) oldest = w.firstDue;
    return oldest === Number.POSITIVE_INFINITY ? null : oldest - 1;
  }

  private slipped(g: Gate): void {
    g.watch.slipped++;
    if (g.queue.kind !== "runner") this.o.metrics?.slipped.inc(labelsOf(g.queue));
  }

  private gate(queue: JobQueue): Gate {
    let g = this.gates.get(queue.subject);
    if (!g) {
      const limit = this.o.concurrencyOf(queue) + FLOOR;
      const { what, fields } = describe(queue);
      g = {
        queue,
        queued: 0,
        taken: 0,
        credit: limit,
        drain: 0,
        limit,
        sampledAt: this.wall(),
        usedAt: Date.now(),
        waiting: new Map(),
        releasing: new Set(),
        watch: new OverloadWatch(what, fields, this.o.log),
      };
      this.gates.set(queue.subject, g);
    }
    return g;
  }

  private lagMs(g: Gate): number {
    const first = g.waiting.values().next();
    return first.done ? 0 : Math.max(0, this.o.clock.now() - first.value.firstDue);
  }

  /** One round: every queue's depth and drain, its credit until the next round, then the lines move. */
  async sample(): Promise<void> {
    if (this.sampling) return;
    this.sampling = true;
    try {
      let results = 0;
      // The durable furthest behind: the in-process bus keeps a result until every durable has settled it.
      for (const d of this.o.resultDurables ?? []) results = Math.max(results, await this.o.bus.pendingResults(d).catch(() => 0));
      let totalDrain = 0;
      for (const g of [...this.gates.values()]) {
        if (g.waiting.size === 0 && g.releasing.size === 0 && g.queued === 0 && Date.now() - g.usedAt > IDLE_MS) {
          this.forget(g);
          this.gates.delete(g.queue.subject);
          continue;
        }
        if (g.queue.kind !== "runner" || this.wall() - g.sampledAt >= RUNNER_SAMPLE_MS) await this.measure(g);
        totalDrain += g.drain;
      }
      // In-process ingest behind by more than queueSeconds of the consumers' output: hold every queue back.
      this.resultsBehind = results > Math.max(RESULTS_FLOOR, totalDrain * this.o.queueSeconds);
      this.onSample();
      const now = this.o.clock.now();
      let runnersOverloaded = 0;
      let runnersWaiting = 0;
      for (const g of this.gates.values()) {
        const lagMs = this.lagMs(g);
        g.watch.update(now, g.waiting.size, lagMs, { queued: g.queued, limit: g.limit, drainPerSecond: Math.round(g.drain), resultsBehind: this.resultsBehind });
        const m = this.o.metrics;
        if (g.queue.kind === "runner") {
          if (g.watch.since !== null) runnersOverloaded++;
          runnersWaiting += g.waiting.size;
          continue;
        }
        const labels = labelsOf(g.queue);
        m?.overloaded.set(labels, g.watch.since === null ? 0 : 1);
        m?.scheduleLag.set(labels, lagMs / 1000);
        m?.waiting.set(labels, g.waiting.size);
        m?.queued.set(labels, g.queued);
      }
      this.o.metrics?.runnersOverloaded.set(runnersOverloaded);
      this.o.metrics?.runnerWaiting.set(runnersWaiting);
    } finally {
      this.sampling = false;
    }
  }

  private async measure(g: Gate): Promise<void> {
    const taken = g.taken;
    g.taken = 0;
    const at = this.wall();
    let queued: number;
    try {
      queued = await this.o.bus.pendingJobs(g.queue.subject);
    } catch {
      // The queue could not be read: publish nothing more until it can.
      g.taken += taken;
      g.credit = 0;
      return;
    }
    const seconds = (at - g.sampledAt) / 1000;
    g.sampledAt = at;
    if (seconds > 0) {
      const drained = Math.max(0, g.queued + taken - queued) / seconds;
      g.drain = g.drain === 0 ? drained : g.drain * (1 - ALPHA) + drained * ALPHA;
    }
    g.queued = queued;
    g.limit = this.o.concurrencyOf(g.queue) + (g.drain > 0 ? Math.max(MIN_WAITING, Math.ceil(g.drain * this.o.queueSeconds)) : FLOOR);
    // Jobs taken while the depth was being read are already on their way into the queue.
    g.credit = Math.max(0, g.limit - queued - g.taken);
  }

  private forget(g: Gate, stopping = false): void {
    g.watch.end(this.o.clock.now(), stopping);
    if (g.queue.kind === "runner") return;
    const labels = labelsOf(g.queue);
    for (const gauge of [this.o.metrics?.overloaded, this.o.metrics?.scheduleLag, this.o.metrics?.waiting, this.o.metrics?.queued]) gauge?.remove(labels);
  }
}
