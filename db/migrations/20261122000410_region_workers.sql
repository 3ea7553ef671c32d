-- migrate:up
-- Cloud workers report here every few seconds; a region is online while one was seen recently.
create table region_workers (
  worker_id text primary key,
  region text not null,
  hostname text not null default '',
  version text not null,
  concurrency integer not null,
  in_flight integer not null default 0,
  checks_total bigint not null default 0,
  -- Median duration of the worker's recent checks (ms), null before its first.
  recent_p50_ms integer,
  started_at timestamptz not null,
  last_seen_at timestamptz not null default now()
);
create index region_workers_region_seen_idx on region_workers (region, last_seen_at desc);

-- migrate:down
drop table region_workers;
