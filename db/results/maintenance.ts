import { withTx, type Sql } from "../client.ts";

const ORIGIN = "2000-01-01T00:00:00Z";

/** Plain mode: creates the partition of one UTC day (YYYY-MM-DD), moving its rows out of the default partition. */
export async function ensurePartition(sql: Sql, day: string): Promise<boolean> {
  const [row] = await sql<{ created: boolean }[]>`select check_results_ensure_partition(${day}::date) as created`;
  return row?.created ?? false;
}

/**
 * Plain mode: summarises the block ranges of the BRIN index on `scheduled_at` not summarised yet, in the partitions of
 * the UTC days from `from` to `to` (both included); returns how many ranges, or null when another process holds such
 * a partition for VACUUM or a summary of its own (this does not wait for it, nor cancel an autovacuum: the lock's wait
 * stays under deadlock_timeout). A BRIN scan visits every range not summarised, whatever it holds. autosummarize (off
 * since migration 20261127120000) only asked autovacuum to summarise each filled range: it records at most 256 such
 * requests at a time and drops the rest, so at a few hundred ranges a minute most stayed unsummarised until the
 * partition's next VACUUM, and every read of a minute visited every page inserted since. A pass over the index's
 * summaries costs ~0.1 µs a range (a day of 100,000 monitors at a 20 s interval ends near 1.2 million ranges). Its
 * own transaction.
 */
export async function summarizeNewRanges(sql: Sql, from: Date, to: Date): Promise<number | null> {
  try {
    return await withTx(sql, async (tx) => {
      await tx`set local lock_timeout = '50ms'`;
      const [row] = await tx<{ ranges: number }[]>`
        select coalesce(sum(brin_summarize_new_values(i.indexrelid)), 0)::int as ranges
        from generate_series(date_trunc('day', ${from}::timestamptz at time zone 'UTC'), date_trunc('day', ${to}::timestamptz at time zone 'UTC'), interval '1 day') as d
        join pg_index i on i.indrelid = to_regclass('check_results_p' || to_char(d, 'YYYYMMDD'))
        join pg_class ic on ic.oid = i.indexrelid
        join pg_am am on am.oid = ic.relam and am.amname = 'brin'`;
      return row!.ranges;
    });
  } catch (err) {
    if ((err as { code?: string }).code === "55P03") return null;
    throw err;
  }
}

/** Plain mode: UTC days (YYYY-MM-DD) that have rows in the default partition, i.e. no partition of their own. */
export async function defaultPartitionDays(sql: Sql): Promise<string[]> {
  const rows = await sql<{ day: string }[]>`
    select distinct to_char(date_bin('1 day', scheduled_at, ${ORIGIN}::timestamptz) at time zone 'UTC', 'YYYY-MM-DD') as day
    from check_results_default order by 1`;
  return rows.map((r) => r.day);
}

export async function deleteDefaultPartitionRowsBefore(sql: Sql, cutoff: Date): Promise<number> {
  const rows = await sql`delete from check_results_default where scheduled_at < ${cutoff}`;
  return rows.count;
}

/** Plain mode: drops the daily partitions that end on or before `cutoff`. */
export async function dropPartitionsBefore(sql: Sql, cutoff: Date): Promise<string[]> {
  const rows = await sql<{ name: string }[]>`select check_results_drop_partitions(${cutoff}) as name`;
  return rows.map((r) => r.name);
}

/** TimescaleDB: drops raw and rollup chunks wholly older than `cutoff`. */
export async function dropChunksBefore(sql: Sql, cutoff: Date): Promise<string[]> {
  const rows = await sql<{ name: string }[]>`
    select c::text as name from unnest(array['check_results', 'check_results_hourly', 'check_results_daily']) t,
      lateral drop_chunks(t, older_than => ${cutoff}::timestamptz) c`;
  return rows.map((r) => r.name);
}

/** The longest retention of any organisation's plan (of any plan when there is no organisation yet). */
export async function longestRetentionDays(sql: Sql): Promise<number> {
  const [row] = await sql<{ days: number | null }[]>`
    select coalesce(
      (select max((p.quotas->>'retention_days')::int) from organisations o join plans p on p.id = o.plan_id),
      (select max((quotas->>'retention_days')::int) from plans)) as days`;
  return row?.days ?? 3650;
}

export interface RetentionGroup {
  retention_days: number;
  org_ids: string[];
}

/** Organisations grouped by their plan's retention_days. */
export async function retentionGroups(sql: Sql): Promise<RetentionGroup[]> {
  return sql<RetentionGroup[]>`
    select (p.quotas->>'retention_days')::int as retention_days, array_agg(o.id order by o.id) as org_ids
    from organisations o join plans p on p.id = o.plan_id
    where p.quotas ? 'retention_days'
    group by 1 order by 1`;
}

export async function orgRetentionDays(sql: Sql, orgId: string): Promise<number | undefined> {
  const [row] = await sql<{ days: number | null }[]>`
    select (p.quotas->>'retention_days')::int as days from organisations o join plans p on p.id = o.plan_id where o.id = ${orgId}`;
  return row ? (row.days ?? undefined) : undefined;
}

/**
 * Deletes up to `limit` raw results of these organisations due before `cutoff`; returns how many.
 * The outer statement repeats the filter so TimescaleDB decompresses only the compressed batches that
 * can match (without it every compressed batch is decompressed and the delete fails at
 * timescaledb.max_tuples_decompressed_per_dml_transaction), and plain PostgreSQL prunes partitions.
 */
