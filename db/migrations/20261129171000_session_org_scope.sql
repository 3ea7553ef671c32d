-- migrate:up
-- A session opened by an organisation's single sign-on acts in that organisation only: its provider vouches for
-- the person's place there, not for their other organisations (docs/sso.md). Null: a password session.
alter table sessions add column org_scope text references organisations(id) on delete cascade;

-- migrate:down
alter table sessions drop column org_scope;
