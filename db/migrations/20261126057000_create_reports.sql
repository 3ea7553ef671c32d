-- migrate:up
-- Scheduled report emails (#22 item 6): a weekly or monthly summary of one organisation or one status
-- page. `next_send_at` is the next scheduled occurrence; the alerting role sends what is due.
create table reports (
  id text primary key,
  org_id text not null references organisations(id) on delete cascade,
  name text not null,
  scope text not null check (scope in ('org', 'status_page')),
  status_page_id text references status_pages(id) on delete cascade,
  frequency text not null check (frequency in ('weekly', 'monthly')),
  -- weekly: ISO weekday 1 (Monday) .. 7 (Sunday); monthly: day of the month 1..28
  day smallint not null check (day between 1 and 28),
  send_time text not null check (send_time ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
  timezone text not null,
  -- [{"type":"member","user_id":"..."} | {"type":"email","email":"..."}]
  recipients jsonb not null default '[]'::jsonb,
  enabled boolean not null default true,
  next_send_at timestamptz not null,
  last_sent_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check ((scope = 'status_page') = (status_page_id is not null)),
  check (frequency = 'monthly' or day <= 7)
);
create index reports_org_idx on reports (org_id, created_at, id);
create index reports_due_idx on reports (next_send_at) where enabled;

-- One row per report and period: the idempotency key that makes a period's mail go out once, however
-- many alerting processes find the report due at the same time.
create table report_deliveries (
  report_id text not null references reports(id) on delete cascade,
  period_start timestamptz not null,
  period_end timestamptz not null,
  recipients integer not null,
  created_at timestamptz not null default now(),
  primary key (report_id, period_start)
);

-- Addresses that unsubscribed from one report with the signed link; never mailed that report again.
create table report_unsubscribes (
  report_id text not null references reports(id) on delete cascade,
  email text not null,
  created_at timestamptz not null default now(),
  primary key (report_id, email)
);

-- Inline images (the report's chart, referenced from the HTML by cid:) travel with the queued mail.
alter table mail_outbox add column attachments jsonb not null default '[]'::jsonb;

-- migrate:down
alter table mail_outbox drop column attachments;
drop table report_unsubscribes;
drop table report_deliveries;
drop table reports;
