-- migrate:up
create table monitors (
  id text primary key,
  org_id text not null references organisations(id) on delete cascade,
  name text not null,
  type text not null,
  config jsonb not null,
  -- Secret parts of config (auth passwords, tokens), AES-GCM encrypted JSON; never returned in full.
  secrets_enc text,
  interval_seconds integer not null check (interval_seconds >= 10),
  timeout_ms integer not null check (timeout_ms between 100 and 120000),
  regions text[] not null default '{}',
  runner_ids text[] not null default '{}',
  tags text[] not null default '{}',
  paused boolean not null default false,
  suspended boolean not null default false,
  -- pending until the first result; then the latest status: up, down, degraded, timeout.
  status text not null default 'pending',
  status_changed_at timestamptz,
  last_checked_at timestamptz,
  last_duration_ms integer,
  heartbeat_token_hash bytea unique,
  heartbeat_token_enc text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index monitors_org_created_idx on monitors (org_id, created_at desc, id desc);
create index monitors_tags_idx on monitors using gin (tags);
create index monitors_active_idx on monitors (id) where not paused and not suspended;

-- migrate:down
drop table monitors;
