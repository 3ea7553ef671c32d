import type { Clock } from "../core/clock.ts";

/** Gaps published at once when the bus takes messages again. */
const BATCH = 64;
/** The wait after a round the bus refused, doubling up to the maximum. */
const RETRY_BASE_MS = 100;
const RETRY_MAX_MS = 2000;

export interface OwedGapsOptions<T> {
  clock: Clock;
  /** Hands one gap (its `unavailable` result) to the bus; rejects while the bus does not take it. */
  publish(gap: T): Promise<unknown>;
  /** Gaps kept at most; a gap owed past that is refused (`owe` returns false). */
  limit: number;
  /** Called once per gap the bus took. */
  recorded(gap: T): void;
  /** Called when a round leaves nothing owed. */
  drained?(): void;
}

/**
 * Due checks the bus did not take before they expired (an outage of the bus), as the `unavailable` results that
 * record their gaps: kept in due order, at most `limit`, and published as soon as the bus takes messages again.
 * One retry loop for all of them, not one per check. What is still owed when stopped is left to the watermark:
 * the scheduler holds it before every owed gap, so a successor replays them.
 */
export class OwedGaps<T> {
  private readonly owed: T[] = [];
  /** Index of the first gap still owed (the array is compacted as it drains). */
  private head = 0;
  private flushing = false;
  private stopped = false;
  private timer: unknown = null;
  private wake: (() => void) | null = null;

  constructor(private readonly o: OwedGapsOptions<T>) {}

  get size(): number {
    return this.owed.length - this.head;
  }

  /** Keeps one gap to record; false when `limit` are owed already. */
  owe(gap: T): boolean {
    if (this.stopped || this.size >= this.o.limit) return false;
    this.owed.push(gap);
    if (!this.flushing) void this.flush();
    return true;
  }

  /** Stops publishing; what is owed stays unrecorded here (the watermark was held before it). */
  stop(): void {
    this.stopped = true;
    if (this.timer !== null) this.o.clock.clearTimeout(this.timer);
    this.timer = null;
    this.wake?.();
    this.owed.length = 0;
    this.head = 0;
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    let waitMs = RETRY_BASE_MS;
    try {
      while (!this.stopped && this.size > 0) {
        const round = this.owed.slice(this.head, this.head + BATCH);
        const outcomes = await Promise.allSettled(round.map((r) => this.o.publish(r)));
        if (this.stopped) return;
        // The taken ones leave; a refused one stays where it was, so the gaps go out in due order.
        const refused = round.filter((_, i) => outcomes[i]!.status === "rejected");
        this.head += round.length - refused.length;
        for (let i = 0; i < refused.length; i++) this.owed[this.head + i] = refused[i]!;
        for (const [i, r] of round.entries()) if (outcomes[i]!.status === "fulfilled") this.o.recorded(r);
        if (this.size === 0) this.o.drained?.();
        if (this.head > 1024 && this.head * 2 > this.owed.length) {
          this.owed.splice(0, this.head);
          this.head = 0;
        }
        if (refused.length === 0) {
          waitMs = RETRY_BASE_MS;
          continue;
        }
        await this.sleep(waitMs);
        waitMs = Math.min(waitMs * 2, RETRY_MAX_MS);
      }
    } finally {
      this.flushing = false;
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
      this.timer = this.o.clock.setTimeout(() => {
        this.timer = null;
        this.wake = null;
        resolve();
      }, ms);
    });
  }
}
