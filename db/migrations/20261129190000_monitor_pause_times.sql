-- migrate:up
-- When the latest pause began and ended: a firing alert's reminders and escalations do not run while its monitor is
-- paused, and the pause does not count toward them afterwards (docs/alerting.md). Null: never paused since this
-- column came (a monitor paused before it counts as paused since any time).
alter table monitors add column paused_at timestamptz, add column resumed_at timestamptz;

-- migrate:down
alter table monitors drop column paused_at, drop column resumed_at;
