-- migrate:up
-- The stable key a config file (the `watchpost` CLI's watchpost.yaml) gives an alert channel, rule,
-- escalation policy or maintenance window: renaming
-- it in the file is then an update of the same row. Unique within an organisation when set.
alter table alert_channels add column config_key text;
create unique index alert_channels_org_config_key on alert_channels (org_id, config_key) where config_key is not null;
alter table alert_rules add column config_key text;
create unique index alert_rules_org_config_key on alert_rules (org_id, config_key) where config_key is not null;
alter table escalation_policies add column config_key text;
create unique index escalation_policies_org_config_key on escalation_policies (org_id, config_key) where config_key is not null;
alter table maintenance_windows add column config_key text;
create unique index maintenance_windows_org_config_key on maintenance_windows (org_id, config_key) where config_key is not null;

-- migrate:down
drop index escalation_policies_org_config_key;
alter table escalation_policies drop column config_key;
drop index maintenance_windows_org_config_key;
alter table maintenance_windows drop column config_key;
drop index alert_rules_org_config_key;
alter table alert_rules drop column config_key;
drop index alert_channels_org_config_key;
alter table alert_channels drop column config_key;
