-- migrate:up
-- Files kept with a check result: the screenshot of a failed browser check and a flow's screenshot
-- steps. Keyed by the result's job id (check_results.job_id), so GET /monitors/:id/checks/:checkId/screenshot
-- finds them from either result id. Written by whoever ran the check (cloud worker, the API for a
-- runner's result or a run-now) before the result is published; the newest results' files are kept
-- per monitor (db/queries/check-artifacts.ts), and they go with their monitor.
create table check_artifacts (
  org_id text not null,
  monitor_id text not null references monitors(id) on delete cascade,
  job_id text not null,
  name text not null check (name ~ '^[a-z0-9][a-z0-9_-]{0,39}$'),
  content_type text not null check (content_type in ('image/jpeg', 'image/png')),
  bytes bytea not null check (octet_length(bytes) between 1 and 1048576),
  scheduled_at timestamptz not null,
  created_at timestamptz not null default now(),
  primary key (monitor_id, job_id, name)
);
create index check_artifacts_monitor_time_idx on check_artifacts (monitor_id, scheduled_at desc);

-- Browser engines a cloud worker offers (its BROWSERS); the scheduler places browser jobs only in
-- regions with a live worker that has the monitor's engine.
alter table region_workers add column browsers text[] not null default '{}';

-- migrate:down
alter table region_workers drop column browsers;
drop table check_artifacts;
