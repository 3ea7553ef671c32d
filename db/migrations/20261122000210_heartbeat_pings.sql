-- migrate:up
-- The last ping of a heartbeat monitor; the sweep records a down result per missed period after it.
alter table monitors add column last_ping_at timestamptz;
create index monitors_heartbeat_due_idx on monitors (last_ping_at) where type = 'heartbeat' and not paused and not suspended;

-- migrate:down
drop index monitors_heartbeat_due_idx;
alter table monitors drop column last_ping_at;
