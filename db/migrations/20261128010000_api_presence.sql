-- migrate:up
-- Every API process records here that it is up, every few seconds (api/presence.ts). Heartbeat pings and runner
-- heartbeats arrive through the API, so in the scaled mode the judges of their silence (scheduler, alerting) read
-- from this when no API process was up: that time is no evidence of silence (core/process/blind-time.ts).
create table api_presence (
  instance_id text primary key,
  -- Its first beat, once it listened.
  started_at timestamptz not null default now(),
  last_beat_at timestamptz not null default now()
);
create index api_presence_last_beat_idx on api_presence (last_beat_at);

-- An API process that was up but could not reach the database (a request or a beat failed for it): from its last
-- good beat to the first after. Pings refused then are no evidence of silence either, whatever other APIs did.
create table api_interruptions (
  instance_id text not null,
  from_at timestamptz not null,
  to_at timestamptz not null
);
create index api_interruptions_to_idx on api_interruptions (to_at);

-- migrate:down
drop table api_interruptions;
drop table api_presence;
