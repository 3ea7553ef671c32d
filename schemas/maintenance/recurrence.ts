import { Cron } from "croner";
import { Frequency, RRule, type Options as RRuleOptions } from "rrule";
import { floatingAt, instantOfFloating } from "./zoned-time.ts";
import { cronProblem } from "../cron-words.ts";

/** When a window's occurrences start; every occurrence lasts `durationMs`. */
export interface Recurrence {
  durationMs: number;
  /** Occurrence starts s with from <= s < to, ascending. */
  startsBetween(from: number, to: number): number[];
  /** The first occurrence start at or after t, or null when there is none. */
  nextStart(t: number): number | null;
}

/** What a window needs to say when it is active; one of the three shapes. */
export type WindowTiming =
  | { kind: "once"; startsAt: number; endsAt: number }
  | { kind: "rrule"; rrule: string; timezone: string; durationMs: number; startsAt: number; endsAt: number | null }
  | { kind: "cron"; cron: string; timezone: string; durationMs: number; startsAt: number | null; endsAt: number | null };

export class RecurrenceError extends Error {}

/** Most occurrences `startsBetween` expands in one call (a minutely rule over a long span). */
const MAX_STARTS = 5000;
/** Local times shift by at most a few hours around a DST change; expansions are widened by this. */
const SLACK_MS = 3 * 3_600_000;

export function compileTiming(t: WindowTiming): Recurrence {
  switch (t.kind) {
    case "once":
      return once(t.startsAt, t.endsAt);
    case "rrule":
      return rruleRecurrence(t);
    case "cron":
      return cronRecurrence(t);
  }
}

function once(startsAt: number, endsAt: number): Recurrence {
  return {
    durationMs: endsAt - startsAt,
    startsBetween: (from, to) => (startsAt >= from && startsAt < to ? [startsAt] : []),
    nextStart: (t) => (startsAt >= t ? startsAt : null),
  };
}

/** Parses an RRULE (with or without the `RRULE:` prefix); DTSTART comes from the window, not the string. */
export function parseRrule(text: string): Partial<RRuleOptions> {
  const body = text.trim();
  // As a line of its own or as a part of the rule line (the rrule package reads "FREQ=DAILY;DTSTART=…" too).
  if (/(^|[\n;:])\s*(DTSTART|EXDATE|RDATE)\b/i.test(body) || /TZID/i.test(body)) {
    throw new RecurrenceError("give only the RRULE; the start comes from starts_at and the zone from timezone");
  }
  if (body.includes("\n")) throw new RecurrenceError("give a single RRULE line");
  let opts: Partial<RRuleOptions>;
  try {
    opts = RRule.parseString(body);
  } catch (err) {
    throw new RecurrenceError(`invalid RRULE: ${(err as Error).message}`);
  }
  if (opts.freq === undefined || opts.freq === null) throw new RecurrenceError("invalid RRULE: FREQ is missing or unknown");
  if (opts.freq === Frequency.SECONDLY) throw new RecurrenceError("invalid RRULE: FREQ=SECONDLY is not supported; use MINUTELY or longer");
  const ranges: [keyof RRuleOptions, number, number][] = [
    ["byhour", 0, 23],
    ["byminute", 0, 59],
    ["bysecond", 0, 59],
    ["bymonth", 1, 12],
    ["bymonthday", -31, 31],
    ["byyearday", -366, 366],
    ["byweekno", -53, 53],
  ];
  for (const [key, min, max] of ranges) {
    const v = opts[key];
    const values = v === undefined || v === null ? [] : Array.isArray(v) ? v : [v];
    for (const n of values as number[]) {
      if (!Number.isInteger(n) || n < min || n > max || (n === 0 && min < 0)) throw new RecurrenceError(`invalid RRULE: ${key.toUpperCase()}=${n} out of range`);
    }
  }
  if (opts.interval !== undefined && (!Number.isInteger(opts.interval) || opts.interval < 1)) throw new RecurrenceError("invalid RRULE: INTERVAL must be at least 1");
  return opts;
}

/**
 * RRULE expanded in floating local time (the wall clock of `timezone`), each start then
 * mapped to an instant: "every Sunday 02:00" stays at 02:00 local across DST changes.
 * UNTIL is read as a local wall time too.
 */
