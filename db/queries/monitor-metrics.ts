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
  /** The certificate's notAfter and the registration's expiry as the check wrote them (ISO 8601 text), or null. */
  cert_expires: string | null;
  domain_expires: string | null;
}

/** Counts and durations of one (monitor, location) since the start of the current UTC hour, from its hourly rollup. */
export interface HourRow {
  monitor_id: string;
  location: string;
  up: number;
  down: number;
  degraded: number;
  timeout: number;
  unavailable: number;
  duration_sum: number;
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
 * Certificate days and expiry come from ssl (`ssl_days_remaining`, `valid_to`) or smtp (`cert_days_left`,
 * `cert_expires_at`) results, the domain's from domain results (`domain_days_remaining`, `expiry_date`).
 */
export function latestResults(sql: Sql, orgId: string, longestLookbackSeconds: number): Promise<LatestResultRow[]> {
  return sql<LatestResultRow[]>`
    select m.id as monitor_id, r.location, r.status, r.checked_at,
      case when jsonb_typeof(r.data->'ssl_days_remaining') = 'number' then (r.data->>'ssl_days_remaining')::float8
           when jsonb_typeof(r.data->'cert_days_left') = 'number' then (r.data->>'cert_days_left')::float8 end as cert_days,
      case when jsonb_typeof(r.data->'domain_days_remaining') = 'number' then (r.data->>'domain_days_remaining')::float8 end as domain_days,
      coalesce(r.data->>'valid_to', r.data->>'cert_expires_at') as cert_expires, r.data->>'expiry_date' as domain_expires
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

/** Buckets of the duration histogram (migration 20261122000300's result_duration_bucket gives 0 to 46). */
const HIST_BUCKETS = 47;

type HourPart = HourRow & { status: HourStatus | null; duration_ms: number | null; hist_index: number | null };
type HourStatus = "up" | "down" | "degraded" | "timeout" | "unavailable";

/**
 * The results of the current UTC hour per (monitor, location): the counters of the scrape, which restart at each
 * hour (one rollup row per series, whatever the history). Plain PostgreSQL (`watermark`): a rollup row holds exactly
 * the results due before the rollup watermark, so the raw rows due at or after it (a minute or so of checks) come
 * with it, the watermark read in the same statement (one snapshot with the rows the closer moved), and are added
 * here one row each with its histogram bucket (cheaper than aggregating them per series in SQL).
 */
export async function hourFigures(sql: Sql, orgId: string, watermark: boolean): Promise<HourRow[]> {
  const rows = await sql<HourPart[]>`
    select monitor_id, location, up, down, degraded, timeout, unavailable, duration_sum::float8 as duration_sum, hist,
      null::text as status, null::integer as duration_ms, null::integer as hist_index
    from check_results_hourly
    where org_id = ${orgId} and bucket = date_trunc('hour', now(), 'UTC')
    ${
      watermark
        ? sql`
    union all
    select monitor_id, location, 0, 0, 0, 0, 0, 0::float8, null::integer[], status, duration_ms, result_duration_bucket(duration_ms)
    from check_results
    where org_id = ${orgId} and monitor_id = any(array(select id from monitors where org_id = ${orgId}))
      and scheduled_at >= (select greatest(closed_through, date_trunc('hour', now(), 'UTC')) from rollup_watermark)
    union all
    select monitor_id, location, 0, 0, 0, 0, 0, 0::float8, null::integer[], status, duration_ms, result_duration_bucket(duration_ms)
    from rollup_late
    where org_id = ${orgId} and monitor_id = any(array(select id from monitors where org_id = ${orgId})) and not hourly_done
      and scheduled_at >= date_trunc('hour', now(), 'UTC')`
        : sql``
    }`;
  const out = new Map<string, HourRow>();
  const raw: HourPart[] = [];
  for (const r of rows) {
    if (r.status === null) out.set(`${r.monitor_id}\u0000${r.location}`, { monitor_id: r.monitor_id, location: r.location, up: r.up, down: r.down, degraded: r.degraded, timeout: r.timeout, unavailable: r.unavailable, duration_sum: r.duration_sum, hist: r.hist });
    else raw.push(r);
  }
  for (const r of raw) {
    const key = `${r.monitor_id}\u0000${r.location}`;
    let w = out.get(key);
    if (!w) out.set(key, (w = { monitor_id: r.monitor_id, location: r.location, up: 0, down: 0, degraded: 0, timeout: 0, unavailable: 0, duration_sum: 0, hist: null }));
    w[r.status!]++;
    // As a rollup row: zeros when every result was 'unavailable'.
    w.hist ??= new Array<number>(HIST_BUCKETS).fill(0);
    if (r.status === "unavailable") continue;
    w.duration_sum += r.duration_ms!;
    w.hist[r.hist_index!]!++;
  }
  return [...out.values()];
}

/** Alert rules firing now, per (monitor, region); acknowledged alerts still count (they have not resolved). */
export function firingAlerts(sql: Sql, orgId: string): Promise<FiringRow[]> {
  return sql<FiringRow[]>`
    select monitor_id, region, count(*)::int as firing
    from alert_states where org_id = ${orgId} and firing
    group by monitor_id, region`;
}
