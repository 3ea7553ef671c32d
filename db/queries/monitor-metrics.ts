import type { Sql } from "../client.ts";

/** A monitor's identity labels for the per-organisation metrics scrape. */
export interface MetricsMonitorRow {
  id: string;
  name: string;
  type: string;
  tags: string[];
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

export function metricsMonitors(sql: Sql, orgId: string): Promise<MetricsMonitorRow[]> {
  return sql<MetricsMonitorRow[]>`select id, name, type, tags from monitors where org_id = ${orgId} order by id`;
}

/**
 * Per (monitor, location), the newest result that ran ('unavailable' ones are skipped, as for the
 * monitor's own status) due within three intervals plus five minutes: an index range per monitor
 * on (org_id, monitor_id, scheduled_at), so a paused or moved location drops out instead of lingering.
 * Certificate days come from ssl (`ssl_days_remaining`) or smtp (`cert_days_left`) results.
 */
export function latestResults(sql: Sql, orgId: string): Promise<LatestResultRow[]> {
  return sql<LatestResultRow[]>`
    select m.id as monitor_id, r.location, r.status, r.checked_at, r.cert_days, r.domain_days
    from monitors m
    cross join lateral (
      select distinct on (c.location) c.location, c.status, c.checked_at,
        case when jsonb_typeof(c.data->'ssl_days_remaining') = 'number' then (c.data->>'ssl_days_remaining')::float8
             when jsonb_typeof(c.data->'cert_days_left') = 'number' then (c.data->>'cert_days_left')::float8 end as cert_days,
        case when jsonb_typeof(c.data->'domain_days_remaining') = 'number' then (c.data->>'domain_days_remaining')::float8 end as domain_days
      from check_results c
      where c.org_id = m.org_id and c.monitor_id = m.id and c.status <> 'unavailable'
        and c.scheduled_at > now() - make_interval(secs => m.interval_seconds * 3 + 300)
      order by c.location, c.scheduled_at desc, c.checked_at desc
    ) r
    where m.org_id = ${orgId}`;
}

/** Sums of the hourly rollups of the current and the previous UTC hour, per (monitor, location). */
export function windowFigures(sql: Sql, orgId: string): Promise<WindowRow[]> {
  return sql<WindowRow[]>`
    select monitor_id, location,
      sum(up)::int as up, sum(down)::int as down, sum(degraded)::int as degraded, sum(timeout)::int as timeout,
      sum(unavailable)::int as unavailable, sum(duration_sum)::float8 as duration_sum, max(duration_max) as duration_max,
      result_hist_sum(hist) as hist
    from check_results_hourly
    where org_id = ${orgId} and bucket >= date_trunc('hour', now()) - interval '1 hour'
    group by monitor_id, location`;
}

/** Alert rules firing now, per (monitor, region); acknowledged alerts still count (they have not resolved). */
export function firingAlerts(sql: Sql, orgId: string): Promise<FiringRow[]> {
  return sql<FiringRow[]>`
    select monitor_id, region, count(*)::int as firing
    from alert_states where org_id = ${orgId} and firing
    group by monitor_id, region`;
}
