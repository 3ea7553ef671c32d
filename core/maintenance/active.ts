import type { Sql } from "../db/client.ts";
import { type MaintenanceWindowRow, windowsForMonitor } from "../../db/queries/maintenance-windows.ts";
import { windowActiveAt } from "./window.ts";

/**
 * The maintenance windows of the organisation covering the monitor that are in an
 * occurrence at `at`. Alerting reads `suppress_alerts` of these before notifying.
 */
export async function activeWindowsFor(sql: Sql, orgId: string, monitorId: string, tags: string[], at: Date = new Date()): Promise<MaintenanceWindowRow[]> {
  const rows = await windowsForMonitor(sql, orgId, monitorId, tags);
  return rows.filter((w) => windowActiveAt(w, at.getTime()));
}
