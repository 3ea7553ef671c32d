-- migrate:up
-- Transactional mail (invitations, password resets, subscription confirmations, billing reminders) as an
-- outbox: the API writes a row in the transaction of the change that causes it, and the alerting role
-- delivers it with retries. A body holding a secret (a reset or invitation token) is sealed with the
-- secret key (`sealed`); bodies are cleared once the mail is sent or given up.
create table mail_outbox (
  id text primary key,
  org_id text references organisations(id) on delete cascade,
  kind text not null,
  to_addr text not null,
  subject text not null,
  text_body text not null,
  html_body text,
  headers jsonb not null default '{}'::jsonb,
  sealed boolean not null default false,
  status text not null default 'pending' check (status in ('pending', 'sent', 'failed')),
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  lease_until timestamptz,
  last_error text,
  created_at timestamptz not null default now(),
  sent_at timestamptz
);
create index mail_outbox_due_idx on mail_outbox (status, next_attempt_at);

-- Wakes the mail deliverers (alerting role) when mail is written.
create function mail_outbox_wake() returns trigger language plpgsql as $$
begin
  perform pg_notify('wp_mail_outbox', '');
  return null;
end $$;
create trigger mail_outbox_wake after insert on mail_outbox
  for each statement execute function mail_outbox_wake();

-- migrate:down
drop trigger mail_outbox_wake on mail_outbox;
drop function mail_outbox_wake();
drop table mail_outbox;
