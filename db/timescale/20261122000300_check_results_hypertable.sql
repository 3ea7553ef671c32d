-- migrate:up
-- TimescaleDB storage of check results: the same table and rollup names and columns as the
-- plain-PostgreSQL migration 20261122000301 (which skipped itself because the extension is
-- available), but check_results is a hypertable and the rollups are continuous aggregates.
create extension if not exists timescaledb;

do $guard$
begin
  if exists (select 1 from pg_class where relname = 'check_results' and relkind = 'p') then
    raise exception 'check_results already exists as a partitioned table (created before TimescaleDB was installed); move its rows out and drop it before enabling TimescaleDB storage';
  end if;
end
$guard$;

create table check_results (
  id uuid not null,
  job_id text not null,
  org_id text not null,
  monitor_id text not null,
  location text not null,
  location_type text not null check (location_type in ('region', 'runner')),
  scheduled_at timestamptz not null,
  checked_at timestamptz not null,
  status text not null check (status in ('up', 'down', 'degraded', 'timeout', 'unavailable')),
  duration_ms integer not null check (duration_ms >= 0),
  error text,
  data jsonb not null default '{}',
  constraint check_results_job_key unique (job_id, scheduled_at)
);
select create_hypertable('check_results', by_range('scheduled_at', interval '1 day'), create_default_indexes => false);
create index check_results_monitor_time_idx on check_results (org_id, monitor_id, scheduled_at desc);
create index check_results_location_time_idx on check_results (monitor_id, location, scheduled_at desc);

-- Hourly rollup: real-time, so rows newer than the last refresh are aggregated at query time.
create materialized view check_results_hourly
with (timescaledb.continuous, timescaledb.materialized_only = false) as
select
  org_id,
  monitor_id,
  location,
  time_bucket('1 hour', scheduled_at) as bucket,
  count(*)::integer as total,
  count(*) filter (where status = 'up')::integer as up,
  count(*) filter (where status = 'down')::integer as down,
  count(*) filter (where status = 'degraded')::integer as degraded,
  count(*) filter (where status = 'timeout')::integer as timeout,
  count(*) filter (where status = 'unavailable')::integer as unavailable,
  coalesce(sum(duration_ms) filter (where status <> 'unavailable'), 0)::bigint as duration_sum,
  max(duration_ms) filter (where status <> 'unavailable') as duration_max,
  result_duration_hist(duration_ms) filter (where status <> 'unavailable') as hist
from check_results
group by org_id, monitor_id, location, time_bucket('1 hour', scheduled_at)
with no data;
create index check_results_hourly_monitor_idx on check_results_hourly (org_id, monitor_id, bucket);

-- Daily rollup on top of the hourly one (hierarchical continuous aggregate).
create materialized view check_results_daily
with (timescaledb.continuous, timescaledb.materialized_only = false) as
select
  org_id,
  monitor_id,
  location,
  time_bucket('1 day', bucket) as bucket,
  sum(total)::integer as total,
  sum(up)::integer as up,
  sum(down)::integer as down,
  sum(degraded)::integer as degraded,
  sum(timeout)::integer as timeout,
  sum(unavailable)::integer as unavailable,
  sum(duration_sum)::bigint as duration_sum,
  max(duration_max) as duration_max,
  result_hist_sum(hist) as hist
from check_results_hourly
group by org_id, monitor_id, location, time_bucket('1 day', bucket)
with no data;
create index check_results_daily_monitor_idx on check_results_daily (org_id, monitor_id, bucket);

-- Results arrive within minutes of their due time; three days of refresh window covers stragglers.
select add_continuous_aggregate_policy('check_results_hourly',
  start_offset => interval '3 days', end_offset => interval '1 hour', schedule_interval => interval '15 minutes');
select add_continuous_aggregate_policy('check_results_daily',
  start_offset => interval '7 days', end_offset => interval '1 day', schedule_interval => interval '1 hour');

alter table check_results set (
  timescaledb.compress,
  timescaledb.compress_segmentby = 'org_id, monitor_id',
  timescaledb.compress_orderby = 'scheduled_at desc'
);
select add_compression_policy('check_results', compress_after => interval '7 days');

-- Backstop at the longest plan retention (10 years); maintainPartitions drops chunks past the
-- longest retention in use and enforceRetention trims each organisation to its plan.
select add_retention_policy('check_results', drop_after => interval '3650 days');
select add_retention_policy('check_results_hourly', drop_after => interval '3650 days');
select add_retention_policy('check_results_daily', drop_after => interval '3650 days');

-- migrate:down
drop materialized view if exists check_results_daily;
drop materialized view if exists check_results_hourly;
drop table if exists check_results;
