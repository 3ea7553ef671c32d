import type { Sql } from "../client.ts";

export type Source = "raw" | "hourly" | "daily";
export type BucketSize = "hour" | "day";

/** A half-open time range [from, to) read from one source. */
export interface Segment {
  source: Source;
  from: Date;
  to: Date;
}

/** Counts of one (monitor, location, bucket) over the requested segments, in no particular order. */
export interface CountRow {
  monitor_id: string;
  location: string;
  /** Start of the hour/day bucket; null when not bucketed. */
  bucket: Date | null;
  total: number;
  up: number;
  down: number;
  degraded: number;
  timeout: number;
  unavailable: number;
  duration_sum: number;
  duration_max: number | null;
  hist: number[] | null;
}

export interface CountQuery {
  orgId: string;
  monitorIds: readonly string[];
  segments: readonly Segment[];
  bucket: BucketSize | null;
  location?: string;
  /** Also sum/max/histogram of durations (aggregates); uptime needs counts only. */
  durations: boolean;
}

const ORIGIN = "2000-01-01T00:00:00Z";
const STEP: Record<BucketSize, string> = { hour: "1 hour", day: "1 day" };
const ROLLUP = { hourly: "check_results_hourly", daily: "check_results_daily" } as const;

/**
 * Sums counts, durations and (optionally) histograms per monitor, location and bucket over raw rows
 * and rollups, one segment each; the rollups are tables or continuous aggregates with the same
 * columns, so this one query serves both storage modes.
 */
export async function selectCounts(sql: Sql, q: CountQuery): Promise<CountRow[]> {
  if (q.segments.length === 0 || q.monitorIds.length === 0) return [];
  const ids = sql.array([...q.monitorIds]);
  const bin = (col: "scheduled_at" | "bucket") =>
    q.bucket ? sql`date_bin(${STEP[q.bucket]}::interval, ${sql(col)}, ${ORIGIN}::timestamptz)` : sql`null::timestamptz`;
  const loc = q.location === undefined ? sql`` : sql`and location = ${q.location}`;
  const parts = q.segments.map((s) =>
    s.source === "raw"
      ? sql`
        select monitor_id, location, ${bin("scheduled_at")} as b,
          count(*)::int as total,
          count(*) filter (where status = 'up')::int as up,
          count(*) filter (where status = 'down')::int as down,
          count(*) filter (where status = 'degraded')::int as degraded,
          count(*) filter (where status = 'timeout')::int as timeout,
          count(*) filter (where status = 'unavailable')::int as unavailable
          ${
            q.durations
              ? sql`,
                coalesce(sum(duration_ms) filter (where status <> 'unavailable'), 0)::bigint as duration_sum,
                max(duration_ms) filter (where status <> 'unavailable') as duration_max,
                result_duration_hist(duration_ms) filter (where status <> 'unavailable') as hist`
              : sql``
          }
        from check_results
        where org_id = ${q.orgId} and monitor_id = any(${ids}::text[]) ${loc}
          and scheduled_at >= ${s.from} and scheduled_at < ${s.to}
        group by monitor_id, location, b`
      : sql`
        select monitor_id, location, ${bin("bucket")} as b,
          sum(total)::int as total, sum(up)::int as up, sum(down)::int as down, sum(degraded)::int as degraded,
          sum(timeout)::int as timeout, sum(unavailable)::int as unavailable
          ${q.durations ? sql`, sum(duration_sum)::bigint as duration_sum, max(duration_max) as duration_max, result_hist_sum(hist) as hist` : sql``}
        from ${sql(ROLLUP[s.source])}
        where org_id = ${q.orgId} and monitor_id = any(${ids}::text[]) ${loc}
          and bucket >= ${s.from} and bucket < ${s.to}
        group by monitor_id, location, b`,
  );
  const union = parts.reduce((acc, p) => sql`${acc} union all ${p}`);
  return sql<CountRow[]>`
    select monitor_id, location, b as bucket,
      sum(total)::int as total, sum(up)::int as up, sum(down)::int as down, sum(degraded)::int as degraded,
      sum(timeout)::int as timeout, sum(unavailable)::int as unavailable
      ${
        q.durations
          ? sql`, sum(duration_sum)::float8 as duration_sum, max(duration_max) as duration_max, result_hist_sum(hist) as hist`
          : sql`, 0::float8 as duration_sum, null::integer as duration_max, null::integer[] as hist`
      }
    from (${union}) s
    group by monitor_id, location, b`;
}

/** Check interval of each of these monitors of the organisation. */
export async function selectIntervals(sql: Sql, orgId: string, monitorIds: readonly string[]): Promise<Map<string, number>> {
  const rows = await sql<{ id: string; interval_seconds: number }[]>`
    select id, interval_seconds from monitors where org_id = ${orgId} and id = any(${sql.array([...monitorIds])}::text[])`;
  return new Map(rows.map((r) => [r.id, r.interval_seconds]));
}
