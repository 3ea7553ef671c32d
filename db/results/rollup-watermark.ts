import type { Sql } from "../client.ts";

const ORIGIN = "2000-01-01T00:00:00Z";

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

/** The closer and rebuilds, inside their transaction: the watermark, read after taking its lock exclusively. */
export async function lockRollupWatermarkExclusive(sql: Sql): Promise<Date> {
  const [row] = await sql<{ t: Date }[]>`select rollup_watermark_exclusive() as t`;
  return row!.t;
}

export interface ClosedRange {
  /** (monitor, location, hour) rows added to or created in the hourly rollup. */
  series: number;
  results: number;
}

/**
 * Adds the raw results due from the watermark to `to` to the hourly rollup in one statement,
 * set-based, and moves the watermark to `to`; when that completes hours, adds their hourly rows to
 * the daily rollup (so a daily row is written once an hour, not once a step: daily rows hold the
 * results due before the watermark's hour). Run it in a transaction holding the watermark lock
 * exclusively (lockRollupWatermarkExclusive), with `to` after the watermark.
 */
export async function closeRollupRange(sql: Sql, to: Date): Promise<ClosedRange> {
  const [row] = await sql<(ClosedRange & { prev: Date })[]>`
    with prev as (select closed_through from rollup_watermark), agg as (
      select org_id, monitor_id, location, date_bin('1 hour', scheduled_at, ${ORIGIN}::timestamptz) as bucket,
        count(*)::int as total, count(*) filter (where status = 'up')::int as up, count(*) filter (where status = 'down')::int as down,
        count(*) filter (where status = 'degraded')::int as degraded, count(*) filter (where status = 'timeout')::int as timeout,
        count(*) filter (where status = 'unavailable')::int as unavailable,
        coalesce(sum(duration_ms) filter (where status <> 'unavailable'), 0)::bigint as duration_sum,
        max(duration_ms) filter (where status <> 'unavailable') as duration_max,
        result_duration_hist(duration_ms) filter (where status <> 'unavailable') as hist
      from check_results
      where scheduled_at >= (select closed_through from prev) and scheduled_at < ${to}
      group by 1, 2, 3, 4
    ), h as (
      ${upsert(sql, "check_results_hourly", sql`select * from agg`)}
    ), w as (
      update rollup_watermark set closed_through = ${to}
    )
    select (select closed_through from prev) as prev, count(*)::int as series, coalesce(sum(total), 0)::int as results from agg`;
  const hours = [new Date(Math.floor(row!.prev.getTime() / HOUR_MS) * HOUR_MS), new Date(Math.floor(to.getTime() / HOUR_MS) * HOUR_MS)] as const;
  if (hours[0] < hours[1]) {
    await sql`
      ${upsert(
        sql,
        "check_results_daily",
        sql`
        select org_id, monitor_id, location, date_bin('1 day', bucket, ${ORIGIN}::timestamptz), sum(total), sum(up), sum(down), sum(degraded),
          sum(timeout), sum(unavailable), sum(duration_sum), max(duration_max), result_hist_sum(hist)
        from check_results_hourly where bucket >= ${hours[0]} and bucket < ${hours[1]}
        group by 1, 2, 3, 4`,
      )}`;
  }
  return { series: row!.series, results: row!.results };
}

const HOUR_MS = 3_600_000;

function upsert(sql: Sql, table: "check_results_hourly" | "check_results_daily", rows: ReturnType<Sql>) {
  return sql`
    insert into ${sql(table)} as r (org_id, monitor_id, location, bucket, total, up, down, degraded, timeout, unavailable, duration_sum, duration_max, hist)
    ${rows}
    on conflict (org_id, monitor_id, bucket, location) do update set
      total = r.total + excluded.total, up = r.up + excluded.up, down = r.down + excluded.down,
      degraded = r.degraded + excluded.degraded, timeout = r.timeout + excluded.timeout,
      unavailable = r.unavailable + excluded.unavailable, duration_sum = r.duration_sum + excluded.duration_sum,
      duration_max = greatest(r.duration_max, excluded.duration_max), hist = result_hist_add_delta(r.hist, excluded.hist)`;
}
