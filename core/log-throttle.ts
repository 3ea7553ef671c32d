/**
 * Counts occurrences of something worth a log line and lets at most one line through per `everyMs`: the first at
 * once, then one per period carrying how many occurred since the last. A storm (a bus outage, a backlog) is then a
 * line every few seconds with a count, not a line per due check.
 */
export class LogThrottle {
  private count = 0;
  private lastAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly everyMs: number,
    private readonly now: () => number,
  ) {}

  /** Counts one; returns the count since the last line when a line is due now (and starts counting again), else null. */
  hit(): number | null {
    this.count++;
    const now = this.now();
    if (now - this.lastAt < this.everyMs) return null;
    const count = this.count;
    this.lastAt = now;
    this.count = 0;
    return count;
  }
}
