-- migrate:up
-- Interval tiers as cumulative quotas (docs/billing.md): `<family>_fast` is how many slots may run
-- faster than every 5 min, `<family>_realtime` faster than every minute. A plan's own monitor slots
-- sit at its tier (Free standard, Starter fast, Pro/Business real-time), browser slots included.
update plans set quotas = quotas || '{"monitors_fast": 0, "monitors_realtime": 0, "lite_browser_fast": 0, "lite_browser_realtime": 0, "flow_browser_fast": 0, "flow_browser_realtime": 0, "custom_domains": 0}' where id = 'free';
update plans set quotas = quotas || '{"monitors_fast": 50, "monitors_realtime": 0, "lite_browser_fast": 1, "lite_browser_realtime": 0, "flow_browser_fast": 0, "flow_browser_realtime": 0, "custom_domains": 1}' where id = 'starter';
update plans set quotas = quotas || '{"monitors_fast": 150, "monitors_realtime": 150, "lite_browser_fast": 3, "lite_browser_realtime": 3, "flow_browser_fast": 2, "flow_browser_realtime": 2, "custom_domains": 1}' where id = 'pro';
update plans set quotas = quotas || '{"monitors_fast": 500, "monitors_realtime": 500, "lite_browser_fast": 10, "lite_browser_realtime": 10, "flow_browser_fast": 10, "flow_browser_realtime": 10, "custom_domains": 1}' where id = 'business';
update plans set quotas = quotas || '{"monitors_fast": 1000000, "monitors_realtime": 1000000, "lite_browser_fast": 100000, "lite_browser_realtime": 100000, "flow_browser_fast": 100000, "flow_browser_realtime": 100000, "custom_domains": 100000}' where id = 'unlimited';

-- The 12 add-ons of the spec. `grants` is what one unit adds on top of the plan's quotas.
-- Annual add-on price: 12 months less 15 %, like the plans.
create table addons (
  id text primary key,
  name text not null,
  price_cents integer not null,
  annual_price_cents integer not null,
  min_plan_id text not null references plans(id),
  grants jsonb not null,
  sort integer not null
);
insert into addons (id, name, price_cents, annual_price_cents, min_plan_id, grants, sort) values
('monitors_standard', '+25 Standard uptime monitors (5 min minimum interval)', 499, 5090, 'free', '{"monitors": 25}', 0),
('monitors_fast', '+25 Fast uptime monitors (1 min minimum interval)', 999, 10190, 'starter', '{"monitors": 25, "monitors_fast": 25}', 1),
('monitors_realtime', '+25 Real-time uptime monitors (30 s minimum interval)', 1999, 20390, 'pro', '{"monitors": 25, "monitors_fast": 25, "monitors_realtime": 25}', 2),
('lite_browser_standard', '+1 Lite browser (Standard)', 499, 5090, 'starter', '{"lite_browser": 1}', 3),
('lite_browser_fast', '+1 Lite browser (Fast)', 999, 10190, 'pro', '{"lite_browser": 1, "lite_browser_fast": 1}', 4),
('flow_browser_standard', '+1 Flow monitor (Standard)', 799, 8150, 'pro', '{"flow_browser": 1}', 5),
('flow_browser_fast', '+1 Flow monitor (Fast)', 1499, 15290, 'pro', '{"flow_browser": 1, "flow_browser_fast": 1}', 6),
('flow_browser_realtime', '+1 Flow monitor (Real-time)', 3999, 40790, 'business', '{"flow_browser": 1, "flow_browser_fast": 1, "flow_browser_realtime": 1}', 7),
('self_hosted_browser', '+1 Self-hosted browser monitor', 999, 10190, 'starter', '{"self_hosted_browser": 1}', 8),
('runner', '+1 Self-hosted runner slot', 499, 5090, 'starter', '{"runners": 1}', 9),
('members', '+5 Team members', 499, 5090, 'pro', '{"members": 5}', 10),
('status_pages', '+3 Status pages', 499, 5090, 'pro', '{"status_pages": 3}', 11);

