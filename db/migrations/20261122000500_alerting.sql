-- migrate:up
create table alert_channels (
  id text primary key,
  org_id text not null references organisations(id) on delete cascade,
  name text not null,
  type text not null,
  -- The whole config JSON, AES-GCM encrypted (SecretBox): secret fields never sit in plain text.
  config_enc text not null,
  enabled boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index alert_channels_org_idx on alert_channels (org_id, created_at desc, id desc);

create table escalation_policies (
  id text primary key,
  org_id text not null references organisations(id) on delete cascade,
  name text not null,
  -- [{delay_minutes, channel_ids[]}]
  steps jsonb not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index escalation_policies_org_idx on escalation_policies (org_id, created_at desc, id desc);

create table alert_rules (
  id text primary key,
  org_id text not null references organisations(id) on delete cascade,
  name text not null,
  description text,
  enabled boolean not null default true,
  scope jsonb not null,
  condition jsonb not null,
  confirmation jsonb not null,
  notifications jsonb not null,
  -- [{channel_id, delay_minutes}]; empty when escalation_policy_id is set.
  channels jsonb not null default '[]',
  escalation_policy_id text references escalation_policies(id) on delete restrict,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index alert_rules_org_idx on alert_rules (org_id, created_at desc, id desc);

-- Alerting processes cache rules per organisation; this tells them when to drop the cache.
create function alerting_config_changed() returns trigger language plpgsql as $$
begin
  perform pg_notify('alerting_config', coalesce(new.org_id, old.org_id));
  return null;
end $$;
create trigger alert_rules_changed after insert or update or delete on alert_rules for each row execute function alerting_config_changed();
create trigger alert_channels_changed after insert or update or delete on alert_channels for each row execute function alerting_config_changed();
create trigger escalation_policies_changed after insert or update or delete on escalation_policies for each row execute function alerting_config_changed();

-- One row per (rule, monitor, region) the engine has seen fail at least once; the engine state as JSON.
create table alert_states (
  org_id text not null references organisations(id) on delete cascade,
  rule_id text not null references alert_rules(id) on delete cascade,
  monitor_id text not null references monitors(id) on delete cascade,
  region text not null,
  firing boolean not null default false,
  acknowledged boolean not null default false,
  consecutive integer not null default 0,
  incarnation integer not null default 0,
  fired_at timestamptz,
  last_notified_at timestamptz,
  -- checked_at of the last result applied; older or repeated results are skipped.
  last_result_at timestamptz,
  state jsonb not null,
  -- The next escalation or reminder; the dispatcher claims rows past it.
  next_due_at timestamptz,
  updated_at timestamptz not null default now(),
  primary key (rule_id, monitor_id, region)
);
create index alert_states_org_firing_idx on alert_states (org_id) where firing;
create index alert_states_monitor_idx on alert_states (monitor_id);
create index alert_states_due_idx on alert_states (next_due_at) where next_due_at is not null;

-- Outbox: a delivery decided in the same transaction as the state change that caused it.
create table alert_deliveries (
  id text primary key,
  -- Decision order: a channel gets one alert's deliveries in this order (alert before recovery).
  order_no bigint generated always as identity,
  org_id text not null references organisations(id) on delete cascade,
  -- <ruleId>:<monitorId>:<region>:<incarnation>:<channelId>:<kind>:<seq>
  idempotency_key text not null unique,
  rule_id text not null,
  monitor_id text not null,
  region text not null,
  channel_id text not null,
  kind text not null,
  seq integer not null,
  event jsonb not null,
  status text not null default 'pending' check (status in ('pending', 'sent', 'failed')),
  attempts integer not null default 0,
  last_error text,
  next_attempt_at timestamptz not null default now(),
  -- A dispatcher holds a claim until this time; past it another may take the delivery.
  lease_until timestamptz,
  created_at timestamptz not null default now(),
  sent_at timestamptz
);
create index alert_deliveries_due_idx on alert_deliveries (next_attempt_at) where status = 'pending';
create index alert_deliveries_pending_stream_idx on alert_deliveries (rule_id, monitor_id, region, channel_id, order_no) where status = 'pending';

-- Every attempt of every delivery, failed or not.
create table alert_history (
  id text primary key,
  org_id text not null references organisations(id) on delete cascade,
  delivery_id text not null,
  rule_id text not null,
  monitor_id text not null,
  region text not null,
  channel_id text not null,
  channel_type text,
  kind text not null,
  attempt integer not null,
  status text not null check (status in ('sent', 'retrying', 'failed', 'suppressed')),
  http_status integer,
  error text,
  duration_ms integer,
  created_at timestamptz not null default now()
);
create index alert_history_org_idx on alert_history (org_id, created_at desc, id desc);

create table notifications (
  id text primary key,
  org_id text not null references organisations(id) on delete cascade,
  type text not null,
  title text not null,
  body text not null default '',
  data jsonb not null default '{}',
  read_at timestamptz,
  created_at timestamptz not null default now()
);
create index notifications_org_idx on notifications (org_id, created_at desc, id desc);
create index notifications_unread_idx on notifications (org_id) where read_at is null;

-- migrate:down
drop table notifications;
drop table alert_history;
drop table alert_deliveries;
drop table alert_states;
drop table alert_rules;
drop table escalation_policies;
drop table alert_channels;
drop function alerting_config_changed();
