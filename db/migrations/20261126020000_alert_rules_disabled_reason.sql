-- migrate:up
-- Why the system (not a person) disabled a rule; cleared when a person enables it again or gives it a new scope.
alter table alert_rules add column disabled_reason text;

-- A rule scoped to one monitor loses it when the monitor is deleted, by whatever path (one, bulk,
-- suspension clean-up): it is disabled and says why, instead of keeping an id nothing answers to.
create function alert_rules_forget_monitor() returns trigger language plpgsql as $$
begin
  update alert_rules
     set enabled = false,
         disabled_reason = format('Its monitor "%s" (%s) was deleted; give the rule another scope to enable it again.', old.name, old.id),
         updated_at = now()
   where org_id = old.org_id and scope->>'type' = 'monitor' and scope->>'monitor_id' = old.id;
  return old;
end $$;

create trigger monitors_forget_in_alert_rules after delete on monitors
  for each row execute function alert_rules_forget_monitor();

-- migrate:down
drop trigger monitors_forget_in_alert_rules on monitors;
drop function alert_rules_forget_monitor();
alter table alert_rules drop column disabled_reason;
