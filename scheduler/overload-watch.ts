import type { Logger } from "../core/log.ts";

/** A region is overloaded once its oldest kept-back due check has waited this long... */
const OVERLOAD_ENTER_LAG_MS = 2000;
/** ...and keeps up again once nothing has waited in line for this long (no flapping at the edge). */
const OVERLOAD_EXIT_CALM_MS = 10_000;

/**
 * One region's overload state with hysteresis: one warn line when it starts, one info line when it
 * ends, never a line per check. Pure bookkeeping; time comes in as arguments.
 */
export class OverloadWatch {
  since: number | null = null;
  /** Due checks merged into a check still waiting, during the current episode. */
  slipped = 0;
  private calmSince: number | null = null;

  constructor(
    private readonly region: string,
    private readonly log: Logger,
  ) {}

  update(now: number, waiting: number, lagMs: number, detail: Record<string, unknown>): void {
    if (waiting > 0) this.calmSince = null;
    else this.calmSince ??= now;
    if (this.since === null) {
      if (waiting > 0 && lagMs >= OVERLOAD_ENTER_LAG_MS) {
        this.since = now;
        this.slipped = 0;
        this.log.warn(
          { op: "scheduler.overload", region: this.region, waiting, lagSeconds: Math.round(lagMs / 1000), ...detail },
          `region ${this.region} is over capacity: due checks wait for its queue to drain, so every monitor is still checked, less often`,
        );
      }
      return;
    }
    if (this.calmSince !== null && now - this.calmSince >= OVERLOAD_EXIT_CALM_MS) this.end(now);
  }

  /** Ends an episode: the region keeps up again, or (`stopping`) this leader stops scheduling. */
  end(now: number, stopping = false): void {
    if (this.since === null) return;
    this.log.info(
      { op: "scheduler.overload", region: this.region, seconds: Math.round((now - this.since) / 1000), slipped: this.slipped, stopping },
      stopping ? `region ${this.region} was still over capacity when this scheduler stopped leading` : `region ${this.region} keeps up again: checks are back on their schedule`,
    );
    this.since = null;
    this.calmSince = null;
  }
}
