import type { Sql } from "../../db/client.ts";
import { type MaintenanceWindowRow, windowsForMonitor } from "../../db/queries/maintenance-windows.ts";
import { stateAt } from "../../schemas/maintenance/recurrence.ts";
import { recurrenceOf, windowActiveAt } from "./window.ts";

/**
 * The maintenance windows of the organisation covering the monitor that are in an
 * occurrence at `at`. Alerting reads `suppress_alerts` of these before notifying.
 */
export async function activeWindowsFor(sql: Sql, orgId: string, monitorId: string, tags: string[], at: Date = new Date()): Promise<MaintenanceWindowRow[]> {
  const rows = await windowsForMonitor(sql, orgId, monitorId, tags);
  return rows.filter((w) => windowActiveAt(w, at.getTime()));
}

/**
 * Occurrences of the windows with suppress_alerts covering the monitor that overlap [from, to],
 * merged and sorted; one covering `to` runs on to the end of its stretch. An alert's clock stops inside them.
 */
async function suppressingSpansFor(sql: Sql, orgId: string, monitorId: string, tags: string[], from: number, to: number): Promise<[number, number][]> {
  return suppressingSpansOf(await windowsForMonitor(sql, orgId, monitorId, tags), from, to);
}

/** suppressingSpansFor over windows already read (the monitor's, from windowsForMonitor). */
export function suppressingSpansOf(windows: MaintenanceWindowRow[], from: number, to: number): [number, number][] {
  const rows = windows.filter((w) => w.suppress_alerts);
  const spans: [number, number][] = [];
  for (const w of rows) {
    const rec = recurrenceOf(w);
    for (const start of rec.startsBetween(from - rec.durationMs + 1, to + 1)) spans.push([start, start + rec.durationMs]);
    const now = stateAt(rec, to);
    if (now.active && now.occurrenceStart !== null) spans.push([now.occurrenceStart, now.until]);
  }
  spans.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const [a, b] of spans) {
    const last = merged[merged.length - 1];
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else merged.push([a, b]);
  }
  return merged;
}
