-- migrate:up
-- Custom themes; the built-in ones (light, dark, high-contrast) live in code (core/status-pages/themes.ts).
create table themes (
  id text primary key,
  org_id text not null references organisations(id) on delete cascade,
  name text not null,
  colors jsonb not null default '{}',
  logo_url text,
  favicon_url text,
  custom_css text not null default '',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index themes_org_idx on themes (org_id, created_at desc, id desc);

create table status_pages (
  id text primary key,
  org_id text not null references organisations(id) on delete cascade,
  name text not null,
  -- Unique per deployment: the public URL is /status/<slug>.
  slug text not null unique,
  description text not null default '',
  -- A built-in theme name or a custom theme id (no FK: built-ins are not rows).
  theme_id text not null default 'light',
  access_mode text not null default 'public' check (access_mode in ('public', 'password', 'members')),
  password_hash text,
  ip_allowlist text[] not null default '{}',
  custom_domain text unique,
  domain_token text,
  domain_verified_at timestamptz,
  suspended boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check (access_mode <> 'password' or password_hash is not null)
);
create index status_pages_org_idx on status_pages (org_id, created_at desc, id desc);

create table status_page_sections (
  id text primary key,
  org_id text not null,
  page_id text not null references status_pages(id) on delete cascade,
  name text not null,
  position integer not null
);
create index status_page_sections_page_idx on status_page_sections (page_id, position);

-- A component shows one monitor or every monitor carrying a tag.
create table status_page_components (
  id text primary key,
  org_id text not null,
  page_id text not null references status_pages(id) on delete cascade,
  section_id text not null references status_page_sections(id) on delete cascade,
  monitor_id text references monitors(id) on delete cascade,
  tag text,
  display_name text not null,
  description text not null default '',
  position integer not null,
  check (num_nonnulls(monitor_id, tag) = 1)
);
create index status_page_components_page_idx on status_page_components (page_id, position);
create index status_page_components_monitor_idx on status_page_components (monitor_id);

create table status_page_subscribers (
  id text primary key,
  org_id text not null,
  page_id text not null references status_pages(id) on delete cascade,
  kind text not null check (kind in ('email', 'webhook')),
  email text,
  webhook_url text,
  confirmed_at timestamptz,
  created_at timestamptz not null default now(),
  check ((kind = 'email') = (email is not null) and (kind = 'webhook') = (webhook_url is not null))
);
create unique index status_page_subscribers_email_key on status_page_subscribers (page_id, lower(email)) where email is not null;
create unique index status_page_subscribers_webhook_key on status_page_subscribers (page_id, webhook_url) where webhook_url is not null;

create table incidents (
  id text primary key,
  org_id text not null references organisations(id) on delete cascade,
  title text not null,
  impact text not null check (impact in ('none', 'minor', 'major', 'critical')),
  status text not null check (status in ('investigating', 'identified', 'monitoring', 'resolved')),
  page_ids text[] not null default '{}',
  component_ids text[] not null default '{}',
  resolved_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index incidents_org_idx on incidents (org_id, created_at desc, id desc);
create index incidents_pages_idx on incidents using gin (page_ids);

create table incident_updates (
  id text primary key,
  org_id text not null,
  incident_id text not null references incidents(id) on delete cascade,
  status text not null check (status in ('investigating', 'identified', 'monitoring', 'resolved')),
  message text not null,
  created_at timestamptz not null default now()
);
create index incident_updates_incident_idx on incident_updates (incident_id, created_at);

-- Public status pages are cached in each API process; every change that can alter what a page of
-- the organisation shows (monitor status, page, layout, theme, incident, maintenance) signals it.
create function notify_status_page_change() returns trigger language plpgsql as $$
begin
  perform pg_notify('wp_status_pages', coalesce(new.org_id, old.org_id));
  return null;
end $$;
create trigger status_pages_changed after insert or update or delete on status_pages for each row execute function notify_status_page_change();
create trigger status_page_sections_changed after insert or update or delete on status_page_sections for each row execute function notify_status_page_change();
create trigger status_page_components_changed after insert or update or delete on status_page_components for each row execute function notify_status_page_change();
create trigger themes_changed after insert or update or delete on themes for each row execute function notify_status_page_change();
create trigger incidents_changed after insert or update or delete on incidents for each row execute function notify_status_page_change();
create trigger incident_updates_changed after insert or update or delete on incident_updates for each row execute function notify_status_page_change();
create trigger status_page_maintenance_changed after insert or update or delete on maintenance_windows for each row execute function notify_status_page_change();
create trigger status_page_monitors_changed after update on monitors for each row
  when (old.status is distinct from new.status or old.name is distinct from new.name or old.tags is distinct from new.tags
        or old.paused is distinct from new.paused or old.suspended is distinct from new.suspended)
  execute function notify_status_page_change();
create trigger status_page_monitors_removed after delete on monitors for each row execute function notify_status_page_change();
-- A plan change can stop (or restart) a custom domain.
create function notify_status_page_org_change() returns trigger language plpgsql as $$
begin
  perform pg_notify('wp_status_pages', new.id);
  return null;
end $$;
create trigger status_page_org_plan_changed after update on organisations for each row
  when (old.plan_id is distinct from new.plan_id) execute function notify_status_page_org_change();

-- migrate:down
drop trigger status_page_org_plan_changed on organisations;
drop function notify_status_page_org_change();
drop trigger status_page_monitors_removed on monitors;
drop trigger status_page_monitors_changed on monitors;
drop trigger status_page_maintenance_changed on maintenance_windows;
drop table incident_updates;
drop table incidents;
drop table status_page_subscribers;
drop table status_page_components;
drop table status_page_sections;
drop table status_pages;
drop table themes;
drop function notify_status_page_change();
