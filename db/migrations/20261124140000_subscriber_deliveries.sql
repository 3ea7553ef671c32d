-- migrate:up
-- Incident notices to status-page subscribers as an outbox: one row per (incident update, address),
-- written in the incident's transaction, sent by every API process's dispatcher with retries.
create table subscriber_deliveries (
  id text primary key,
  org_id text not null references organisations(id) on delete cascade,
  -- Unsubscribing deletes the subscriber and with it every notice not sent yet.
  subscriber_id text not null references status_page_subscribers(id) on delete cascade,
  incident_id text not null references incidents(id) on delete cascade,
  update_id text not null references incident_updates(id) on delete cascade,
  kind text not null check (kind in ('created', 'updated', 'resolved')),
  status text not null default 'pending' check (status in ('pending', 'sent', 'failed')),
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  last_error text,
  created_at timestamptz not null default now(),
  sent_at timestamptz,
  unique (update_id, subscriber_id)
);
create index subscriber_deliveries_due_idx on subscriber_deliveries (next_attempt_at) where status = 'pending';
create index subscriber_deliveries_subscriber_idx on subscriber_deliveries (subscriber_id);

-- Wakes the dispatchers of every API process when notices are written.
create function subscriber_deliveries_wake() returns trigger language plpgsql as $$
begin
  perform pg_notify('wp_subscriber_deliveries', '');
  return null;
end $$;
create trigger subscriber_deliveries_wake after insert on subscriber_deliveries
  for each statement execute function subscriber_deliveries_wake();

-- migrate:down
drop trigger subscriber_deliveries_wake on subscriber_deliveries;
drop function subscriber_deliveries_wake();
drop table subscriber_deliveries;
