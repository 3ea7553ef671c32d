-- migrate:up
create table plans (
  id text primary key,
  name text not null,
  monthly_price_cents integer not null,
  annual_price_cents integer not null,
  grace_days integer not null default 7 check (grace_days between 3 and 7),
  quotas jsonb not null,
  features jsonb not null default '{}',
  sort integer not null,
  public boolean not null default true
);

-- Quotas are data: runners, alert_rules and alert_channels are the spec's figures; the rest are ours (docs/plans.md).
insert into plans (id, name, monthly_price_cents, annual_price_cents, grace_days, quotas, sort, public) values
('free', 'Free', 0, 0, 3,
 '{"monitors": 20, "min_interval_seconds": 300, "runners": 0, "alert_rules": 10, "alert_channels": 5, "status_pages": 1, "members": 3, "lite_browser": 0, "flow_browser": 0, "self_hosted_browser": 0, "regions": 2, "retention_days": 30}', 0, true),
('starter', 'Starter', 699, 7188, 5,
 '{"monitors": 50, "min_interval_seconds": 60, "runners": 1, "alert_rules": 15, "alert_channels": 10, "status_pages": 3, "members": 5, "lite_browser": 1, "flow_browser": 0, "self_hosted_browser": 0, "regions": 4, "retention_days": 90}', 1, true),
('pro', 'Pro', 2999, 29988, 7,
 '{"monitors": 150, "min_interval_seconds": 30, "runners": 3, "alert_rules": 25, "alert_channels": 20, "status_pages": 5, "members": 10, "lite_browser": 3, "flow_browser": 2, "self_hosted_browser": 2, "regions": 8, "retention_days": 365}', 2, true),
('business', 'Business', 25900, 264000, 7,
 '{"monitors": 500, "min_interval_seconds": 30, "runners": 10, "alert_rules": 50, "alert_channels": 50, "status_pages": 20, "members": 50, "lite_browser": 10, "flow_browser": 10, "self_hosted_browser": 10, "regions": 16, "retention_days": 730}', 3, true),
('unlimited', 'Self-hosted (unlimited)', 0, 0, 7,
 '{"monitors": 1000000, "min_interval_seconds": 10, "runners": 100000, "alert_rules": 1000000, "alert_channels": 1000000, "status_pages": 100000, "members": 100000, "lite_browser": 100000, "flow_browser": 100000, "self_hosted_browser": 100000, "regions": 1000, "retention_days": 3650}', 9, false);

create table users (
  id text primary key,
  email text not null,
  name text not null,
  password_hash text not null,
  totp_secret_enc text,
  totp_enabled boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index users_email_key on users (lower(email));

create table organisations (
  id text primary key,
  name text not null,
  plan_id text not null default 'free' references plans(id),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table sessions (
  id text primary key,
  user_id text not null references users(id) on delete cascade,
  token_hash bytea not null unique,
  csrf_token text not null,
  ip text,
  user_agent text,
  created_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index sessions_user_idx on sessions (user_id);

-- System roles have org_id null; custom roles belong to one organisation.
create table roles (
  id text primary key,
  org_id text references organisations(id) on delete cascade,
  name text not null,
  description text not null default '',
  permissions text[] not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index roles_org_name_key on roles (coalesce(org_id, ''), lower(name));
insert into roles (id, org_id, name, description, permissions) values
('owner', null, 'Owner', 'Everything, including billing and deleting the organisation', array['org:admin','billing:manage','org:owner']),
('admin', null, 'Admin', 'Everything but billing and ownership', array['org:admin']),
('member', null, 'Member', 'Read and write monitoring resources', array['monitors:read','monitors:write','alerts:read','alerts:write','status_pages:read','status_pages:write','runners:read','runners:write','incidents:read','incidents:write']),
('viewer', null, 'Viewer', 'Read only', array['monitors:read','alerts:read','status_pages:read','runners:read','incidents:read']);

create table memberships (
  org_id text not null references organisations(id) on delete cascade,
  user_id text not null references users(id) on delete cascade,
  role_id text not null references roles(id),
  is_default boolean not null default false,
  created_at timestamptz not null default now(),
  primary key (org_id, user_id)
);
create index memberships_user_idx on memberships (user_id);

create table invitations (
  id text primary key,
  org_id text not null references organisations(id) on delete cascade,
  email text not null,
  role_id text not null references roles(id),
  token_hash bytea not null unique,
  invited_by text references users(id) on delete set null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  accepted_at timestamptz,
  revoked_at timestamptz
);
create index invitations_org_idx on invitations (org_id, created_at desc);
create index invitations_email_idx on invitations (lower(email));

create table api_keys (
  id text primary key,
  org_id text not null references organisations(id) on delete cascade,
  created_by text not null references users(id) on delete cascade,
  name text not null,
  display_prefix text not null,
  key_hash bytea not null unique,
  scopes text[] not null,
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  expires_at timestamptz,
  revoked_at timestamptz
);
create index api_keys_org_idx on api_keys (org_id, created_at desc);

create table org_security_policies (
  org_id text primary key references organisations(id) on delete cascade,
  require_2fa boolean not null default false,
  updated_at timestamptz not null default now()
);

create table password_resets (
  token_hash bytea primary key,
  user_id text not null references users(id) on delete cascade,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz
);

create table audit_log (
  id bigserial primary key,
  org_id text not null references organisations(id) on delete cascade,
  actor_type text not null,
  actor_id text,
  actor_label text not null,
  action text not null,
  target_type text not null,
  target_id text,
  ip text,
  details jsonb not null default '{}',
  created_at timestamptz not null default now()
);
create index audit_log_org_time_idx on audit_log (org_id, created_at desc, id desc);

-- Fixed one-minute windows shared by every API process.
create unlogged table rate_limit_windows (
  key text not null,
  window_start timestamptz not null,
  count integer not null,
  primary key (key, window_start)
);

-- migrate:down
drop table rate_limit_windows, audit_log, password_resets, org_security_policies, api_keys, invitations, memberships, roles, sessions, organisations, users, plans;
