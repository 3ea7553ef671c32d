import type { Sql } from "../../db/client.ts";
import { suppressingSpansOf } from "../../domain/maintenance/active.ts";
import { type MaintenanceWindowRow, windowsForMonitor } from "../../db/queries/maintenance-windows.ts";
import type { QuietSpan } from "../engine/state-machine.ts";
import type { MonitorInfo } from "../../db/queries/alert-monitors.ts";

/** Where the engine learns about maintenance: the suppressing windows' occurrences covering a monitor within [from, to]. */
export type QuietSpansOf = (sql: Sql, monitor: MonitorInfo, from: number, to: number) => Promise<QuietSpan[]>;

export const suppressingSpans: QuietSpansOf = async (sql, monitor, from, to) => suppressingSpansOf(await windowsForMonitor(sql, monitor.org_id, monitor.id, monitor.tags), from, to);

/** The same for one batch or tick: each monitor's windows are read once, however many alert states ask. */
export function batchSpans(sql: Sql): (monitor: MonitorInfo, from: number, to: number) => Promise<QuietSpan[]> {
  const windows = new Map<string, Promise<MaintenanceWindowRow[]>>();
  return async (monitor, from, to) => {
    if (!windows.has(monitor.id)) windows.set(monitor.id, windowsForMonitor(sql, monitor.org_id, monitor.id, monitor.tags));
    return suppressingSpansOf(await windows.get(monitor.id)!, from, to);
  };
}
