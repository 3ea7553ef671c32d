-- migrate:up
-- A channel's own message template (Mustache: {"title": "...", "body": "..."}, either optional; null = Watchpost's
-- layout) and the time zone its messages show times in (IANA name). Validated by the API on save.
alter table alert_channels
  add column message_template jsonb,
  add column timezone text not null default 'UTC';

-- migrate:down
alter table alert_channels drop column message_template, drop column timezone;