function rruleRecurrence(t: Extract<WindowTiming, { kind: "rrule" }>): Recurrence {
  const opts = parseRrule(t.rrule);
  const rule = new RRule({ ...opts, dtstart: new Date(floatingAt(t.timezone, t.startsAt)), tzid: null });
  const toInstant = (d: Date) => instantOfFloating(t.timezone, d.getTime());
  const inBounds = (s: number) => s >= t.startsAt && (t.endsAt === null || s < t.endsAt);
  return {
    durationMs: t.durationMs,
    startsBetween(from, to) {
      if (to <= from) return [];
      const lo = new Date(floatingAt(t.timezone, from) - SLACK_MS);
      const hi = new Date(floatingAt(t.timezone, to) + SLACK_MS);
      const out: number[] = [];
      rule.between(lo, hi, true, (d) => {
        const s = toInstant(d);
        if (s >= from && s < to && inBounds(s)) out.push(s);
        return out.length < MAX_STARTS;
      });
      return out.sort((a, b) => a - b);
    },
    nextStart(from) {
      let cursor = new Date(floatingAt(t.timezone, from) - SLACK_MS);
      for (let i = 0; i < 100; i++) {
        const d = rule.after(cursor, false);
        if (!d) return null;
        const s = toInstant(d);
        if (t.endsAt !== null && s >= t.endsAt) return null;
        if (s >= from && inBounds(s)) return s;
        cursor = d;
      }
      return null;
    },
  };
}

export function parseCron(expr: string, timezone: string): Cron {
  try {
    return new Cron(expr.trim(), { timezone, paused: true });
  } catch (err) {
    throw new RecurrenceError(cronProblem(expr, err));
  }
}

function cronRecurrence(t: Extract<WindowTiming, { kind: "cron" }>): Recurrence {
  const cron = parseCron(t.cron, t.timezone);
  const inBounds = (s: number) => (t.startsAt === null || s >= t.startsAt) && (t.endsAt === null || s < t.endsAt);
  const nextStart = (from: number): number | null => {
    const start = t.startsAt !== null && t.startsAt > from ? t.startsAt : from;
    const next = cron.nextRun(new Date(start - 1));
    if (!next) return null;
    const s = next.getTime();
    return inBounds(s) ? s : null;
  };
  return {
    durationMs: t.durationMs,
    startsBetween(from, to) {
      const out: number[] = [];
      let s = nextStart(from);
      while (s !== null && s < to && out.length < MAX_STARTS) {
        out.push(s);
        s = nextStart(s + 1);
      }
      return out;
    },
    nextStart,
  };
}

/** Whether a window is in an occurrence at `t`, and until when that answer holds. */
export interface WindowState {
  active: boolean;
  /** The state holds for [t, until); Infinity when it never changes. */
  until: number;
  /** Start of the current occurrence (active) or of the next one (inactive), if any. */
  occurrenceStart: number | null;
}

/** Occurrences that overlap or touch are one stretch; the answer looks this far ahead at most. */
const MERGE_HORIZON_MS = 86_400_000;

/** Whether an occurrence covers `t`; cheaper than stateAt when the end does not matter. */
export function isActiveAt(rec: Recurrence, t: number): boolean {
  return rec.startsBetween(t - rec.durationMs + 1, t + 1).length > 0;
}

export function stateAt(rec: Recurrence, t: number): WindowState {
  const dur = rec.durationMs;
  const current = rec.startsBetween(t - dur + 1, t + 1);
  if (current.length === 0) {
    const next = rec.nextStart(t + 1);
    return { active: false, until: next ?? Infinity, occurrenceStart: next };
  }
  let end = current[current.length - 1]! + dur;
  // Extend through occurrences that start before (or as) the current stretch ends.
  let cursor = t + 1;
  while (end < t + MERGE_HORIZON_MS) {
    const more = rec.startsBetween(cursor, end + 1);
    if (more.length === 0) break;
    const last = more[more.length - 1]!;
    end = Math.max(end, last + dur);
    cursor = last + 1;
  }
  return { active: true, until: Math.min(end, t + MERGE_HORIZON_MS), occurrenceStart: current[0]! };
}
