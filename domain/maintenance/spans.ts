import type { Actor } from "../access/actor.ts";
import type { Sql } from "../../db/client.ts";
import { validationError } from "../../core/errors.ts";
import { windowsForMonitor } from "../../db/queries/maintenance-windows.ts";
import { getMonitor } from "../monitors/service.ts";
import { recurrenceOf } from "./window.ts";

/** Occurrences listed at most (a minutely rule over 90 days would be many more). */
const MAX_SPANS = 1000;

export interface MaintenanceSpan {
  window_id: string;
  name: string;
  starts_at: Date;
  ends_at: Date;
  pause_monitors: boolean;
  suppress_alerts: boolean;
}

/**
 * Each occurrence of the maintenance windows covering a monitor (by id, by tag, or every monitor)
 * that overlaps [from, to), oldest first: the grey bands of its response-time chart.
 */
export async function monitorMaintenanceSpans(ctx: { sql: Sql; actor: Actor }, monitorId: string, from: Date, to: Date): Promise<MaintenanceSpan[]> {
  if (to.getTime() <= from.getTime()) throw validationError([{ path: "query.to", message: "must be after from" }], "from must be before to");
  if (to.getTime() - from.getTime() > 400 * 86_400_000) throw validationError([{ path: "query.to", message: "must be at most 400 days after from" }], "The range is at most 400 days");
  const monitor = await getMonitor(ctx, monitorId);
  const windows = await windowsForMonitor(ctx.sql, ctx.actor.orgId, monitor.id, monitor.tags);
  const spans: MaintenanceSpan[] = [];
  for (const w of windows) {
    const rec = recurrenceOf(w);
    for (const start of rec.startsBetween(from.getTime() - rec.durationMs + 1, to.getTime())) {
      spans.push({ window_id: w.id, name: w.name, starts_at: new Date(start), ends_at: new Date(start + rec.durationMs), pause_monitors: w.pause_monitors, suppress_alerts: w.suppress_alerts });
    }
  }
  return spans.sort((a, b) => a.starts_at.getTime() - b.starts_at.getTime() || a.window_id.localeCompare(b.window_id)).slice(0, MAX_SPANS);
}
