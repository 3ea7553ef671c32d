-- migrate:up
-- The raw results keep one per-monitor index, check_results_monitor_time_idx on (org_id, monitor_id, scheduled_at desc);
-- check_results_location_time_idx on (monitor_id, location, scheduled_at desc) goes. Every read of check_results names
-- the organisation, and those that name a location too read one monitor's newest rows (a page of results, the alert
-- timeline, a certificate's previous fingerprint, the metrics scrape's latest per location), which the first index
-- serves with the location as a filter. Each insert then maintains one leaf page per monitor less: PostgreSQL's CPU per
-- stored check fell by 7 to 21 % at 40,000 monitors (docs/performance.md). Dropping an index builds nothing; it takes
-- the table's lock only for the catalogue change (a partitioned index cannot be dropped concurrently).
-- Plain storage only: TimescaleDB's hypertable keeps the index, because there the results list's total is a count over
-- the raw rows, which the index serves when filtered by location (docs/decisions.md).
-- The drop waits for the table's lock behind running statements (a long export's cursor, say) and, while it waits,
-- queues ingest behind it: each attempt waits at most 2 s, then lets ingest through for a second and tries again,
-- for up to five minutes before the migration fails (the next start tries again).
do $migration$
declare
  attempts int := 0;
  saved text := current_setting('lock_timeout');
begin
  if coalesce((select relkind from pg_class where oid = to_regclass('check_results')), '-') <> 'p' then
    return;
  end if;
  loop
    begin
      perform set_config('lock_timeout', '2s', true);
      drop index if exists check_results_location_time_idx;
      exit;
    exception when lock_not_available then
      attempts := attempts + 1;
      if attempts >= 100 then
        raise;
      end if;
      perform pg_sleep(1);
    end;
  end loop;
  perform set_config('lock_timeout', saved, true);
end
$migration$;

-- migrate:down
-- Built in this transaction: it blocks writes to check_results while it builds.
do $migration$
begin
  if coalesce((select relkind from pg_class where oid = to_regclass('check_results')), '-') <> 'p' then
    return;
  end if;
  create index if not exists check_results_location_time_idx on check_results (monitor_id, location, scheduled_at desc);
end
$migration$;
