import { withTx, type Sql } from "../../db/client.ts";
import { addToRollups, deferLateResults, insertResults, updateMonitorStates, type InsertedResult, type MonitorStateUpdate, type ResultRecord } from "../../db/queries/results.ts";
import { lockRollupWatermarkShared } from "../../db/results/rollup-watermark.ts";
import { storageMode } from "../../db/results/storage-mode.ts";
import { rollupDeltas } from "./rollup-deltas.ts";
import { DAY_MS, floorTo, HOUR_MS } from "./segments.ts";
import type { CheckResultInput } from "./types.ts";

/** A monitor whose status moved: publish `monitor.status_changed` for it. */
interface StatusChange {
  org_id: string;
  monitor_id: string;
  /** 'pending' for a monitor's first result. */
  from: string;
  to: string;
  at: Date;
}

export interface StoreOutcome {
  /** The results stored by this call; a duplicate (same job_id and scheduled_at) is left out. */
  inserted: InsertedResult[];
  statusChanges: StatusChange[];
}

const toIso = (t: Date | string) => (t instanceof Date ? t : new Date(t)).toISOString();

function toRecord(r: CheckResultInput): ResultRecord {
  return {
    job_id: r.job_id,
    org_id: r.org_id,
    monitor_id: r.monitor_id,
    location: r.location,
    location_type: r.location_type,
    scheduled_at: toIso(r.scheduled_at),
    checked_at: toIso(r.checked_at),
    status: r.status,
    duration_ms: Math.max(0, Math.round(r.duration_ms)),
    error: r.error ?? null,
    data: r.data ?? {},
  };
}

/** Per monitor, the newest inserted result that ran (an 'unavailable' result leaves the monitor as it is). */
function latestPerMonitor(rows: InsertedResult[]): MonitorStateUpdate[] {
  const latest = new Map<string, InsertedResult>();
  for (const r of rows) {
    if (r.status === "unavailable") continue;
    const cur = latest.get(r.monitor_id);
    if (!cur || r.checked_at > cur.checked_at) latest.set(r.monitor_id, r);
  }
  return [...latest.values()].map((r) => ({
    org_id: r.org_id,
    monitor_id: r.monitor_id,
    status: r.status as MonitorStateUpdate["status"],
    checked_at: r.checked_at,
    duration_ms: r.duration_ms,
  }));
}

/**
 * Stores a batch of results once each, in one transaction with the monitors' current state. Plain
 * PostgreSQL: the results due before the rollup watermark's hour (late ones) are added to the hourly
 * rollup here, and to the daily one when before the watermark's day; the rest of them is left to the
 * closer (rollup_late), and the others stay raw until the closer rolls them up (rollup-closer.ts). TimescaleDB's
 * continuous aggregates roll up by themselves. A deadlock with a concurrent batch is retried when
 * this call owns the transaction; given one, it writes in it (no savepoint).
 */
export async function storeResults(sql: Sql, results: readonly CheckResultInput[]): Promise<StoreOutcome> {
  if (results.length === 0) return { inserted: [], statusChanges: [] };
  const rollups = (await storageMode(sql)) === "partitioned";
  const records = results.map(toRecord);
  const ownsTx = typeof (sql as { begin?: unknown }).begin === "function";
  // In a caller's transaction, at its own level, never in a savepoint: the rollup closer tells the rows
  // committed after its read by their transaction id against its snapshot, which lists running
  // transactions but not their subtransactions (db/results/rollup-watermark.ts, notSeenBy).
  const inTx = <T>(fn: (tx: Sql) => Promise<T>) => (ownsTx ? withTx(sql, fn) : fn(sql));
  for (let attempt = 1; ; attempt++) {
    try {
      return await inTx(async (tx) => {
        // First, so that a closer holding the lock has committed and this batch sees its watermark.
        const watermark = rollups ? await lockRollupWatermarkShared(tx) : null;
        const inserted = await insertResults(tx, records);
        if (watermark) {
          // Late results before the watermark's hour go to their hourly rows here, and to their daily rows
          // unless of the watermark's day: from an hour's last step to its commit the closer holds those, and
          // this batch holds the lock it waits for, so their part waits for the closer (rollup_late, marked
          // hourly_done); readers never read the watermark's day from daily rows. Late results of the
          // watermark's hour wait for the closer whole: it holds that hour's rows from its first read.
          const hour = floorTo(watermark.getTime(), HOUR_MS);
          const day = floorTo(watermark.getTime(), DAY_MS);
          const late = inserted.filter((r) => r.scheduled_at < watermark);
          const beforeHour = late.filter((r) => r.scheduled_at.getTime() < hour);
          const ofDay = beforeHour.filter((r) => r.scheduled_at.getTime() >= day);
          const deltas = rollupDeltas(beforeHour);
          const daily = ofDay.length === 0 ? deltas.daily : rollupDeltas(beforeHour.filter((r) => r.scheduled_at.getTime() < day)).daily;
          await addToRollups(tx, deltas.hourly, daily);
          await deferLateResults(tx, ofDay, { hourlyDone: true });
          await deferLateResults(tx, late.filter((r) => r.scheduled_at.getTime() >= hour));
        }
        const moved = await updateMonitorStates(tx, latestPerMonitor(inserted));
        const statusChanges = moved
          .filter((m) => m.old_status !== m.new_status)
          .map((m) => ({ org_id: m.org_id, monitor_id: m.monitor_id, from: m.old_status, to: m.new_status, at: m.status_changed_at }));
        return { inserted, statusChanges };
      });
    } catch (err) {
      if (!ownsTx || attempt >= 3 || (err as { code?: string }).code !== "40P01") throw err;
    }
  }
}
