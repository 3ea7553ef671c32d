import type { Sql } from "../../db/client.ts";
import {
  defaultPartitionDays,
  deleteAllRollupsBatch,
  deleteDefaultPartitionRowsBefore,
  deleteResultsBatch,
  deleteRollupsBatch,
  dropChunksBefore,
  dropPartitionsBefore,
  ensurePartition,
  longestRetentionDays,
  orgRetentionDays,
  retentionGroups,
  rollupRelations,
} from "../../db/results/maintenance.ts";
import { storageMode } from "../../db/results/storage-mode.ts";
import { rollupsCompleteThrough } from "./rollup-closer.ts";
import { DAY_MS, floorTo } from "./segments.ts";

/** The first instant kept under a retention of `days`: the start of the UTC day `days` days before `now`. */
export function oldestKept(now: Date, days: number): Date {
  return new Date(floorTo(now.getTime(), DAY_MS) - days * DAY_MS);
}

const dayString = (t: number) => new Date(t).toISOString().slice(0, 10);

const ROLLUP_BATCH = 10_000;

/**
 * Where raw rows may be deleted up to: `cutoff`, but never at or after the rollup watermark (plain
 * PostgreSQL), since the rollups do not hold those rows yet (the closer would find them gone).
 */
async function rawCutoff(sql: Sql, cutoff: Date): Promise<Date> {
  const through = await rollupsCompleteThrough(sql);
  return through && through < cutoff ? through : cutoff;
}

export interface PartitionMaintenance {
  created: string[];
  dropped: string[];
}

/**
 * Run by the scheduler (hourly is plenty). Plain PostgreSQL: creates the daily partitions from
 * yesterday to `aheadDays` ahead, gives days that landed in the default partition their own, and
 * drops partitions (and deletes rollup rows) older than the longest retention, raw ones only before
 * the rollup watermark. TimescaleDB creates
 * chunks itself; there this only drops raw and rollup chunks older than the longest retention.
 */
export async function maintainPartitions(
  sql: Sql,
  now: Date,
  opts: { aheadDays?: number; maxRetentionDays?: number } = {},
): Promise<PartitionMaintenance> {
  const cutoff = oldestKept(now, opts.maxRetentionDays ?? (await longestRetentionDays(sql)));
  if ((await storageMode(sql)) === "timescale") return { created: [], dropped: await dropChunksBefore(sql, cutoff) };
  const today = floorTo(now.getTime(), DAY_MS);
  const days = new Set<string>();
  for (let i = -1; i <= (opts.aheadDays ?? 7); i++) days.add(dayString(today + i * DAY_MS));
  const raw = await rawCutoff(sql, cutoff);
  await deleteDefaultPartitionRowsBefore(sql, raw);
  for (const d of await defaultPartitionDays(sql)) days.add(d);
  const created: string[] = [];
  for (const d of [...days].sort()) if (await ensurePartition(sql, d)) created.push(`check_results_p${d.replaceAll("-", "")}`);
  const dropped = await dropPartitionsBefore(sql, raw);
  for (const rel of await rollupRelations(sql, false)) await drain(ROLLUP_BATCH, () => deleteAllRollupsBatch(sql, rel, cutoff, ROLLUP_BATCH));
  return { created, dropped };
}

export interface RetentionOutcome {
  deletedResults: number;
  deletedRollups: number;
}

/**
 * Deletes each organisation's results and rollups older than its plan's retention (raw results only
 * before the rollup watermark), `batchSize` rows per statement so no transaction grows large. Call
 * it with a pool, not inside a transaction.
 */
export async function enforceRetention(sql: Sql, now: Date, opts: { batchSize?: number } = {}): Promise<RetentionOutcome> {
  const batch = opts.batchSize ?? 5000;
  const relations = await rollupRelations(sql, (await storageMode(sql)) === "timescale");
  const out: RetentionOutcome = { deletedResults: 0, deletedRollups: 0 };
  for (const g of await retentionGroups(sql)) {
    const cutoff = oldestKept(now, g.retention_days);
    const raw = await rawCutoff(sql, cutoff);
    out.deletedResults += await drain(batch, () => deleteResultsBatch(sql, g.org_ids, raw, batch));
    for (const rel of relations) out.deletedRollups += await drain(batch, () => deleteRollupsBatch(sql, rel, g.org_ids, cutoff, batch));
  }
  return out;
}

/** Repeats a batch delete until a batch comes back short; returns the rows deleted. */
async function drain(batch: number, step: () => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await step();
    total += n;
    if (n < batch) return total;
  }
}

export interface Retention {
  retention_days: number;
  /** Results due before this instant (start of a UTC day) are deleted or about to be. */
  oldest_kept: Date;
}

/** The organisation's effective retention window (GET /retention); null for an unknown organisation. */
export async function getRetention(sql: Sql, orgId: string, now: Date = new Date()): Promise<Retention | null> {
  const days = await orgRetentionDays(sql, orgId);
  if (days === undefined) return null;
  return { retention_days: days, oldest_kept: oldestKept(now, days) };
}

