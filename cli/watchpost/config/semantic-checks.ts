import { timingIssues } from "../../../schemas/heartbeat/schedule.ts";
import { parseCron, parseRrule, RecurrenceError } from "../../../schemas/maintenance/recurrence.ts";
import { isValidTimeZone } from "../../../schemas/maintenance/zoned-time.ts";

/** The API's default interval, which a monitor without interval_seconds gets. */
const DEFAULT_INTERVAL_S = 300;

type Entry = Record<string, unknown>;
/** A problem by path in the file (the shape of load.ts's issues). */
interface Issue {
  path: string;
  message: string;
}
const list = (v: unknown): Entry[] => (Array.isArray(v) ? (v as Entry[]) : []);

/**
 * What the API would refuse beyond the schema, found offline (so `validate` in a pre-commit hook catches it): a
 * heartbeat's timing, a timeout longer than the interval, a maintenance window's times and recurrence. Run on a
 * file that passed the schema; the API checks the same again.
 */
export function semanticIssues(doc: Entry): Issue[] {
  const issues: Issue[] = [];
  list(doc.monitors).forEach((m, i) => {
    const at = `monitors[${i}]`;
    const config = (m.config ?? {}) as Entry;
    if (m.type === "heartbeat") {
      for (const t of timingIssues(config)) issues.push({ path: t.field ? `${at}.config.${t.field}` : `${at}.config`, message: t.message });
    } else if (typeof m.timeout_ms === "number" && m.timeout_ms > ((m.interval_seconds as number | undefined) ?? DEFAULT_INTERVAL_S) * 1000) {
      issues.push({ path: `${at}.timeout_ms`, message: `must not exceed the interval (${((m.interval_seconds as number | undefined) ?? DEFAULT_INTERVAL_S) * 1000} ms)` });
    }
  });
  list(doc.maintenance).forEach((w, i) => issues.push(...windowIssues(w, `maintenance[${i}]`)));
  return issues;
}

function windowIssues(w: Entry, at: string): Issue[] {
  const issues: Issue[] = [];
  const timezone = (w.timezone as string | undefined) ?? "UTC";
  const startsAt = typeof w.starts_at === "string" ? Date.parse(w.starts_at) : null;
  const endsAt = typeof w.ends_at === "string" ? Date.parse(w.ends_at) : null;
  const rrule = (w.rrule as string | undefined)?.trim();
  const cron = (w.cron as string | undefined)?.trim();
  if (!isValidTimeZone(timezone)) issues.push({ path: `${at}.timezone`, message: `Unknown time zone "${timezone}"; use an IANA name such as Europe/Berlin` });
  if (rrule && cron) issues.push({ path: `${at}.cron`, message: "give rrule or cron, not both" });
  if (startsAt !== null && endsAt !== null && endsAt <= startsAt) issues.push({ path: `${at}.ends_at`, message: "must be after starts_at" });
  if (rrule || cron) {
    if (w.duration_minutes === undefined) issues.push({ path: `${at}.duration_minutes`, message: "a recurring window needs duration_minutes" });
  } else {
    if (startsAt === null) issues.push({ path: `${at}.starts_at`, message: "a one-off window needs starts_at (or give rrule or cron)" });
    if (endsAt === null) issues.push({ path: `${at}.ends_at`, message: "a one-off window needs ends_at" });
    if (w.duration_minutes !== undefined) issues.push({ path: `${at}.duration_minutes`, message: "applies to recurring windows only" });
  }
  if (issues.length === 0) {
    try {
      if (rrule) parseRrule(rrule);
      if (cron) parseCron(cron, timezone);
    } catch (err) {
      if (!(err instanceof RecurrenceError)) throw err;
      issues.push({ path: `${at}.${rrule ? "rrule" : "cron"}`, message: err.message });
    }
  }
  return issues;
}
