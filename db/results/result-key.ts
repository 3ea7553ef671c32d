import { withTx, type Sql } from "../client.ts";

/**
 * The raw results' unique key, due time first: check_results_due_job_key on (scheduled_at, job_id) replaces the
 * constraint check_results_job_key on (job_id, scheduled_at) (migration 20261127140000, docs/results-and-uptime.md).
 * These are the steps housekeeping takes on a database whose rows were there before: each builds without blocking
 * ingest, and the old key goes once the new one is valid.
 */

const NEW_KEY = "check_results_due_job_key";
const OLD_KEY = "check_results_job_key";

export interface ResultKeyState {
  /** The new key exists and is valid (every partition, or every chunk, has it). */
  valid: boolean;
  /** The old key is still there (ingest's `on conflict` then checks both). */
  oldKey: boolean;
}

export async function resultKeyState(sql: Sql): Promise<ResultKeyState> {
  const [row] = await sql<{ valid: boolean | null; old_key: boolean }[]>`
    select (select indisvalid from pg_index where indexrelid = to_regclass(${NEW_KEY})) as valid,
      exists (select 1 from pg_constraint where conname = ${OLD_KEY} and conrelid = to_regclass('check_results')) as old_key`;
  return { valid: row?.valid ?? false, oldKey: row?.old_key ?? false };
}

/** Plain storage: the partitions with no index attached to the new key yet, smallest first. */
export async function partitionsWithoutNewKey(sql: Sql): Promise<string[]> {
  const rows = await sql<{ name: string }[]>`
    select c.relname as name from pg_inherits h join pg_class c on c.oid = h.inhrelid
    where h.inhparent = 'check_results'::regclass and to_regclass(${NEW_KEY}) is not null
      and not exists (
        select 1 from pg_index i join pg_inherits hi on hi.inhrelid = i.indexrelid
        where i.indrelid = c.oid and hi.inhparent = to_regclass(${NEW_KEY}))
    order by pg_relation_size(c.oid), 1`;
  return rows.map((r) => r.name);
}

/** The running statement is cancelled when `signal` aborts (a build can take minutes on a large day). */
async function cancellable<T>(query: Promise<T> & { cancel(): unknown }, signal?: AbortSignal): Promise<T> {
  if (!signal) return query;
  const cancel = () => void query.cancel();
  if (signal.aborted) cancel();
  signal.addEventListener("abort", cancel, { once: true });
  try {
    return await query;
  } finally {
    signal.removeEventListener("abort", cancel);
  }
}

/**
 * Plain storage: builds one partition's index of the new key with CREATE INDEX CONCURRENTLY (ingest goes on writing
 * to the partition meanwhile) and attaches it to the parent index. An index left invalid by a build that was
 * cancelled or failed is dropped first. Run it on a pool, outside any transaction.
 */
export async function buildPartitionKey(sql: Sql, partition: string, signal?: AbortSignal): Promise<void> {
  const index = `${partition}_scheduled_at_job_id_idx`;
  const [existing] = await sql<{ valid: boolean }[]>`
    select i.indisvalid as valid from pg_index i where i.indexrelid = to_regclass(${index}) and i.indrelid = to_regclass(${partition})`;
  if (existing && !existing.valid) await cancellable(sql`drop index concurrently if exists ${sql(index)}`, signal);
  if (!existing?.valid) await cancellable(sql`create unique index concurrently ${sql(index)} on ${sql(partition)} (scheduled_at, job_id)`, signal);
  await sql`alter index ${sql(NEW_KEY)} attach partition ${sql(index)}`;
}

/**
 * TimescaleDB: builds the new key on the hypertable and every chunk in one transaction, which holds the table
 * against writes until it ends: TimescaleDB builds a unique index neither concurrently nor one chunk per transaction.
 * Compressed chunks cost next to nothing (their rows are in the compressed table); the chunks not compressed yet
 * (the last seven days) cost the build. Cancelled with `signal`, it leaves nothing behind.
 */
export async function buildHypertableKey(sql: Sql, signal?: AbortSignal): Promise<void> {
  await cancellable(sql`create unique index if not exists ${sql(NEW_KEY)} on check_results (scheduled_at, job_id)`, signal);
}

/** TimescaleDB: whether the hypertable holds any row (with none, building the key costs nothing). */
export async function hypertableHasRows(sql: Sql): Promise<boolean> {
  const [row] = await sql<{ any: boolean }[]>`select exists (select 1 from check_results) as any`;
  return row?.any ?? false;
}

/**
 * Drops the old key once the new one is valid; false when it could not take the table's lock within `lockTimeoutMs`
 * (a long reader holds it: try again later rather than queue ingest behind the wait).
 */
export async function dropOldKey(sql: Sql, lockTimeoutMs = 2_000): Promise<boolean> {
  try {
    await withTx(sql, async (tx) => {
      await tx`select set_config('lock_timeout', ${`${lockTimeoutMs}ms`}, true)`;
      const [row] = await tx<{ valid: boolean | null }[]>`select indisvalid as valid from pg_index where indexrelid = to_regclass(${NEW_KEY})`;
      if (!row?.valid) throw new Error(`${NEW_KEY} is not valid yet: the old key stays`);
      await tx`alter table check_results drop constraint if exists ${sql(OLD_KEY)}`;
    });
    return true;
  } catch (err) {
    if ((err as { code?: string }).code === "55P03") return false;
    throw err;
  }
}
