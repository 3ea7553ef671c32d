/**
 * What a periodic judge (a sweep that declares something silent, offline or stale) could not see, as seconds
 * before now: its latest stretch of failed reads, from its last good read to its next one, and everything
 * before the process started where the API runs in it (`blindBeforeStart`). A heartbeat that could not arrive
 * or could not be read then is no evidence of silence, so a judge subtracts these stretches from a silence
 * before comparing it with its window.
 */
export interface BlindSpan {
  /** The process started this long ago and saw nothing before (1e9 where its start hid nothing). */
  startedAgoS: number;
  /** Its latest blind stretch began this long ago (its last good read before the failures)… */
  gapFromAgoS: number;
  /** …and ended this long ago (0 while reads still fail); equal to `gapFromAgoS` when there was none. */
  gapToAgoS: number;
}

/** A judge that has always seen everything: the rule as before, for callers that track nothing (tests, tools). */
export const FULL_VIEW: BlindSpan = { startedAgoS: 1e9, gapFromAgoS: 0, gapToAgoS: 0 };

export interface BlindTimeOptions {
  /** Milliseconds of a monotonic clock; default `performance.now`. Tests pass their own. */
  clock?: () => number;
  /**
   * Nothing before this process started could be seen: true where the API runs in the same process (the
   * all-in-one), so no heartbeat or ping could reach the database while it was down. A role started on its
   * own (the scaled mode) says nothing about the API by starting, and sees only its failed reads as blind.
   */
  blindBeforeStart?: boolean;
}

/**
 * Tracks the blind time of a process's judges on a monotonic clock (skew with the database's clock does not
 * matter: the span is relative to now). One per process, shared by its sweeps: they read the same database.
 * Only the latest failed stretch is kept: reads failing twice within one window may still leave the older
 * gap's silence counted.
 */
export class BlindTime {
  private readonly started: number;
  private readonly clock: () => number;
  private readonly blindBeforeStart: boolean;
  private lastGood: number | null = null;
  private failingSince: number | null = null;
  private gap: [number, number] | null = null;

  constructor(o: BlindTimeOptions = {}) {
    this.clock = o.clock ?? (() => performance.now());
    this.blindBeforeStart = o.blindBeforeStart ?? false;
    this.started = this.clock();
  }

  /** A read (or a whole sweep) failed: blind from the last good one, or from the start. */
  failed(): void {
    this.failingSince ??= this.lastGood ?? this.started;
  }

  /** A read succeeded: a failed stretch, if one was open, ends now. */
  succeeded(): void {
    const now = this.clock();
    if (this.failingSince !== null) this.gap = [this.failingSince, now];
    this.failingSince = null;
    this.lastGood = now;
  }

  /** The span as of now; an open failed stretch counts as blind up to now. */
  span(): BlindSpan {
    const now = this.clock();
    const [from, to] = this.failingSince !== null ? [this.failingSince, now] : (this.gap ?? [now, now]);
    const startedAgoS = this.blindBeforeStart ? (now - this.started) / 1000 : FULL_VIEW.startedAgoS;
    return { startedAgoS, gapFromAgoS: (now - from) / 1000, gapToAgoS: (now - to) / 1000 };
  }

  /** Runs one sweep with the span as of its start, recording whether it failed; a failure is rethrown. */
  async watch<T>(sweep: (span: BlindSpan) => Promise<T>): Promise<T> {
    try {
      const out = await sweep(this.span());
      this.succeeded();
      return out;
    } catch (err) {
      this.failed();
      throw err;
    }
  }
}
