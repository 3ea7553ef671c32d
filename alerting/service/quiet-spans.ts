import type { Sql } from "../../db/client.ts";
import { suppressingSpansOf } from "../../domain/maintenance/active.ts";
import { type MaintenanceWindowRow, windowsForMonitor } from "../../db/queries/maintenance-windows.ts";
import type { QuietSpan } from "../engine/state-machine.ts";
import type { MonitorInfo } from "../../db/queries/alert-monitors.ts";

/** Where the engine learns about maintenance: the suppressing windows' occurrences covering a monitor within [from, to]. */
export type QuietSpansOf = (sql: Sql, monitor: MonitorInfo, from: number, to: number) => Promise<QuietSpan[]>;

export const suppressingSpans: QuietSpansOf = async (sql, monitor, from, to) => withPause(monitor, suppressingSpansOf(await windowsForMonitor(sql, monitor.org_id, monitor.id, monitor.tags), from, to));

/** The same for one batch or tick: each monitor's windows are read once, however many alert states ask. */
export function batchSpans(sql: Sql): (monitor: MonitorInfo, from: number, to: number) => Promise<QuietSpan[]> {
  const windows = new Map<string, Promise<MaintenanceWindowRow[]>>();
  return async (monitor, from, to) => {
    if (!windows.has(monitor.id)) windows.set(monitor.id, windowsForMonitor(sql, monitor.org_id, monitor.id, monitor.tags));
    return withPause(monitor, suppressingSpansOf(await windows.get(monitor.id)!, from, to));
  };
}

/**
 * A paused monitor is checked nowhere, so its firing alerts have nothing new to say: its latest pause is quiet time
 * like a suppressing window's, open-ended while it lasts (no reminder or escalation comes due, and the pause does not
 * count toward them after it). A monitor paused before pauses were timed counts as paused since any time.
 */
function withPause(monitor: Pick<MonitorInfo, "paused" | "paused_at" | "resumed_at">, spans: QuietSpan[]): QuietSpan[] {
  const start = monitor.paused_at?.getTime() ?? 0;
  let pause: QuietSpan | null = null;
  if (monitor.paused) pause = [start, Number.POSITIVE_INFINITY];
  else if (monitor.paused_at && monitor.resumed_at && monitor.resumed_at.getTime() > start) pause = [start, monitor.resumed_at.getTime()];
  if (!pause) return spans;
  return mergeSpans([...spans, pause]);
}

function mergeSpans(spans: QuietSpan[]): QuietSpan[] {
  const sorted = [...spans].sort((a, b) => a[0] - b[0]);
  const merged: QuietSpan[] = [];
  for (const [a, b] of sorted) {
    const last = merged[merged.length - 1];
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else merged.push([a, b]);
  }
  return merged;
}
