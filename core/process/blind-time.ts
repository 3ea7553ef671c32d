/**
 * What a periodic judge (a sweep that declares something silent, offline or stale) could not see, as seconds
 * before now: its stretches of failed reads, from its last good read to its next one; everything before the
 * process started where the API runs in it (`blindBeforeStart`); and, in the scaled mode, the stretches when no
 * API process was up to take heartbeats (`elsewhere`). A heartbeat that could not arrive or could not be read
 * then is no evidence of silence, so a judge subtracts these stretches from a silence before comparing it with
 * its window.
 */
export interface BlindStretch {
  /** It began this long ago (`BEFORE_ANYTHING` for "since before anything was seen")… */
  fromAgoS: number;
  /** …and ended this long ago (0 while it lasts). */
  toAgoS: number;
}

export interface BlindSpan {
  /** Disjoint, oldest first. */
  gaps: readonly BlindStretch[];
}

/** `fromAgoS` of a stretch with no beginning: before the process started, where its start hid everything. */
export const BEFORE_ANYTHING = 1e9;

/** A judge that has always seen everything: the rule as before, for callers that track nothing (tests, tools). */
export const FULL_VIEW: BlindSpan = { gaps: [] };

/**
 * Stretches that ended longer ago are forgotten, here and in the database (db/queries/api-presence.ts): no judge
 * asks further back. The longest window is a heartbeat deadline's, its period and its grace (up to 31 days each).
 */
export const BLIND_TIME_KEPT_S = 62 * 86_400;
/** At most this many own stretches are kept, the newest. */
const MAX_STRETCHES = 64;

export interface BlindTimeOptions {
  /** Milliseconds of a monotonic clock; default `performance.now`. Tests pass their own. */
  clock?: () => number;
  /**
   * Nothing before this process started could be seen: true where the API runs in the same process (the
   * all-in-one), so no heartbeat or ping could reach the database while it was down. A role started on its
   * own (the scaled mode) says nothing about the API by starting, and sees only its failed reads as blind.
   */
  blindBeforeStart?: boolean;
  /**
   * Stretches when the path heartbeats take was down elsewhere, as read now (the scaled mode: no API process
   * was up; db/queries/api-presence.ts). Read before a sweep at most every `elsewhereEveryMs` (default 5 s);
   * a failed read fails the sweep.
   */
  elsewhere?: () => Promise<readonly BlindStretch[]>;
  elsewhereEveryMs?: number;
}

type Stretch = [from: number, to: number];

/** Disjoint stretches, oldest first, of the union of `stretches`. */
function union(stretches: Stretch[]): Stretch[] {
  const out: Stretch[] = [];
  for (const [from, to] of [...stretches].sort((a, b) => a[0] - b[0])) {
    const last = out.at(-1);
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else out.push([from, to]);
  }
  return out;
}

/**
 * Tracks the blind time of a process's judges on a monotonic clock (skew with the database's clock does not
 * matter: the span is relative to now). One per process, shared by its sweeps: they read the same database.
 */
export class BlindTime {
  private readonly started: number;
  private readonly clock: () => number;
  private readonly blindBeforeStart: boolean;
  private readonly readElsewhere: BlindTimeOptions["elsewhere"];
  private readonly elsewhereEveryMs: number;
  private lastGood: number | null = null;
  private failingSince: number | null = null;
  private own: Stretch[] = [];
  private elsewhere: Stretch[] = [];
  private elsewhereReadAt: number | null = null;

  constructor(o: BlindTimeOptions = {}) {
    this.clock = o.clock ?? (() => performance.now());
    this.blindBeforeStart = o.blindBeforeStart ?? false;
    this.readElsewhere = o.elsewhere;
    this.elsewhereEveryMs = o.elsewhereEveryMs ?? 5_000;
    this.started = this.clock();
  }

  /** A read (or a whole sweep) failed: blind from the last good one, or from the start. */
  failed(): void {
    this.failingSince ??= this.lastGood ?? this.started;
  }

  /** A read succeeded: a failed stretch, if one was open, ends now. */
  succeeded(): void {
    const now = this.clock();
    if (this.failingSince !== null) {
      this.own = [...this.own.filter(([, to]) => now - to <= BLIND_TIME_KEPT_S * 1000), [this.failingSince, now] as Stretch].slice(-MAX_STRETCHES);
    }
    this.failingSince = null;
    this.lastGood = now;
  }

  /** Reads the stretches blind elsewhere when they are due (see `elsewhere`); a failure is thrown. */
  async refresh(): Promise<void> {
    if (!this.readElsewhere) return;
    const now = this.clock();
    if (this.elsewhereReadAt !== null && now - this.elsewhereReadAt < this.elsewhereEveryMs) return;
    const read = await this.readElsewhere();
    // One still open at the read stays open (to now) until the next read says it ended.
    this.elsewhere = read.map((g) => [now - g.fromAgoS * 1000, g.toAgoS <= 0 ? Infinity : now - g.toAgoS * 1000]);
    this.elsewhereReadAt = now;
  }

  /** The span as of now; an open failed stretch counts as blind up to now. */
  span(): BlindSpan {
    const now = this.clock();
    const all: Stretch[] = [...this.own, ...this.elsewhere];
    if (this.failingSince !== null) all.push([this.failingSince, now]);
    if (this.blindBeforeStart) all.push([-Infinity, this.started]);
    const ago = (t: number) => Math.max(0, (now - t) / 1000);
    return {
      gaps: union(all)
        .filter(([from, to]) => to > from)
        .map(([from, to]) => ({ fromAgoS: from === -Infinity ? BEFORE_ANYTHING : ago(from), toAgoS: ago(Math.min(to, now)) })),
    };
  }

  /** Runs one sweep with the span as of its start, recording whether it failed; a failure is rethrown. */
  async watch<T>(sweep: (span: BlindSpan) => Promise<T>): Promise<T> {
    try {
      await this.refresh();
      const out = await sweep(this.span());
      this.succeeded();
      return out;
    } catch (err) {
      this.failed();
      throw err;
    }
  }
}

/**
 * The stretches no presence covered, as seconds before now: `presences` are the spans (oldest or newest first)
 * during which something (an API process) was up. Nothing before the first presence counts: with none, nothing
 * is blind (a deployment that never recorded one is judged as before).
 */
export function uncovered(presences: readonly BlindStretch[]): BlindStretch[] {
  if (presences.length === 0) return [];
  const covered = union(presences.map((p) => [-p.fromAgoS, -p.toAgoS] as Stretch).filter(([from, to]) => to >= from));
  const gaps: BlindStretch[] = [];
  for (let i = 1; i < covered.length; i++) gaps.push({ fromAgoS: -covered[i - 1]![1], toAgoS: -covered[i]![0] });
  const last = covered.at(-1);
  if (last && last[1] < 0) gaps.push({ fromAgoS: -last[1], toAgoS: 0 });
  return gaps;
}
