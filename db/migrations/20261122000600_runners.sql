-- migrate:up
-- Self-hosted runners. The token is stored as its SHA-256 only; revoked rows stay for history.
-- The scheduler's placement reads id, last_seen_at and revoked_at (runner online = seen recently, not revoked).
create table runners (
  id text primary key,
  org_id text not null references organisations(id) on delete cascade,
  name text not null,
  location_label text,
  token_hash bytea not null unique,
  -- What the runner reports on its session and heartbeats.
  reported_name text,
  region text,
  version text,
  browsers text[] not null default '{}',
  concurrency integer,
  heartbeat_interval_ms integer,
  encrypted boolean,
  in_flight integer not null default 0,
  last_seen_at timestamptz,
  last_check_at timestamptz,
  -- Over the plan's runner quota after a downgrade: keeps its token, gets no jobs.
  suspended boolean not null default false,
  revoked_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index runners_org_idx on runners (org_id, created_at desc);

-- One encrypted session per runner process. The AES key is kept under SecretBox so any API
-- process can serve the runner. Anti-replay: the highest runner→server seq and a 64-wide
-- window of seqs below it already seen (requests may arrive out of order over parallel connections).
create table runner_sessions (
  id text primary key,
  runner_id text not null references runners(id) on delete cascade,
  org_id text not null,
  encrypted boolean not null,
  key_enc text,
  seq_in_max bigint not null default 0,
  seq_in_window bigint not null default 0,
  seq_out bigint not null default 0,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index runner_sessions_runner_idx on runner_sessions (runner_id);
create index runner_sessions_expires_idx on runner_sessions (expires_at);

-- migrate:down
drop table runner_sessions;
drop table runners;
