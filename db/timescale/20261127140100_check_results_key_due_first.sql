-- migrate:up
-- The raw results' unique key, due time first: (scheduled_at, job_id), as in the plain storage's migration
-- 20261127140000 (why: docs/results-and-uptime.md). On a hypertable with no rows yet (a fresh database) the new key
-- replaces the old one here. With rows, housekeeping builds it one chunk per transaction and then drops the old key
-- (db/results/result-key.ts), so a large history does not hold the service's start.
do $migration$
begin
  if not exists (select 1 from check_results limit 1) then
    create unique index if not exists check_results_due_job_key on check_results (scheduled_at, job_id);
    alter table check_results drop constraint if exists check_results_job_key;
  end if;
end
$migration$;

-- migrate:down
do $migration$
begin
  if not exists (select 1 from pg_constraint where conname = 'check_results_job_key' and conrelid = 'check_results'::regclass) then
    alter table check_results add constraint check_results_job_key unique (job_id, scheduled_at);
  end if;
  drop index if exists check_results_due_job_key;
end
$migration$;
