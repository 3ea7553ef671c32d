import { compileTiming, parseCron, parseRrule, RecurrenceError, type WindowTiming } from "../../../../schemas/maintenance/recurrence.ts";
import { floatingAt, instantOfFloating, isValidTimeZone } from "../../../../schemas/maintenance/zoned-time.ts";
import { FormIssuesError } from "../../lib/form-issues";

export type WindowKind = "once" | "rrule" | "cron";

export interface WindowBody {
  name: string;
  description: string;
  starts_at: string | null;
  ends_at: string | null;
  rrule: string | null;
  cron: string | null;
  duration_minutes: number | null;
  timezone: string;
  tags: string[];
  monitor_ids: string[];
  pause_monitors: boolean;
  suppress_alerts: boolean;
}

/** `datetime-local` values are wall time in the window's own zone (as its RRULE/cron are); the API takes instants. */
const instantIn = (zone: string, local: FormDataEntryValue | null) => {
  if (!local || !String(local)) return null;
  const wall = Date.parse(`${String(local)}Z`);
  return new Date(isValidTimeZone(zone) ? instantOfFloating(zone, wall) : wall).toISOString();
};
/** An instant as a `datetime-local` value in the window's zone. */
export const localInput = (zone: string, iso: string | null | undefined) =>
  iso ? new Date(isValidTimeZone(zone) ? floatingAt(zone, Date.parse(iso)) : Date.parse(iso)).toISOString().slice(0, 16) : "";

/** RRULE presets repeat at the start time (DTSTART is starts_at). */
export const RRULE_PRESETS: Record<string, string> = { daily: "FREQ=DAILY", weekly: "FREQ=WEEKLY", weekdays: "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR", monthly: "FREQ=MONTHLY" };

/**
 * Reads the window form and applies the API's rules (domain/maintenance/service.ts): a one-off
 * window needs a start and an end; a recurring one a duration; RRULE and cron are parsed by the
 * same recurrence code the scheduler runs, so a rule that would be refused is named here.
 */
export function readWindowForm(f: FormData): WindowBody {
  const issues: { path: string; message: string }[] = [];
  const kind = String(f.get("kind") ?? "once") as WindowKind;
  const preset = String(f.get("rrule_preset") ?? "custom");
  const rrule = kind === "rrule" ? (preset !== "custom" ? RRULE_PRESETS[preset]! : String(f.get("rrule") ?? "").trim()) : "";
  const cron = kind === "cron" ? String(f.get("cron") ?? "").trim() : "";
  const duration = String(f.get("duration_minutes") ?? "").trim();
  const timezone = String(f.get("timezone") ?? "UTC") || "UTC";
  const body: WindowBody = {
    name: String(f.get("name") ?? "").trim(),
    description: String(f.get("description") ?? "").trim(),
    starts_at: instantIn(timezone, f.get("starts_at")),
    ends_at: instantIn(timezone, f.get("ends_at")),
    rrule: rrule || null,
    cron: cron || null,
    duration_minutes: kind === "once" || !duration ? null : Number(duration),
    timezone,
    tags: [...new Set(String(f.get("tags") ?? "").split(",").map((t) => t.trim()).filter(Boolean))],
    monitor_ids: f.getAll("monitor_ids").map(String),
    pause_monitors: f.has("pause_monitors"),
    suppress_alerts: f.has("suppress_alerts"),
  };
  if (!body.name) issues.push({ path: "body.name", message: "is required" });
  if (!isValidTimeZone(body.timezone)) issues.push({ path: "body.timezone", message: `Unknown time zone "${body.timezone}"` });
  const { starts_at: s, ends_at: e } = body;
  if (s && e && e <= s) issues.push({ path: "body.ends_at", message: "must be after the start" });
  if (kind === "once") {
    if (!s) issues.push({ path: "body.starts_at", message: "a one-off window needs a start" });
    if (!e) issues.push({ path: "body.ends_at", message: "a one-off window needs an end" });
  } else {
    if (kind === "rrule" && !rrule) issues.push({ path: "body.rrule", message: "is required" });
    if (kind === "rrule" && !s) issues.push({ path: "body.starts_at", message: "a repeating rule starts at its first occurrence" });
    if (kind === "cron" && !cron) issues.push({ path: "body.cron", message: "is required" });
    if (body.duration_minutes === null || !Number.isInteger(body.duration_minutes) || body.duration_minutes < 1 || body.duration_minutes > 44_640)
      issues.push({ path: "body.duration_minutes", message: "each occurrence needs a length from 1 to 44640 minutes" });
    try {
      if (rrule) parseRrule(rrule);
      if (cron && isValidTimeZone(body.timezone)) parseCron(cron, body.timezone);
    } catch (err) {
      if (!(err instanceof RecurrenceError)) throw err;
      issues.push({ path: rrule ? "body.rrule" : "body.cron", message: err.message });
    }
  }
  if (issues.length) throw new FormIssuesError(issues);
  return body;
}

/** The next few occurrence starts of a window as the scheduler will compute them (empty when none or invalid). */
export function upcomingStarts(b: Pick<WindowBody, "starts_at" | "ends_at" | "rrule" | "cron" | "duration_minutes" | "timezone">, now: number, count = 3): number[] {
  const startsAt = b.starts_at ? Date.parse(b.starts_at) : null;
  const endsAt = b.ends_at ? Date.parse(b.ends_at) : null;
  const durationMs = (b.duration_minutes ?? 0) * 60_000;
  let timing: WindowTiming;
  if (b.rrule) timing = { kind: "rrule", rrule: b.rrule, timezone: b.timezone, durationMs, startsAt: startsAt ?? now, endsAt };
  else if (b.cron) timing = { kind: "cron", cron: b.cron, timezone: b.timezone, durationMs, startsAt, endsAt };
  else if (startsAt !== null && endsAt !== null) timing = { kind: "once", startsAt, endsAt };
  else return [];
  try {
    const rec = compileTiming(timing);
    const out: number[] = [];
    let t = now;
    while (out.length < count) {
      const next = rec.nextStart(t);
      if (next === null) break;
      out.push(next);
      t = next + 1;
    }
    return out;
  } catch {
    return [];
  }
}
