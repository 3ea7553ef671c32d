import { windowStateNow } from "../../../domain/maintenance/service.ts";
import type { MaintenanceWindowRow } from "../../../db/queries/maintenance-windows.ts";

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function toWindowView(w: MaintenanceWindowRow, now = Date.now()) {
  const s = windowStateNow(w, now);
  return {
    id: w.id,
    name: w.name,
    description: w.description,
    kind: w.rrule ? ("rrule" as const) : w.cron ? ("cron" as const) : ("once" as const),
    starts_at: w.starts_at?.toISOString() ?? null,
    ends_at: w.ends_at?.toISOString() ?? null,
    rrule: w.rrule,
    cron: w.cron,
    duration_minutes: w.duration_minutes,
    timezone: w.timezone,
    monitor_ids: w.monitor_ids,
    tags: w.tags,
    pause_monitors: w.pause_monitors,
    suppress_alerts: w.suppress_alerts,
    key: w.config_key ?? null,
    state: s.state,
    current_ends_at: iso(s.currentEndsAt),
    next_starts_at: iso(s.nextStartsAt),
    created_at: w.created_at.toISOString(),
    updated_at: w.updated_at.toISOString(),
  };
}
