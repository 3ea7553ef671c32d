-- migrate:up
-- Heartbeats on a cron schedule: the next deadline is computed in the application (cron and time zones),
-- stored here, and read by the sweep; null means "not computed yet" (new, or config changed).
-- A /start signal leaves its time and body until the next success or fail ping measures the run.
alter table monitors
  add column heartbeat_due_at timestamptz,
  add column heartbeat_started_at timestamptz,
  add column heartbeat_start_body text;
drop index monitors_heartbeat_due_idx;
create index monitors_heartbeat_due_idx on monitors (heartbeat_due_at) where type = 'heartbeat' and not paused and not suspended;

-- migrate:down
drop index monitors_heartbeat_due_idx;
create index monitors_heartbeat_due_idx on monitors (last_ping_at) where type = 'heartbeat' and not paused and not suspended;
alter table monitors
  drop column heartbeat_start_body,
  drop column heartbeat_started_at,
  drop column heartbeat_due_at;
