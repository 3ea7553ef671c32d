import type { Logger } from "../core/log.ts";

/** When a queue counts as overloaded and when it keeps up again (scheduler/admission.ts). */
export interface OverloadThresholds {
  /** Overloaded once its oldest kept-back due check has waited this long; default 2 s. */
  enterLagMs: number;
  /** Keeps up again once nothing has waited in line for this long (no flapping at the edge); default 10 s. */
  exitCalmMs: number;
}

export const DEFAULT_OVERLOAD_THRESHOLDS: OverloadThresholds = { enterLagMs: 2000, exitCalmMs: 10_000 };

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
    private readonly t: OverloadThresholds = DEFAULT_OVERLOAD_THRESHOLDS,
  ) {}

  update(now: number, waiting: number, lagMs: number, detail: Record<string, unknown>): void {
    if (waiting > 0) this.calmSince = null;
    else this.calmSince ??= now;
    if (this.since === null) {
      if (waiting > 0 && lagMs >= this.t.enterLagMs) {
        this.since = now;
        this.slipped = 0;
        this.log.warn(
          { op: "scheduler.overload", ...this.fields, waiting, lagSeconds: Math.round(lagMs / 1000), ...detail },
          `${this.what} is over capacity: due checks wait for its queue to drain, so every monitor is still checked, less often`,
        );
      }
      return;
    }
    if (this.calmSince !== null && now - this.calmSince >= this.t.exitCalmMs) this.end(now);
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
