-- migrate:up
-- The active scheduler records how far it has handled due checks, so a new leader backfills from there.
create table scheduler_state (
  id smallint primary key default 1 check (id = 1),
  published_through timestamptz,
  leader_id text,
  updated_at timestamptz not null default now()
);
insert into scheduler_state (id) values (1);

-- The scheduler keeps its schedule in memory; every change that alters what or when it checks
-- notifies it on channel wp_monitors with the monitor id (status updates from ingest do not).
create function notify_monitor_change() returns trigger language plpgsql as $$
begin
  perform pg_notify('wp_monitors', coalesce(new.id, old.id));
  return null;
end $$;

create trigger monitors_schedule_insert after insert or delete on monitors for each row execute function notify_monitor_change();
create trigger monitors_schedule_update after update of type, config, secrets_enc, interval_seconds, timeout_ms, regions, runner_ids, tags, paused, suspended
  on monitors for each row execute function notify_monitor_change();

-- migrate:down
drop trigger monitors_schedule_update on monitors;
drop trigger monitors_schedule_insert on monitors;
drop function notify_monitor_change();
drop table scheduler_state;
