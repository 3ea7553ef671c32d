-- migrate:up
-- The stable key a config file (the `watchpost` CLI's watchpost.yaml) gives an alert channel: renaming the
-- channel in the file is then an update of the same channel. Unique within an organisation when set.
alter table alert_channels add column config_key text;
create unique index alert_channels_org_config_key on alert_channels (org_id, config_key) where config_key is not null;

-- migrate:down
drop index alert_channels_org_config_key;
alter table alert_channels drop column config_key;
