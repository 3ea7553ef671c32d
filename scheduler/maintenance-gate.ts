import { stateAt, type Recurrence, type WindowState } from "../schemas/maintenance/recurrence.ts";
import { coversMonitor, recurrenceOf } from "../domain/maintenance/window.ts";
import type { MaintenanceWindowRow } from "../db/queries/maintenance-windows.ts";

interface GateWindow {
  row: MaintenanceWindowRow;
  rec: Recurrence | null;
  /** The last answer and the span [from, state.until) it holds for. */
  from: number;
  state: WindowState | null;
}

/**
 * Answers "is this monitor paused by a maintenance window at t" for every due check. Each
 * window's state is computed once per change of state (a start or an end), not per check.
 */
export class MaintenanceGate {
  private byOrg = new Map<string, GateWindow[]>();

  constructor(private readonly onError: (err: unknown, windowId: string) => void = () => {}) {}

  /** Replaces every organisation's pausing windows. */
  replaceAll(rows: MaintenanceWindowRow[]): void {
    this.byOrg.clear();
    for (const row of rows) this.add(row);
  }

  /** Replaces one organisation's pausing windows. */
  replaceOrg(orgId: string, rows: MaintenanceWindowRow[]): void {
    this.byOrg.delete(orgId);
    for (const row of rows) if (row.org_id === orgId) this.add(row);
  }

  get windowCount(): number {
    let n = 0;
    for (const ws of this.byOrg.values()) n += ws.length;
    return n;
  }

  isPaused(m: { id: string; orgId: string; tags: readonly string[] }, t: number): boolean {
    const windows = this.byOrg.get(m.orgId);
    if (!windows) return false;
    for (const w of windows) {
      if (w.rec && coversMonitor(w.row, m.id, m.tags) && this.stateOf(w, t).active) return true;
    }
    return false;
  }

  private add(row: MaintenanceWindowRow): void {
    if (!row.pause_monitors) return;
    let rec: Recurrence | null = null;
    try {
      rec = recurrenceOf(row);
    } catch (err) {
      this.onError(err, row.id);
    }
    const list = this.byOrg.get(row.org_id) ?? [];
    list.push({ row, rec, from: 0, state: null });
    this.byOrg.set(row.org_id, list);
  }

  private stateOf(w: GateWindow, t: number): WindowState {
    if (w.state && t >= w.from && t < w.state.until) return w.state;
    w.state = stateAt(w.rec!, t);
    w.from = t;
    return w.state;
  }
}
