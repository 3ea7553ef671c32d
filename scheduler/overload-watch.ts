import type { Logger } from "../core/log.ts";

/** A queue is overloaded once its oldest kept-back due check has waited this long (on the schedule's clock)... */
const OVERLOAD_ENTER_LAG_MS = 2000;
/** ...and keeps up again once nothing has waited in line for this long (no flapping at the edge). */
const OVERLOAD_EXIT_CALM_MS = 10_000;

/**
 * One queue's overload state with hysteresis: one warn line when it starts, one info line when it
 * ends, never a line per check. Pure bookkeeping; time comes in as arguments. `what` names the queue
 * in the message ("region eu-west", "the chromium browsers of region eu-west", "runner run_…"), `fields`
 * in the structured line.
 */
export class OverloadWatch {
  since: number | null = null;
  /** Due checks merged into a check still waiting, during the current episode. */
  slipped = 0;
  private calmSince: number | null = null;

  constructor(
    private readonly what: string,
    private readonly fields: Record<string, unknown>,
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
          { op: "scheduler.overload", ...this.fields, waiting, lagSeconds: Math.round(lagMs / 1000), ...detail },
          `${this.what} is over capacity: due checks wait for its queue to drain, so every monitor is still checked, less often`,
        );
      }
      return;
    }
    if (this.calmSince !== null && now - this.calmSince >= OVERLOAD_EXIT_CALM_MS) this.end(now);
  }

  /** Ends an episode: the queue keeps up again, or (`stopping`) this leader stops scheduling. */
  end(now: number, stopping = false): void {
    if (this.since === null) return;
    this.log.info(
      { op: "scheduler.overload", ...this.fields, seconds: Math.round((now - this.since) / 1000), slipped: this.slipped, stopping },
      stopping ? `${this.what} was still over capacity when this scheduler stopped leading` : `${this.what} keeps up again: checks are back on their schedule`,
    );
    this.since = null;
    this.calmSince = null;
  }
}
