import type { Sql } from "../client.ts";

const ORIGIN = "2000-01-01T00:00:00Z";

/** A piece of SQL spliced into a statement. */
type Fragment = ReturnType<Sql["unsafe"]>;

/**
 * Plain mode: the rollup watermark without a lock. It only moves forward and everything due before
 * it stays in the rollups, so a reader may use a value that is already a little old.
 */
export async function selectRollupWatermark(sql: Sql): Promise<Date> {
  const [row] = await sql<{ t: Date }[]>`select closed_through as t from rollup_watermark`;
  if (!row) throw new Error("rollup_watermark is empty: run the migrations");
  return row.t;
}

/**
 * Ingest, inside its transaction: the watermark, read after taking its lock in SHARE mode (held until
 * commit). The hourly rollup holds the results due before it, the daily one those due before its hour.
 */
export async function lockRollupWatermarkShared(sql: Sql): Promise<Date> {
  const [row] = await sql<{ t: Date }[]>`select rollup_watermark_shared() as t`;
  return row!.t;
}

/**
 * The closer and rebuilds, inside their transaction: the watermark, read after taking its lock
 * exclusively. With `timeoutMs` the wait is bounded: past it the statement fails with 55P03
 * (lock_not_available) and the transaction is lost; the closer then retries with the lock first.
 */
export async function lockRollupWatermarkExclusive(sql: Sql, o: { timeoutMs?: number } = {}): Promise<Date> {
  const bounded = o.timeoutMs !== undefined;
  if (bounded) await sql`select set_config('lock_timeout', ${`${Math.max(1, Math.round(o.timeoutMs!))}ms`}, true)`;
  const [row] = await sql<{ t: Date }[]>`select rollup_watermark_exclusive() as t`;
  if (bounded) await sql`select set_config('lock_timeout', '0', true)`;
  return row!.t;
}

/**
 * The closer's settings for its transaction: one process per statement (a parallel plan would take
 * both cores of a small machine away from the checks for a second, and merging partial histograms
 * costs more than it saves) and memory enough to aggregate a minute of 100,000 monitors in one pass.
 */
export async function useCloserSettings(sql: Sql): Promise<void> {
  // The step rests between its parts inside its transaction (seconds, up to 45 s in all): a server that ends idle
  // transactions sooner (idle_in_transaction_session_timeout, set by some managed services) must not end this one.
  await sql`select set_config('max_parallel_workers_per_gather', '0', true), set_config('work_mem', '64MB', true),
    set_config('idle_in_transaction_session_timeout', '0', true)`;
}

export interface ClosedRange {
  /** (monitor, location, hour) rows added to or created in the hourly rollup. */
  series: number;
  results: number;
}

/** Part `part` of `parts` (a power of two) of the monitors, by a hash of the monitor id. */
export interface MonitorPart {
  part: number;
  parts: number;
}

/**
 * The closer: adds the raw results due in [from, to) that are committed now to the hourly rollup (seen
 * by no one before this transaction commits), of one part of the monitors (all by default), and
 * returns the snapshot they were read in. Before the watermark lock, the batches committing after that
 * snapshot are added under it by rollUpCommittedSince; with the lock already held, nothing can commit
 * meanwhile.
 */
export async function rollUpCommitted(sql: Sql, from: Date, to: Date, p: MonitorPart = { part: 0, parts: 1 }): Promise<ClosedRange & { snapshot: string }> {
  const raw = sql`check_results where scheduled_at >= ${from} and scheduled_at < ${to} ${p.parts > 1 ? sql`and ${partOf(sql, p.parts)} = ${p.part}` : sql``}`;
  return rollUp(sql, raw);
}

