-- migrate:up
-- Plain PostgreSQL storage of check results. Skipped when the server offers TimescaleDB (the package
-- installed and preloaded, the same test as db/migrate.ts): db/timescale/ then creates check_results as
-- a hypertable and the rollups as continuous aggregates with the same names and columns
-- (docs/results-and-uptime.md).
do $migration$
begin
  if exists (select 1 from pg_available_extensions where name = 'timescaledb')
    and (current_setting('shared_preload_libraries') ~ '(^|[\s,])"?timescaledb' or exists (select 1 from pg_extension where extname = 'timescaledb')) then
    return;
  end if;

  -- Partitioned by the job's due time, so (job_id, scheduled_at) can be unique: a job
  -- that re-ran or a result delivered twice is stored once.
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
  ) partition by range (scheduled_at);
  -- org_id leads so retention can delete one organisation's old rows through the index.
  create index check_results_monitor_time_idx on check_results (org_id, monitor_id, scheduled_at desc);
  create index check_results_location_time_idx on check_results (monitor_id, location, scheduled_at desc);
  -- Safety net for rows whose day has no partition yet; check_results_ensure_partition empties it.
  create table check_results_default partition of check_results default;

  -- Rollups, maintained by ingest in the same transaction as the raw rows. Buckets are UTC
  -- hours/days of scheduled_at. Duration figures cover executed checks (not 'unavailable').
  -- Most ingests update an existing row: free space per page keeps those updates HOT.
  create table check_results_hourly (
    org_id text not null,
    monitor_id text not null,
    location text not null,
    bucket timestamptz not null,
    total integer not null,
    up integer not null,
    down integer not null,
    degraded integer not null,
    timeout integer not null,
    unavailable integer not null,
    duration_sum bigint not null,
    duration_max integer,
    hist integer[] not null,
    primary key (org_id, monitor_id, bucket, location)
  ) with (fillfactor = 70);
  -- Retention: per organisation, and past the longest retention for everyone. New rows only add
  -- entries here (once per series and bucket); the frequent updates leave both keys alone.
  create index check_results_hourly_org_bucket_idx on check_results_hourly (org_id, bucket);
  create index check_results_hourly_bucket_idx on check_results_hourly using brin (bucket);
  create table check_results_daily (like check_results_hourly including all) with (fillfactor = 70);

  -- Creates the partition for one UTC day, first moving that day's rows out of the default
  -- partition (PostgreSQL refuses to create a partition whose rows sit in the default).
  create function check_results_ensure_partition(day date) returns boolean
  language plpgsql as $fn$
  declare
    part text := 'check_results_p' || to_char(day, 'YYYYMMDD');
    lo timestamptz := day::timestamp at time zone 'UTC';
    hi timestamptz := (day + 1)::timestamp at time zone 'UTC';
    moved integer;
  begin
    if to_regclass(part) is not null then
      return false;
    end if;
    -- Creating a partition takes this lock anyway; taking it first avoids a lock upgrade deadlock with ingest.
    lock table check_results in access exclusive mode;
    if to_regclass(part) is not null then
      return false;
    end if;
    create temp table check_results_moving on commit drop as
      with d as (delete from check_results_default where scheduled_at >= lo and scheduled_at < hi returning *)
      select * from d;
    get diagnostics moved = row_count;
    execute format('create table %I partition of check_results for values from (%L) to (%L)', part, lo, hi);
    if moved > 0 then
      insert into check_results select * from check_results_moving;
    end if;
    drop table check_results_moving;
    return true;
  end $fn$;

  -- Drops whole daily partitions that end on or before `cutoff`; returns their names.
  create function check_results_drop_partitions(cutoff timestamptz) returns setof text
  language plpgsql as $fn$
  declare
    r record;
  begin
    for r in
      select c.relname from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent = 'check_results'::regclass and c.relname ~ '^check_results_p[0-9]{8}$'
        and (to_date(substr(c.relname, 16), 'YYYYMMDD') + 1)::timestamp at time zone 'UTC' <= cutoff
      order by c.relname
    loop
      execute format('drop table %I', r.relname);
      return next r.relname;
    end loop;
  end $fn$;

  -- Partitions for yesterday to a week ahead; the scheduler keeps creating them (maintainPartitions).
  perform check_results_ensure_partition((now() at time zone 'UTC')::date + g) from generate_series(-1, 7) g;
end
$migration$;

-- migrate:down
drop function if exists check_results_drop_partitions(timestamptz);
drop function if exists check_results_ensure_partition(date);
drop table if exists check_results_daily, check_results_hourly, check_results;
