import type { Sql } from "../../db/client.ts";
import { buildHypertableKey, buildPartitionKey, dropOldKey, hypertableHasRows, partitionsWithoutNewKey, resultKeyState } from "../../db/results/result-key.ts";
import { storageMode } from "../../db/results/storage-mode.ts";

export interface RekeyOutcome {
  /** Partitions (plain storage) or the hypertable (TimescaleDB) given an index of the new key by this run. */
  built: string[];
  /** The old key was dropped by this run. */
  droppedOldKey: boolean;
  /** Nothing is left to do: the new key is valid and the old one gone. */
  done: boolean;
  /**
   * TimescaleDB with rows: the build holds the table against writes while it runs, so it waits for an operator's
   * `bun run cli results:rekey` (docs/operations.md) rather than stall ingest unasked.
   */
  waitsForOperator: boolean;
}

export interface RekeyOptions {
  /** Cancels the build in progress (the next run drops what it left and starts that partition again). */
  signal?: AbortSignal;
  /** TimescaleDB: build even though it holds check_results against writes until it ends (the CLI's command). */
  lockingBuild?: boolean;
}

/**
 * Moves the raw results' unique key to (scheduled_at, job_id) on a database whose rows predate migration
 * 20261127140000 (a fresh one is done by the migration itself). Plain storage builds each remaining partition's index
 * concurrently, without blocking ingest, then drops the old key: run by the scheduler's housekeeping until done,
 * each run resuming where the last stopped. TimescaleDB builds a unique index only in one transaction that holds
 * the table against writes, so with rows it is built only when `lockingBuild` says so (the CLI).
 */
export async function rekeyResults(sql: Sql, o: RekeyOptions = {}): Promise<RekeyOutcome> {
  const { signal } = o;
  const built: string[] = [];
  let state = await resultKeyState(sql);
  let waitsForOperator = false;
  if (!state.valid) {
    try {
      if ((await storageMode(sql)) === "timescale") {
        if (o.lockingBuild || !(await hypertableHasRows(sql))) {
          await buildHypertableKey(sql, signal);
          built.push("check_results");
        } else {
          waitsForOperator = true;
        }
      } else {
        for (const partition of await partitionsWithoutNewKey(sql)) {
          if (signal?.aborted) break;
          await buildPartitionKey(sql, partition, signal);
          built.push(partition);
        }
      }
    } catch (err) {
      // 57014: the build was cancelled because the process stops; the next run starts that partition again.
      if (!(signal?.aborted && (err as { code?: string }).code === "57014")) throw err;
    }
    state = await resultKeyState(sql);
  }
  const droppedOldKey = state.valid && state.oldKey && !signal?.aborted ? await dropOldKey(sql) : false;
  return { built, droppedOldKey, done: state.valid && (!state.oldKey || droppedOldKey), waitsForOperator };
}
