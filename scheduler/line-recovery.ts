import { browserEngineOf } from "../schemas/checks/browser-fields.ts";
import { dueAfter, dueAtOrAfter } from "./grid.ts";
import type { JobQueue } from "./job-queues.ts";

/** What of a scheduled monitor decides where and when its checks go. */
interface Routed {
  id: string;
  type: string;
  config: Readonly<Record<string, unknown>>;
  regions: readonly string[];
  runnerIds: readonly string[];
  phase: number;
  intervalMs: number;
}

/**
 * How far back a new leader rebuilds the last leader's lines (beyond the backfill window): a check waits in
 * line about (load / capacity − 1) intervals, and a line older than this comes from a leader long gone.
 */
export const LINE_RECOVERY_MS = 3_600_000;

/** Whether a monitor's checks go to this queue. */
export function routesTo(e: Routed, q: JobQueue): boolean {
  if (q.kind === "runner") return e.runnerIds.includes(q.location);
  return e.regions.includes(q.location) && browserEngineOf(e.type, e.config) === q.engine;
}

/**
 * The checks the last leader kept in one queue's line: handled as far as its watermark goes, never published.
 * They are the due times of the queue's monitors after the line's `releasedThrough` and up to `through` (from
 * where the new leader's schedule goes on). Each monitor once, at its place (its first such due time), for its
 * latest such due time; oldest first.
 */
export function recoverLine(entries: Iterable<Routed>, queue: JobQueue, releasedThrough: number, through: number): { monitorId: string; firstDue: number; due: number }[] {
  if (releasedThrough >= through) return [];
  const line: { monitorId: string; firstDue: number; due: number }[] = [];
  for (const e of entries) {
    if (!routesTo(e, queue)) continue;
    const firstDue = dueAfter(releasedThrough, e.phase, e.intervalMs);
    if (firstDue > through) continue;
    line.push({ monitorId: e.id, firstDue, due: dueAtOrAfter(through - e.intervalMs + 1, e.phase, e.intervalMs) });
  }
  return line.sort((a, b) => a.firstDue - b.firstDue);
}
