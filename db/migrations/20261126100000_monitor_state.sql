-- migrate:up
-- The hot part of a monitor's state, written by ingest for every result it stores: a narrow row
-- (updated in place as a HOT update: no index but the key, room left on each page) instead of a new
-- version of the wide monitors row per check. monitors keeps status and status_changed_at, written
-- only when the status changes; the time and duration of the latest check live here only.
create table monitor_state (
  monitor_id text primary key references monitors(id) on delete cascade,
  -- The latest status ingest stored (the same as monitors.status) and the one before that write:
  -- ingest's upsert returns both, so it learns of a change without locking the monitors row.
  status text not null,
  prev_status text,
  last_checked_at timestamptz not null,
  last_duration_ms integer not null
) with (fillfactor = 70);

insert into monitor_state (monitor_id, status, last_checked_at, last_duration_ms)
select id, status, last_checked_at, coalesce(last_duration_ms, 0) from monitors where last_checked_at is not null;

alter table monitors drop column last_checked_at, drop column last_duration_ms;

-- migrate:down
alter table monitors add column last_checked_at timestamptz, add column last_duration_ms integer;
update monitors m set last_checked_at = s.last_checked_at, last_duration_ms = s.last_duration_ms
from monitor_state s where s.monitor_id = m.id;
drop table monitor_state;
