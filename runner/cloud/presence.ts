import { hostname } from "node:os";
import type { Bus } from "../../core/bus/index.ts";
import type { Logger } from "../../core/log.ts";
import { WORKER_ROLL_CALL, type WorkerBeatMessage, workerSubject } from "../../schemas/messages/worker-beat.ts";

/** Median of the last `size` check durations, cheap to update on every check. */
export class RecentDurations {
  private values: number[] = [];
  private next = 0;

  constructor(private readonly size = 200) {}

  add(ms: number): void {
    if (this.values.length < this.size) this.values.push(ms);
    else this.values[this.next] = ms;
    this.next = (this.next + 1) % this.size;
  }

  median(): number | null {
    if (this.values.length === 0) return null;
    const sorted = [...this.values].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  }
}

export interface PresenceOptions {
  bus: Bus;
  log: Logger;
  workerId: string;
  region: string;
  version: string;
  concurrency: number;
  /** Browser engines this worker runs browser checks with. */
  browsers?: string[];
  intervalMs: number;
  stats(): { inFlight: number; checksTotal: number; recentP50Ms: number | null };
}

/**
 * Beats on `workers.<region>.<worker>`; the alerting role's ingest records them in region_workers, and the
 * region counts as online while one of its workers beats. The worker has no database of its own.
 */
export async function startPresence(o: PresenceOptions): Promise<{ stop(): Promise<void> }> {
  const startedAt = Date.now();
  const subject = workerSubject(o.region, o.workerId);
  let failing = false;
  const beat = (gone?: true) => {
    const s = o.stats();
    const message: WorkerBeatMessage = {
      workerId: o.workerId,
      region: o.region,
      hostname: hostname(),
      version: o.version,
      concurrency: o.concurrency,
      browsers: o.browsers ?? [],
      inFlight: s.inFlight,
      checksTotal: s.checksTotal,
      recentP50Ms: s.recentP50Ms === null ? null : Math.round(s.recentP50Ms),
      startedAt,
      ...(gone ? { gone } : {}),
    };
    try {
      o.bus.publishEvent(subject, message);
      if (failing) o.log.info({ op: "worker.heartbeat" }, "heartbeat restored");
      failing = false;
    } catch (err) {
      if (!failing) o.log.warn({ op: "worker.heartbeat", err }, "heartbeat failed; the region may show offline");
      failing = true;
    }
  };
  // A presence recorder that starts after this worker asks for a beat at once instead of waiting an interval.
  const unsubscribe = o.bus.subscribeEvents(WORKER_ROLL_CALL, () => beat());
  beat();
  const timer = setInterval(() => beat(), o.intervalMs);
  return {
    async stop() {
      clearInterval(timer);
      unsubscribe();
      // Leaving at once lets the scheduler mark the region offline without waiting for the TTL.
      beat(true);
    },
  };
}