export async function deleteResultsBatch(sql: Sql, orgIds: string[], cutoff: Date, limit: number): Promise<number> {
  const rows = await sql`
    delete from check_results
    where org_id = any(${sql.array(orgIds)}::text[]) and scheduled_at < ${cutoff} and (job_id, scheduled_at) in (
      select job_id, scheduled_at from check_results
      where org_id = any(${sql.array(orgIds)}::text[]) and scheduled_at < ${cutoff} limit ${limit})`;
  return rows.count;
}

/**
 * The relations holding rollup rows: the tables in plain mode; with TimescaleDB the continuous
 * aggregates' materialization hypertables (a view cannot be deleted from, its hypertable can).
 */
export async function rollupRelations(sql: Sql, timescale: boolean): Promise<string[][]> {
  if (!timescale) return [["check_results_hourly"], ["check_results_daily"]];
  const rows = await sql<{ schema: string; name: string }[]>`
    select materialization_hypertable_schema as schema, materialization_hypertable_name as name
    from timescaledb_information.continuous_aggregates
    where view_name in ('check_results_hourly', 'check_results_daily') order by view_name desc`;
  return rows.map((r) => [r.schema, r.name]);
}

/** Deletes up to `limit` rollup rows of these organisations whose bucket starts before `cutoff`. */
export async function deleteRollupsBatch(sql: Sql, relation: string[], orgIds: string[], cutoff: Date, limit: number): Promise<number> {
  const rel = sql(relation.join("."));
  const rows = await sql`
    delete from ${rel} where (org_id, monitor_id, bucket, location) in (
      select org_id, monitor_id, bucket, location from ${rel}
      where org_id = any(${sql.array(orgIds)}::text[]) and bucket < ${cutoff} limit ${limit})`;
  return rows.count;
}

/** Deletes up to `limit` rollup rows of any organisation whose bucket starts before `cutoff`. */
export async function deleteAllRollupsBatch(sql: Sql, relation: string[], cutoff: Date, limit: number): Promise<number> {
  const rel = sql(relation.join("."));
  const rows = await sql`
    delete from ${rel} where (org_id, monitor_id, bucket, location) in (
      select org_id, monitor_id, bucket, location from ${rel} where bucket < ${cutoff} limit ${limit})`;
  return rows.count;
}

/**
 * Plain mode: recomputes the hourly and daily rollups of some monitors from `from` (a UTC day start)
 * from raw rows, e.g. after a bulk load or a repair: hourly rows from the results due before `to`,
 * daily rows from the hourly rows before `dailyTo` (≤ `to`; the rows of the day holding `to` are
 * replaced). Run it inside one transaction.
 */
export async function rebuildRollups(sql: Sql, orgId: string, monitorIds: string[], from: Date, to: Date, dailyTo: Date = to): Promise<void> {
  const ids = sql.array(monitorIds);
  // Late results the closer has not added yet are among the raw rows counted here.
  await sql`delete from rollup_late where org_id = ${orgId} and monitor_id = any(${ids}::text[]) and scheduled_at >= ${from} and scheduled_at < ${to}`;
  for (const table of ["check_results_hourly", "check_results_daily"]) {
    await sql`delete from ${sql(table)} where org_id = ${orgId} and monitor_id = any(${ids}::text[]) and bucket >= ${from} and bucket < ${to}`;
  }
  await sql`
    insert into check_results_hourly (org_id, monitor_id, location, bucket, total, up, down, degraded, timeout, unavailable, duration_sum, duration_max, hist)
    select org_id, monitor_id, location, date_bin('1 hour', scheduled_at, ${ORIGIN}::timestamptz),
      count(*), count(*) filter (where status = 'up'), count(*) filter (where status = 'down'),
      count(*) filter (where status = 'degraded'), count(*) filter (where status = 'timeout'),
      count(*) filter (where status = 'unavailable'),
      coalesce(sum(duration_ms) filter (where status <> 'unavailable'), 0),
      max(duration_ms) filter (where status <> 'unavailable'),
      result_duration_hist(duration_ms) filter (where status <> 'unavailable')
    from check_results
    where org_id = ${orgId} and monitor_id = any(${ids}::text[]) and scheduled_at >= ${from} and scheduled_at < ${to}
    group by 1, 2, 3, 4`;
  await sql`
    insert into check_results_daily (org_id, monitor_id, location, bucket, total, up, down, degraded, timeout, unavailable, duration_sum, duration_max, hist)
    select org_id, monitor_id, location, date_bin('1 day', bucket, ${ORIGIN}::timestamptz),
      sum(total), sum(up), sum(down), sum(degraded), sum(timeout), sum(unavailable), sum(duration_sum), max(duration_max), result_hist_sum(hist)
    from check_results_hourly
    where org_id = ${orgId} and monitor_id = any(${ids}::text[]) and bucket >= ${from} and bucket < ${dailyTo}
    group by 1, 2, 3, 4`;
}

/** TimescaleDB: materialises the hourly, then the daily continuous aggregate over [from, to) (null: unbounded). Not in a transaction. */
export async function refreshContinuousAggregates(sql: Sql, from: Date | null, to: Date | null): Promise<void> {
  await sql`call refresh_continuous_aggregate('check_results_hourly', ${from}::timestamptz, ${to}::timestamptz)`;
  await sql`call refresh_continuous_aggregate('check_results_daily', ${from}::timestamptz, ${to}::timestamptz)`;
}
