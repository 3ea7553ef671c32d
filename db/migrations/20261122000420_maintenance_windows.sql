-- migrate:up
-- One-off (starts_at..ends_at) or recurring (rrule or cron, each occurrence duration_minutes long,
-- optionally bounded by starts_at/ends_at). Empty monitor_ids and tags means every monitor.
create table maintenance_windows (
  id text primary key,
  org_id text not null references organisations(id) on delete cascade,
  name text not null,
  description text not null default '',
  starts_at timestamptz,
  ends_at timestamptz,
  rrule text,
  cron text,
  duration_minutes integer check (duration_minutes between 1 and 44640),
  timezone text not null default 'UTC',
  monitor_ids text[] not null default '{}',
  tags text[] not null default '{}',
  pause_monitors boolean not null default false,
  suppress_alerts boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check (num_nonnulls(rrule, cron) <= 1),
  check ((rrule is null and cron is null) = (duration_minutes is null)),
  check (rrule is not null or cron is not null or (starts_at is not null and ends_at is not null and ends_at > starts_at))
);
create index maintenance_windows_org_idx on maintenance_windows (org_id, created_at desc, id desc);

-- The scheduler caches windows that pause monitors; it reloads an organisation's on this signal.
create function notify_maintenance_change() returns trigger language plpgsql as $$
begin
  perform pg_notify('wp_maintenance', coalesce(new.org_id, old.org_id));
  return null;
end $$;
create trigger maintenance_windows_changed after insert or update or delete on maintenance_windows
  for each row execute function notify_maintenance_change();

-- migrate:down
drop trigger maintenance_windows_changed on maintenance_windows;
drop function notify_maintenance_change();
drop table maintenance_windows;
