-- migrate:up
-- The scheduler leader's backpressure per job queue (scheduler/admission.ts) that region_schedule_state does not
-- hold: each line of due checks kept back (released_through, so a new leader takes the line over) and each
-- self-hosted runner's overload (its status in the API). A row exists only while its queue has a line or is
-- overloaded; the leader rewrites them every second.
create table schedule_queue_state (
  queue text primary key,
  kind text not null check (kind in ('region', 'browser', 'runner')),
  location text not null,
  engine text,
  released_through timestamptz,
  overloaded_since timestamptz,
  lag_seconds real not null default 0,
  waiting integer not null default 0,
  updated_at timestamptz not null default now()
);

-- migrate:down
drop table schedule_queue_state;
