-- migrate:up
-- When the monitor last stopped being checked (paused by a person, or suspended over quota by billing) and when it
-- was checked again: a firing alert's reminders and escalations do not run meanwhile, and that time does not count
-- toward them afterwards (docs/alerting.md). Null: not since this column came (a monitor stopped before it counts as
-- stopped since any time). Kept by triggers, so every path (API, bulk, CLI, billing) keeps them alike.
alter table monitors add column paused_at timestamptz, add column resumed_at timestamptz;

create function monitor_pause_times() returns trigger language plpgsql as $$
begin
  if (new.paused or new.suspended) and not (old.paused or old.suspended) then
    new.paused_at := now();
  elsif (old.paused or old.suspended) and not (new.paused or new.suspended) then
    new.resumed_at := now();
  end if;
  return new;
end $$;
create trigger monitors_pause_times before update of paused, suspended on monitors
  for each row execute function monitor_pause_times();

-- Checked again: its firing alerts get a tick now, so reminders and escalations held meanwhile are taken up.
create function monitor_resumed_wakes_alerts() returns trigger language plpgsql as $$
begin
  update alert_states set next_due_at = now() where monitor_id = new.id and firing and not acknowledged;
  return null;
end $$;
create trigger monitors_resumed_wake_alerts after update of paused, suspended on monitors
  for each row when ((old.paused or old.suspended) and not (new.paused or new.suspended))
  execute function monitor_resumed_wakes_alerts();

-- migrate:down
drop trigger monitors_resumed_wake_alerts on monitors;
drop function monitor_resumed_wakes_alerts();
drop trigger monitors_pause_times on monitors;
drop function monitor_pause_times();
alter table monitors drop column paused_at, drop column resumed_at;
