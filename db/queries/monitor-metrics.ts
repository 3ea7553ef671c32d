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
 * The hourly rollups of the current and the previous UTC hour, per (monitor, location), added up.
 * The two buckets are joined rather than aggregated: result_hist_add is inlined SQL, several times
 * faster per row than the result_hist_sum aggregate, which dominated a 10,000-monitor scrape.
 */
export function windowFigures(sql: Sql, orgId: string): Promise<WindowRow[]> {
  return sql<WindowRow[]>`
    with w as (
      select * from check_results_hourly
      where org_id = ${orgId} and bucket >= date_trunc('hour', now(), 'UTC') - interval '1 hour'
    ), cur as (select * from w where bucket >= date_trunc('hour', now(), 'UTC')),
    prev as (select * from w where bucket < date_trunc('hour', now(), 'UTC'))
    select monitor_id, location,
      coalesce(c.up, 0) + coalesce(p.up, 0) as up, coalesce(c.down, 0) + coalesce(p.down, 0) as down,
      coalesce(c.degraded, 0) + coalesce(p.degraded, 0) as degraded, coalesce(c.timeout, 0) + coalesce(p.timeout, 0) as timeout,
      coalesce(c.unavailable, 0) + coalesce(p.unavailable, 0) as unavailable,
      (coalesce(c.duration_sum, 0) + coalesce(p.duration_sum, 0))::float8 as duration_sum,
      greatest(c.duration_max, p.duration_max) as duration_max,
      case when c.hist is null then p.hist when p.hist is null then c.hist else result_hist_add(c.hist, p.hist) end as hist
    from cur c full join prev p using (monitor_id, location)`;
}

/** Alert rules firing now, per (monitor, region); acknowledged alerts still count (they have not resolved). */
export function firingAlerts(sql: Sql, orgId: string): Promise<FiringRow[]> {
  return sql<FiringRow[]>`
    select monitor_id, region, count(*)::int as firing
    from alert_states where org_id = ${orgId} and firing
    group by monitor_id, region`;
}