-- One row: whether this deployment bills (BILLING=on) or gives every organisation the unlimited plan.
create table billing_settings (
  id boolean primary key default true check (id),
  enabled boolean not null default true,
  updated_at timestamptz not null default now()
);
insert into billing_settings default values;

-- The provider's subscription as last synced; `provider_occurred_at` orders snapshots (newest wins).
create table billing_subscriptions (
  id text primary key,
  org_id text not null references organisations(id) on delete cascade,
  provider_subscription_id text not null unique,
  provider_customer_id text,
  cycle text not null check (cycle in ('monthly', 'annual')),
  provider_status text not null,
  period_start timestamptz,
  period_end timestamptz,
  last_transaction_id text,
  provider_occurred_at timestamptz not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index billing_subscriptions_org_idx on billing_subscriptions (org_id);

-- Subscription lines: the plan and each add-on, each with its own status (spec table).
create table billing_lines (
  id text primary key,
  org_id text not null references organisations(id) on delete cascade,
  subscription_id text not null references billing_subscriptions(id) on delete cascade,
  kind text not null check (kind in ('plan', 'addon')),
  product_id text not null,
  quantity integer not null default 1 check (quantity >= 1),
  cycle text not null check (cycle in ('monthly', 'annual')),
  unit_price_cents integer not null,
  status text not null check (status in ('active', 'grace_period', 'past_due', 'pending_cancellation', 'cancelled')),
  period_start timestamptz not null,
  period_end timestamptz not null,
  grace_ends_at timestamptz,
  cancel_at timestamptz,
  ended_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index billing_lines_org_idx on billing_lines (org_id, status);
create unique index billing_lines_live_key on billing_lines (subscription_id, product_id) where status in ('active', 'grace_period', 'pending_cancellation');

-- Time-driven transitions (grace expiry, reminders, period ends, clean-up of long-suspended resources).
create table billing_jobs (
  id bigserial primary key,
  org_id text not null references organisations(id) on delete cascade,
  kind text not null,
  ref_id text not null,
  due_at timestamptz not null,
  done_at timestamptz,
  attempts integer not null default 0,
  last_error text,
  created_at timestamptz not null default now()
);
create unique index billing_jobs_once_key on billing_jobs (kind, ref_id, due_at);
create index billing_jobs_due_idx on billing_jobs (due_at) where done_at is null;

-- Inbound provider webhooks, kept by event id so a redelivery is recognised.
create table billing_webhook_events (
  event_id text primary key,
  provider text not null,
  event_type text not null,
  occurred_at timestamptz not null,
  received_at timestamptz not null default now(),
  outcome text not null,
  payload jsonb not null
);

-- Overlap notices: an upgrade's plan now includes capacity an add-on line was bought for.
create table billing_overlaps (
  id text primary key,
  org_id text not null references organisations(id) on delete cascade,
  line_id text not null references billing_lines(id) on delete cascade,
  plan_id text not null,
  quotas text[] not null,
  status text not null default 'open' check (status in ('open', 'cancelled', 'dismissed')),
  credit_cents integer,
  created_at timestamptz not null default now(),
  resolved_at timestamptz
);
create unique index billing_overlaps_open_key on billing_overlaps (line_id) where status = 'open';

-- When a resource was suspended over quota; long-suspended ones are deleted by the billing job.
create table billing_suspensions (
  resource_type text not null,
  resource_id text not null,
  org_id text not null references organisations(id) on delete cascade,
  suspended_at timestamptz not null default now(),
  primary key (resource_type, resource_id)
);
create index billing_suspensions_org_idx on billing_suspensions (org_id);

-- migrate:down
drop table billing_suspensions;
drop table billing_overlaps;
drop table billing_webhook_events;
drop table billing_jobs;
drop table billing_lines;
drop table billing_subscriptions;
drop table billing_settings;
drop table addons;
update plans set quotas = quotas - 'monitors_fast' - 'monitors_realtime' - 'lite_browser_fast' - 'lite_browser_realtime' - 'flow_browser_fast' - 'flow_browser_realtime' - 'custom_domains';
