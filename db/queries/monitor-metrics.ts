import type { Sql } from "../client.ts";

/** A monitor's identity labels for the per-organisation metrics scrape. */
export interface MetricsMonitorRow {
  id: string;
  name: string;
  type: string;
  tags: string[];
  interval_seconds: number;
}

/** The newest executed result of one (monitor, location), with the expiry figures it carried. */
export interface LatestResultRow {
  monitor_id: string;
  location: string;
  status: "up" | "down" | "degraded" | "timeout";
  checked_at: Date;
  cert_days: number | null;
  domain_days: number | null;
}

/** Counts and durations of one (monitor, location) over the metrics window, summed from hourly rollups. */
export interface WindowRow {
  monitor_id: string;
  location: string;
  up: number;
  down: number;
  degraded: number;
  timeout: number;
  unavailable: number;
  duration_sum: number;
  duration_max: number | null;
  hist: number[] | null;
}

export interface FiringRow {
  monitor_id: string;
  region: string;
  firing: number;
}

/** A (monitor, location) reports its newest result due within this many intervals plus the slack. */
export const LOOKBACK_INTERVALS = 2;
export const LOOKBACK_SLACK_SECONDS = 120;

export function metricsMonitors(sql: Sql, orgId: string): Promise<MetricsMonitorRow[]> {
  return sql<MetricsMonitorRow[]>`select id, name, type, tags, interval_seconds from monitors where org_id = ${orgId} order by id`;
}

/**
 * Per (monitor, location), the newest result that ran ('unavailable' ones are skipped, as for the
 * monitor's own status) due within two intervals plus two minutes: an index range per monitor
 * on (org_id, monitor_id, scheduled_at), so a paused or moved location drops out instead of lingering.
 * `longestLookbackSeconds` (the organisation's longest lookback) is a constant bound on top, so
 * PostgreSQL opens only the partitions or chunks it covers for each monitor, not all ten or so.
 * Certificate days come from ssl (`ssl_days_remaining`) or smtp (`cert_days_left`) results.
 */
export function latestResults(sql: Sql, orgId: string, longestLookbackSeconds: number): Promise<LatestResultRow[]> {
  return sql<LatestResultRow[]>`
    select m.id as monitor_id, r.location, r.status, r.checked_at,
      case when jsonb_typeof(r.data->'ssl_days_remaining') = 'number' then (r.data->>'ssl_days_remaining')::float8
           when jsonb_typeof(r.data->'cert_days_left') = 'number' then (r.data->>'cert_days_left')::float8 end as cert_days,
      case when jsonb_typeof(r.data->'domain_days_remaining') = 'number' then (r.data->>'domain_days_remaining')::float8 end as domain_days
    from monitors m
    cross join lateral (
      select distinct on (c.location) c.location, c.status, c.checked_at, c.data
      from check_results c
      where c.org_id = m.org_id and c.monitor_id = m.id and c.status <> 'unavailable'
        and c.scheduled_at > now() - make_interval(secs => m.interval_seconds * ${LOOKBACK_INTERVALS} + ${LOOKBACK_SLACK_SECONDS})
        and c.scheduled_at > now() - make_interval(secs => ${longestLookbackSeconds})
      order by c.location, c.scheduled_at desc, c.checked_at desc
    ) r
    where m.org_id = ${orgId}`;
}

/**
 * The results of the current and the previous UTC hour, per (monitor, location), added up from the
 * hourly rollups. Plain PostgreSQL (`watermark`): a rollup row holds exactly the results due before
 * the rollup watermark, so the raw rows due at or after it are added, the watermark read in the same
 * statement (one snapshot with the rows the closer moved). The buckets are joined rather than aggregated:
 * result_hist_add is inlined SQL, several times faster per row than the result_hist_sum aggregate,
 * which dominated a 10,000-monitor scrape.
 */
export function windowFigures(sql: Sql, orgId: string, watermark: boolean): Promise<WindowRow[]> {
  const hist = (a: string, b: string) => `case when ${a}.hist is null then ${b}.hist when ${b}.hist is null then ${a}.hist else result_hist_add(${a}.hist, ${b}.hist) end`;
  const plus = (col: string, ...from: string[]) => from.map((t) => `coalesce(${t}.${col}, 0)`).join(" + ");
  const parts = watermark ? ["c", "p", "x"] : ["c", "p"];
  return sql<WindowRow[]>`
    with w as (
      select * from check_results_hourly
      where org_id = ${orgId} and bucket >= date_trunc('hour', now(), 'UTC') - interval '1 hour'
    ), cur as (select * from w where bucket >= date_trunc('hour', now(), 'UTC')),
    prev as (select * from w where bucket < date_trunc('hour', now(), 'UTC'))
    ${
      watermark
        ? sql`, raw as (
      select monitor_id, location,
        count(*) filter (where status = 'up')::int as up, count(*) filter (where status = 'down')::int as down,
        count(*) filter (where status = 'degraded')::int as degraded, count(*) filter (where status = 'timeout')::int as timeout,
        count(*) filter (where status = 'unavailable')::int as unavailable,
        coalesce(sum(duration_ms) filter (where status <> 'unavailable'), 0)::bigint as duration_sum,
        max(duration_ms) filter (where status <> 'unavailable') as duration_max,
        result_duration_hist(duration_ms) filter (where status <> 'unavailable') as hist
      from check_results
      where org_id = ${orgId} and monitor_id = any(array(select id from monitors where org_id = ${orgId}))
        and scheduled_at >= (select greatest(closed_through, date_trunc('hour', now(), 'UTC') - interval '1 hour') from rollup_watermark)
      group by monitor_id, location
    )`
        : sql``
    }
    select monitor_id, location,
      ${sql.unsafe(["up", "down", "degraded", "timeout", "unavailable"].map((k) => `${plus(k, ...parts)} as ${k}`).join(", "))},
      (${sql.unsafe(plus("duration_sum", ...parts))})::float8 as duration_sum,
      greatest(${sql.unsafe(parts.map((t) => `${t}.duration_max`).join(", "))}) as duration_max,
      ${sql.unsafe(watermark ? `case when x.hist is null then ${hist("c", "p")} when c.hist is null and p.hist is null then x.hist else result_hist_add(${hist("c", "p")}, x.hist) end` : hist("c", "p"))} as hist
    from cur c full join prev p using (monitor_id, location)
    ${watermark ? sql`full join raw x using (monitor_id, location)` : sql``}`;
}

/** Alert rules firing now, per (monitor, region); acknowledged alerts still count (they have not resolved). */
export function firingAlerts(sql: Sql, orgId: string): Promise<FiringRow[]> {
  return sql<FiringRow[]>`
    select monitor_id, region, count(*)::int as firing
    from alert_states where org_id = ${orgId} and firing
    group by monitor_id, region`;
}
