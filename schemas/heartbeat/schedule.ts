import { Cron } from "croner";
import { isValidTimeZone } from "../maintenance/zoned-time.ts";
import { cronProblem } from "../cron-words.ts";

/** The timing part of a heartbeat monitor's config: a fixed period, or a cron schedule read in a time zone. */
export interface HeartbeatTiming {
  period_seconds?: number;
  schedule?: string;
  timezone?: string;
  grace_seconds?: number;
}

export interface TimingIssue {
  /** Below the config, e.g. `schedule`; empty for the config as a whole. */
  field: string;
  message: string;
}

const DEFAULT_ZONE = "UTC";
/** The shortest time between two expected runs: period_seconds' minimum (runner/checks/heartbeat/heartbeat-schema.ts). */
const MIN_SPACING_S = 30;
/** Runs looked at for the shortest gap: a day of a schedule every 30 s is 2,880, so this covers any hour's pattern. */
const GAP_SAMPLE = 200;

/** The shortest gap between consecutive runs among the first runs after a fixed instant (a seconds field may crowd them). */
function shortestGapSeconds(c: Cron): number {
  let shortest = Number.POSITIVE_INFINITY;
  let prev = c.nextRun(new Date(Date.UTC(2026, 0, 5)));
  for (let i = 0; prev && i < GAP_SAMPLE; i++) {
    const next = c.nextRun(prev);
    if (!next) break;
    shortest = Math.min(shortest, (next.getTime() - prev.getTime()) / 1000);
    if (shortest < MIN_SPACING_S) break;
    prev = next;
  }
  return shortest;
}
/** Ticks walked per sweep at most; a longer silence keeps only the latest misses (see missedDeadlines). */
const MAX_TICKS = 10_000;

const cache = new Map<string, Cron>();
function cronOf(schedule: string, timezone: string): Cron {
  const key = `${timezone}\n${schedule}`;
  let c = cache.get(key);
  if (!c) {
    c = new Cron(schedule.trim(), { timezone, paused: true, mode: "5-or-6-parts" });
    if (cache.size > 500) cache.clear();
    cache.set(key, c);
  }
  return c;
}

/** What is wrong with a heartbeat's timing: exactly one of period_seconds and schedule, a valid cron, a known zone. */
export function timingIssues(t: HeartbeatTiming): TimingIssue[] {
  const issues: TimingIssue[] = [];
  const hasPeriod = t.period_seconds !== undefined;
  const hasSchedule = t.schedule !== undefined;
  if (hasPeriod && hasSchedule) issues.push({ field: "", message: "give either period_seconds or schedule (a cron expression), not both" });
  else if (!hasPeriod && !hasSchedule) issues.push({ field: "", message: "give exactly one of period_seconds and schedule (a cron expression); neither is set" });
  if (t.timezone !== undefined) {
    if (!hasSchedule) issues.push({ field: "timezone", message: "timezone applies to schedule only; leave it out with period_seconds" });
    else if (!isValidTimeZone(t.timezone)) issues.push({ field: "timezone", message: `Unknown time zone "${t.timezone}"; use an IANA name such as Europe/Berlin` });
  }
  if (hasSchedule) {
    try {
      const c = cronOf(t.schedule!, DEFAULT_ZONE);
      if (!c.nextRun(new Date(0))) issues.push({ field: "schedule", message: "the schedule never runs" });
      else {
        const gap = shortestGapSeconds(c);
        if (gap < MIN_SPACING_S) issues.push({ field: "schedule", message: `runs ${gap} s apart; runs must be at least ${MIN_SPACING_S} s apart, as period_seconds` });
      }
    } catch (err) {
      issues.push({ field: "schedule", message: cronProblem(t.schedule!, err) });
    }
  }
  return issues;
}

const zoneOf = (t: HeartbeatTiming) => (t.timezone && isValidTimeZone(t.timezone) ? t.timezone : DEFAULT_ZONE);

/** The next time a ping is expected, strictly after `t` (ms); null when the schedule has no more runs. */
export function expectedAfter(t: HeartbeatTiming, after: number): number | null {
  if (t.schedule === undefined) return after + (t.period_seconds ?? 0) * 1000;
  // nextRun strips milliseconds; from the end of this second, a run exactly at `after` is not returned again.
  return cronOf(t.schedule, zoneOf(t)).nextRun(new Date(after))?.getTime() ?? null;
}

/** The next `n` expected pings after `after` (the form's preview). */
export function nextExpected(t: HeartbeatTiming, after: number, n: number): number[] {
  const out: number[] = [];
  let at: number | null = after;
  while (out.length < n && (at = expectedAfter(t, at)) !== null) out.push(at);
  return out;
}

const graceMs = (t: HeartbeatTiming) => (t.grace_seconds ?? 0) * 1000;

/** When the monitor is down if no ping arrives after one at `since`: the next expected ping plus the grace time. */
export function deadlineAfter(t: HeartbeatTiming, since: number): number | null {
  const next = expectedAfter(t, since);
  return next === null ? null : next + graceMs(t);
}

/**
 * The deadlines from `due` up to `now` that passed without a ping (each is one missed run), the
 * latest `max` of them, and the first deadline still ahead. A silence longer than MAX_TICKS runs
 * keeps only the misses walked (a known gap) and jumps to the next deadline after now.
 */
export function missedDeadlines(t: HeartbeatTiming, due: number, now: number, max: number): { missed: number[]; nextDue: number | null } {
  const grace = graceMs(t);
  if (t.schedule === undefined) {
    const period = (t.period_seconds ?? 0) * 1000;
    if (period <= 0 || due > now) return { missed: [], nextDue: due };
    const count = Math.floor((now - due) / period) + 1;
    const missed: number[] = [];
    for (let k = Math.max(0, count - max); k < count; k++) missed.push(due + k * period);
    return { missed, nextDue: due + count * period };
  }
  const missed: number[] = [];
  let d: number | null = due;
  for (let i = 0; d !== null && d <= now; i++) {
    missed.push(d);
    if (missed.length > max) missed.shift();
    if (i >= MAX_TICKS) return { missed, nextDue: deadlineAfter(t, now - grace) };
    d = deadlineAfter(t, d - grace);
  }
  return { missed, nextDue: d };
}
