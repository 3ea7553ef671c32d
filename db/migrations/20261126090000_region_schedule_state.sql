-- migrate:up
-- The scheduler leader's view of each region's load (scheduler/admission.ts), for the API and the dashboard:
-- overloaded_since is set while due checks wait for the region's queue to drain (the schedule slips).
create table region_schedule_state (
  region text primary key,
  overloaded_since timestamptz,
  lag_seconds real not null default 0,
  waiting integer not null default 0,
  updated_at timestamptz not null default now()
);

-- migrate:down
drop table region_schedule_state;
