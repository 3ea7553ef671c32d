-- migrate:up
-- Who acknowledged which alert (rule × monitor × region, one incarnation of it), for the incident timeline.
create table alert_acknowledgements (
  id bigserial primary key,
  org_id text not null references organisations(id) on delete cascade,
  rule_id text not null,
  monitor_id text not null,
  region text not null,
  incarnation integer not null,
  actor_type text not null check (actor_type in ('user', 'api_key')),
  actor_id text,
  actor_label text not null,
  created_at timestamptz not null default now()
);
create index alert_acknowledgements_alert_idx on alert_acknowledgements (rule_id, monitor_id, region, incarnation);

-- migrate:down
drop table alert_acknowledgements;
