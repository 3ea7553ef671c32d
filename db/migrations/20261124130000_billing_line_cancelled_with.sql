-- migrate:up
-- An add-on line ended together with the plan line (its minimum plan is above Free) records that
-- plan line, so resuming the plan resumes it too; a line the user cancelled alone stays null.
alter table billing_lines add column cancelled_with text;

-- migrate:down
alter table billing_lines drop column cancelled_with;
