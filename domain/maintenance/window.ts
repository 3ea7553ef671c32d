import type { MaintenanceWindowRow } from "../../db/queries/maintenance-windows.ts";
import { compileTiming, isActiveAt, stateAt, type Recurrence, type WindowState, type WindowTiming } from "../../schemas/maintenance/recurrence.ts";

type TimingFields = Pick<MaintenanceWindowRow, "starts_at" | "ends_at" | "rrule" | "cron" | "duration_minutes" | "timezone">;

/** The stored fields as one of the three timing shapes. */
function timingOf(w: TimingFields): WindowTiming {
  const startsAt = w.starts_at?.getTime() ?? null;
  const endsAt = w.ends_at?.getTime() ?? null;
  const durationMs = (w.duration_minutes ?? 0) * 60_000;
  if (w.rrule) return { kind: "rrule", rrule: w.rrule, timezone: w.timezone, durationMs, startsAt: startsAt ?? 0, endsAt };
  if (w.cron) return { kind: "cron", cron: w.cron, timezone: w.timezone, durationMs, startsAt, endsAt };
  return { kind: "once", startsAt: startsAt!, endsAt: endsAt! };
}

const compiled = new WeakMap<MaintenanceWindowRow, Recurrence>();

export function recurrenceOf(w: MaintenanceWindowRow): Recurrence {
  let rec = compiled.get(w);
  if (!rec) {
    rec = compileTiming(timingOf(w));
    compiled.set(w, rec);
  }
  return rec;
}

export const windowStateAt = (w: MaintenanceWindowRow, t: number): WindowState => stateAt(recurrenceOf(w), t);

export const windowActiveAt = (w: MaintenanceWindowRow, t: number): boolean => isActiveAt(recurrenceOf(w), t);

/** Whether the window covers a monitor: listed by id, sharing a tag, or naming no monitors at all. */
export function coversMonitor(w: Pick<MaintenanceWindowRow, "monitor_ids" | "tags">, monitorId: string, tags: readonly string[]): boolean {
  if (w.monitor_ids.length === 0 && w.tags.length === 0) return true;
  return w.monitor_ids.includes(monitorId) || w.tags.some((t) => tags.includes(t));
}
