import { Cron } from "croner";
import { instantOfFloating, wallAt } from "../../schemas/maintenance/zoned-time.ts";

type ReportFrequency = "weekly" | "monthly";

export interface ReportSchedule {
  frequency: ReportFrequency;
  /** weekly: ISO weekday 1 (Monday) .. 7 (Sunday); monthly: day of the month 1..28. */
  day: number;
  /** "HH:MM", local time in `timezone`. */
  send_time: string;
  timezone: string;
}

export interface ReportPeriod {
  /** Inclusive, local midnight. */
  from: Date;
  /** Exclusive, local midnight. */
  to: Date;
}

function cronOf(s: ReportSchedule): Cron {
  const [hh, mm] = s.send_time.split(":").map(Number);
  // Croner reads day-of-week 0 and 7 as Sunday, so ISO 1..7 maps as is.
  const pattern = s.frequency === "weekly" ? `${mm} ${hh} * * ${s.day}` : `${mm} ${hh} ${s.day} * *`;
  return new Cron(pattern, { timezone: s.timezone, paused: true });
}

/** The first scheduled send strictly after `after` (Croner follows the zone across daylight-saving changes). */
export function nextSendAt(s: ReportSchedule, after: Date): Date {
  const next = cronOf(s).nextRun(after);
  if (!next) throw new Error("report schedule has no next run");
  return next;
}

/** Local midnight starting the calendar day `y-m-d` (month 1-12; day may run over, Date.UTC normalises). */
const midnight = (zone: string, y: number, m: number, d: number) => new Date(instantOfFloating(zone, Date.UTC(y, m - 1, d)));

/**
 * The period a send at `at` reports on, in whole local days before the send day: the previous seven
 * days for a weekly report, the previous calendar month for a monthly one.
 */
export function periodOf(s: Pick<ReportSchedule, "frequency" | "timezone">, at: Date): ReportPeriod {
  const w = wallAt(s.timezone, at.getTime());
  if (s.frequency === "weekly") return { from: midnight(s.timezone, w.year, w.month, w.day - 7), to: midnight(s.timezone, w.year, w.month, w.day) };
  return { from: midnight(s.timezone, w.year, w.month - 1, 1), to: midnight(s.timezone, w.year, w.month, 1) };
}

/**
 * The latest period that is over at `at`, as the scheduled sends cut them (what "send now" reports on):
 * the next send's period when only its send time is still to come, else the last send's.
 */
export function lastCompletePeriod(s: ReportSchedule, at: Date): ReportPeriod {
  const next = nextSendAt(s, at);
  const upcoming = periodOf(s, next);
  if (upcoming.to.getTime() <= at.getTime()) return upcoming;
  // 40 days back holds at least one send of either frequency (monthly send days are 1..28).
  let last = nextSendAt(s, new Date(next.getTime() - 40 * 86_400_000));
  for (let n = nextSendAt(s, last); n.getTime() < next.getTime(); n = nextSendAt(s, n)) last = n;
  return periodOf(s, last);
}

/** The local calendar days of a period, each as [from, to), for the daily chart. */
export function daysOf(timezone: string, p: ReportPeriod): { date: string; from: Date; to: Date }[] {
  const out: { date: string; from: Date; to: Date }[] = [];
  const first = wallAt(timezone, p.from.getTime());
  for (let i = 0; i < 32; i++) {
    const from = midnight(timezone, first.year, first.month, first.day + i);
    if (from.getTime() >= p.to.getTime()) break;
    const to = midnight(timezone, first.year, first.month, first.day + i + 1);
    out.push({ date: new Date(Date.UTC(first.year, first.month - 1, first.day + i)).toISOString().slice(0, 10), from, to });
  }
  return out;
}