/** How many raw results are due in [from, to) (a step's size, before it is read: about 0.3 s of PostgreSQL for 300,000). */
export async function countDue(sql: Sql, from: Date, to: Date): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from check_results where scheduled_at >= ${from} and scheduled_at < ${to}`;
  return row!.n;
}

/**
 * The closer, under the lock: adds the raw results due in [from, to) that the snapshot of their
 * monitors' part (rollUpCommitted's, `snapshots[part]`) did not see. Every ingest batch that read the
 * watermark before this lock has committed by now, and none after it can store a result in [from, to)
 * without rolling it up itself once the watermark moves. Those due before `dailyBefore` go to the daily
 * rollup too (their hour is in it already: addHoursToDaily ran before the lock).
 */
export async function rollUpCommittedSince(sql: Sql, from: Date, to: Date, snapshots: readonly string[], dailyBefore?: Date): Promise<ClosedRange> {
  const notSeen =
    snapshots.length === 1
      ? notSeenBy(sql, snapshots[0]!)
      : sql`(case ${partOf(sql, snapshots.length)} ${snapshots.map((s, i) => sql`when ${i} then ${notSeenBy(sql, s)} `)} end)`;
  const { series, results } = await rollUp(sql, sql`check_results where scheduled_at >= ${from} and scheduled_at < ${to} and ${notSeen}`, dailyBefore);
  return { series, results };
}

/**
 * Moves the watermark from `from` to `to`, under the lock, after the results due between them are
 * in the hourly rollup. When that completes hours, adds their hourly rows to the daily rollup (so a
 * daily row is written once an hour, not once a step: daily rows hold the results due before the
 * watermark's hour), unless the step did so before the lock (`dailyDone`).
 */
export async function advanceRollupWatermark(sql: Sql, from: Date, to: Date, o: { dailyDone?: boolean } = {}): Promise<void> {
  await sql`update rollup_watermark set closed_through = ${to}`;
  if (!o.dailyDone) await addHoursToDaily(sql, from, to);
}

/**
 * Adds the hourly rows of the hours a step from `from` to `to` completes (from the hour holding `from`
 * up to the one holding `to`) to the daily rollup. The closer does it before the watermark lock, when
 * those hourly rows hold all but the results committed since its read and the late ones, which it adds
 * to both rollups under the lock; ingest writes no daily row of the watermark's day (its late results
 * wait in rollup_late), so the rows held meanwhile are none it waits for.
 */
export async function addHoursToDaily(sql: Sql, from: Date, to: Date): Promise<void> {
  const hours = [new Date(Math.floor(from.getTime() / HOUR_MS) * HOUR_MS), new Date(Math.floor(to.getTime() / HOUR_MS) * HOUR_MS)] as const;
  if (hours[0] >= hours[1]) return;
  // One hour (every minute step that completes one): each series has one hourly row in it, so its rows go to the
  // daily rollup as they are. Summing them per day (a PL/pgSQL histogram step per row) took 2.1 s of the lock at
  // 100,000 series, against 0.04 s to read them (docs/performance.md).
  const rows =
    hours[1].getTime() - hours[0].getTime() === HOUR_MS
      ? sql`
        select org_id, monitor_id, location, date_bin('1 day', bucket, ${ORIGIN}::timestamptz), total, up, down, degraded,
          timeout, unavailable, duration_sum, duration_max, hist
        from check_results_hourly where bucket = ${hours[0]}`
      : sql`
        select org_id, monitor_id, location, date_bin('1 day', bucket, ${ORIGIN}::timestamptz), sum(total), sum(up), sum(down), sum(degraded),
          sum(timeout), sum(unavailable), sum(duration_sum), max(duration_max), result_hist_sum(hist)
        from check_results_hourly where bucket >= ${hours[0]} and bucket < ${hours[1]}
        group by 1, 2, 3, 4`;
  await sql`${upsert(sql, "check_results_daily", rows)}`;
}

/**
 * The closer, under the lock: moves the late results ingest kept for it (rollup_late) into the hourly
 * rollup (but those ingest added there itself, `hourly_done`), and those due before `dailyBefore` (hours
 * already in the daily rollup) into the daily one. Returns how many.
 */
export async function foldLateResults(sql: Sql, dailyBefore: Date): Promise<number> {
  const [row] = await sql<{ results: number }[]>`
    with d as (delete from rollup_late returning *), agg as (${aggregateHourly(sql, sql`d where not hourly_done`)}), h as (
      ${upsert(sql, "check_results_hourly", sql`select * from agg order by org_id, monitor_id, bucket, location`)}
    ), every_hour as (${aggregateHourly(sql, sql`d`)}), dd as (${upsertDaily(sql, "every_hour", dailyBefore)})
    select coalesce(sum(total), 0)::int as results from every_hour`;
  return row!.results;
}

/**
 * Raw results (`source` follows FROM) into the hourly rollup, set-based, keys in order (so two writers
 * lock rollup rows in one order), and those due before `dailyBefore` into the daily one too. Returns the
 * snapshot of this statement's read.
 */
async function rollUp(sql: Sql, source: Fragment, dailyBefore?: Date): Promise<ClosedRange & { snapshot: string }> {
  const [row] = await sql<(ClosedRange & { snapshot: string })[]>`
    with agg as (${aggregateHourly(sql, source)}), h as (
      ${upsert(sql, "check_results_hourly", sql`select * from agg order by org_id, monitor_id, bucket, location`)}
    ) ${dailyBefore ? sql`, dd as (${upsertDaily(sql, "agg", dailyBefore)})` : sql``}
    select pg_current_snapshot()::text as snapshot, count(*)::int as series, coalesce(sum(total), 0)::int as results from agg`;
  return row!;
}

/** In a statement with the CTE `cte` (hourly rows): its rows of hours before `before`, summed per day, into the daily rollup. */
function upsertDaily(sql: Sql, cte: "agg" | "every_hour", before: Date) {
  return upsert(
    sql,
    "check_results_daily",
    sql`
      select org_id, monitor_id, location, date_bin('1 day', bucket, ${ORIGIN}::timestamptz) as day, sum(total), sum(up), sum(down), sum(degraded),
        sum(timeout), sum(unavailable), sum(duration_sum), max(duration_max), result_hist_sum(hist)
      from ${sql.unsafe(cte)} where bucket < ${before}
      group by 1, 2, 3, 4 order by 1, 2, 4, 3`,
  );
}

/** The part (0 … parts − 1, parts a power of two) a row's monitor falls in. */
const partOf = (sql: Sql, parts: number) => sql`(hashtext(monitor_id) & ${parts - 1})`;

/** Results (org_id, monitor_id, location, scheduled_at, status, duration_ms) as hourly rollup rows; `source` follows FROM. */
function aggregateHourly(sql: Sql, source: Fragment) {
  return sql`
    select org_id, monitor_id, location, date_bin('1 hour', scheduled_at, ${ORIGIN}::timestamptz) as bucket,
      count(*)::int as total, count(*) filter (where status = 'up')::int as up, count(*) filter (where status = 'down')::int as down,
      count(*) filter (where status = 'degraded')::int as degraded, count(*) filter (where status = 'timeout')::int as timeout,
      count(*) filter (where status = 'unavailable')::int as unavailable,
      coalesce(sum(duration_ms) filter (where status <> 'unavailable'), 0)::bigint as duration_sum,
      max(duration_ms) filter (where status <> 'unavailable') as duration_max,
      result_duration_hist(duration_ms) filter (where status <> 'unavailable') as hist
    from ${source}
    group by 1, 2, 3, 4`;
}

const HOUR_MS = 3_600_000;

/**
 * A row's transaction (xmin) was not yet committed as of `snapshot`: it started at or after the
 * snapshot's xmax, or was in progress then. Compared through age() (transactions back from this
 * transaction's reference point, the same for every call in it), which is cheap per row and needs
 * no widening of 32-bit ids; the rows asked about are minutes old, far inside 2^31 transactions.
 * Frozen ids have the greatest age: seen. A snapshot lists running transactions but not their
 * subtransactions, so a row written in a savepoint of a transaction running at the snapshot would be
 * taken as seen: check_results is written only by storeResults, never in a savepoint.
 */
function notSeenBy(sql: Sql, snapshot: string) {
  const xid = (x: ReturnType<Sql>) => sql`((${x})::text::bigint % 4294967296)::text::xid`;
  return sql`(
    age(xmin) <= (select age(${xid(sql`pg_snapshot_xmax(${snapshot}::pg_snapshot)`)}))
    or xmin = any(array(select ${xid(sql`x`)} from pg_snapshot_xip(${snapshot}::pg_snapshot) as x))
  )`;
}

function upsert(sql: Sql, table: "check_results_hourly" | "check_results_daily", rows: Fragment) {
  return sql`
    insert into ${sql(table)} as r (org_id, monitor_id, location, bucket, total, up, down, degraded, timeout, unavailable, duration_sum, duration_max, hist)
    ${rows}
    on conflict (org_id, monitor_id, bucket, location) do update set
      total = r.total + excluded.total, up = r.up + excluded.up, down = r.down + excluded.down,
      degraded = r.degraded + excluded.degraded, timeout = r.timeout + excluded.timeout,
      unavailable = r.unavailable + excluded.unavailable, duration_sum = r.duration_sum + excluded.duration_sum,
      duration_max = greatest(r.duration_max, excluded.duration_max), hist = result_hist_add_delta(r.hist, excluded.hist)`;
}
