import type { Bus } from "../core/bus/index.ts";
import type { Clock } from "../core/clock.ts";
import type { Logger } from "../core/log.ts";
import { regionSubject } from "../schemas/messages/check-messages.ts";
import type { SchedulerMetrics } from "./metrics.ts";
import { OverloadWatch } from "./overload-watch.ts";

/** A due check kept back because its region's queue was full: at most one per (monitor, region). */
export interface Waiting {
  monitorId: string;
  region: string;
  /** The first due time it stood for (its place in the line). */
  firstDue: number;
  /** The latest due time merged into it: the one published. */
  due: number;
}

/** What the scheduler knows of one region's load (metrics, the warn line, GET /regions). */
export interface RegionLoad {
  region: string;
  /** Since when due checks have been kept back (ms since the epoch); null while the region keeps up. */
  overloadedSince: number | null;
  /** How long the oldest due check kept back has waited. */
  lagSeconds: number;
  waiting: number;
  /** Jobs in the region's queue at the last sample (waiting and running). */
  queued: number;
  limit: number;
  drainPerSecond: number;
}

export interface AdmissionOptions {
  bus: Bus;
  /** The schedule's clock: due times and lag. The sampler itself runs on wall time (it measures the bus). */
  clock: Clock;
  log: Logger;
  metrics?: SchedulerMetrics;
  /** Seconds of work a region's queue may hold beyond the checks its workers run at once. */
  queueSeconds: number;
  /** Checks the region's online workers run at once (the sum of their CONCURRENCY). */
  concurrencyOf(region: string): number;
  /** Result durables whose backlog holds publishing back too (the all-in-one's in-process ingest). */
  resultDurables?: readonly string[];
  sampleMs?: number;
}

/** Waiting jobs a queue may hold before its drain is measured (start-up). */
const FLOOR = 20;
/** ...and once it is: a slow region (long checks, few workers) must not queue more than its jobs' expiry allows. */
const MIN_WAITING = 5;
/** Results a watched durable may always hold. */
const RESULTS_FLOOR = 2000;
/** A region idle this long is forgotten (its gauges go back to 0). */
const IDLE_MS = 120_000;
/** Weight of the newest drain sample in the moving average. */
const ALPHA = 0.3;

interface Gate {
  region: string;
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
  watch: OverloadWatch;
}

/**
 * Backpressure between the scheduler and the workers of each region (standard checks, `jobs.region.<r>`).
 * A region's queue may hold the checks its workers run at once plus `queueSeconds` of its measured drain;
 * past that, due checks wait here in line (one per monitor: a later due time of a monitor still waiting
 * merges into it) and are published oldest first as the queue drains. So past capacity the workers stay
 * busy, no job waits long enough in the queue to expire, and the schedule slips evenly: every monitor is
 * still checked, less often. Works on any Bus (it reads only pendingJobs and pendingResults).
 */
export class Admission {
  private readonly gates = new Map<string, Gate>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private sampling = false;
  private resultsBehind = false;
  /** Called after every sample, when credit may have come back. */
  onSample: () => void = () => {};

  constructor(private readonly o: AdmissionOptions) {}

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

  /** True: publish now (one unit of the region's credit taken). False: the check waits in line. */
  offer(region: string, monitorId: string, due: number): boolean {
    const g = this.gate(region);
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
      this.o.metrics?.slipped.inc({ region });
      g.watch.slipped++;
    } else g.waiting.set(monitorId, { monitorId, region, firstDue: due, due });
    return false;
  }

  /** Due checks the regions' queues have room for now, oldest first; each one yielded is taken off the line. */
  *releasable(): Generator<Waiting> {
    if (this.resultsBehind) return;
    for (const g of this.gates.values()) {
      for (const w of g.waiting.values()) {
        if (g.credit <= 0) break;
        g.waiting.delete(w.monitorId);
        g.credit--;
        g.taken++;
        yield w;
      }
    }
  }

  loads(): RegionLoad[] {
    return [...this.gates.values()].map((g) => ({
      region: g.region,
      overloadedSince: g.watch.since,
      lagSeconds: this.lagMs(g) / 1000,
      waiting: g.waiting.size,
      queued: g.queued,
      limit: g.limit,
      drainPerSecond: g.drain,
    }));
  }

  private gate(region: string): Gate {
    let g = this.gates.get(region);
    if (!g) {
      const limit = this.o.concurrencyOf(region) + FLOOR;
      g = { region, queued: 0, taken: 0, credit: limit, drain: 0, limit, sampledAt: performance.now(), usedAt: Date.now(), waiting: new Map(), watch: new OverloadWatch(region, this.o.log) };
      this.gates.set(region, g);
    }
    return g;
  }

  private lagMs(g: Gate): number {
    const first = g.waiting.values().next();
    return first.done ? 0 : Math.max(0, this.o.clock.now() - first.value.firstDue);
  }

  /** One round: every region's queue depth and drain, its credit until the next round, then the lines move. */
  async sample(): Promise<void> {
    if (this.sampling) return;
    this.sampling = true;
    try {
      let results = 0;
      // The durable furthest behind: the in-process bus keeps a result until every durable has settled it.
      for (const d of this.o.resultDurables ?? []) results = Math.max(results, await this.o.bus.pendingResults(d).catch(() => 0));
      let totalDrain = 0;
      for (const g of [...this.gates.values()]) {
        if (g.waiting.size === 0 && g.queued === 0 && Date.now() - g.usedAt > IDLE_MS) {
          this.forget(g);
          this.gates.delete(g.region);
          continue;
        }
        await this.measure(g);
        totalDrain += g.drain;
      }
      // In-process ingest behind by more than queueSeconds of the workers' output: hold every region back.
      this.resultsBehind = results > Math.max(RESULTS_FLOOR, totalDrain * this.o.queueSeconds);
      this.onSample();
      const now = this.o.clock.now();
      for (const g of this.gates.values()) {
        const lagMs = this.lagMs(g);
        g.watch.update(now, g.waiting.size, lagMs, { queued: g.queued, limit: g.limit, drainPerSecond: Math.round(g.drain), resultsBehind: this.resultsBehind });
        const m = this.o.metrics;
        m?.overloaded.set({ region: g.region }, g.watch.since === null ? 0 : 1);
        m?.scheduleLag.set({ region: g.region }, lagMs / 1000);
        m?.waiting.set({ region: g.region }, g.waiting.size);
        m?.queued.set({ region: g.region }, g.queued);
      }
    } finally {
      this.sampling = false;
    }
  }

  private async measure(g: Gate): Promise<void> {
    const taken = g.taken;
    g.taken = 0;
    const at = performance.now();
    let queued: number;
    try {
      queued = await this.o.bus.pendingJobs(regionSubject(g.region));
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
    g.limit = this.o.concurrencyOf(g.region) + (g.drain > 0 ? Math.max(MIN_WAITING, Math.ceil(g.drain * this.o.queueSeconds)) : FLOOR);
    // Jobs taken while the depth was being read are already on their way into the queue.
    g.credit = Math.max(0, g.limit - queued - g.taken);
  }

  private forget(g: Gate, stopping = false): void {
    g.watch.end(this.o.clock.now(), stopping);
    for (const gauge of [this.o.metrics?.overloaded, this.o.metrics?.scheduleLag, this.o.metrics?.waiting, this.o.metrics?.queued]) gauge?.remove({ region: g.region });
  }
}
