-- migrate:up
-- API processes cache resolved callers; any change that could alter who a credential is or what
-- it may do notifies them on channel wp_identity so revocations take effect at once everywhere.
create function notify_identity_change() returns trigger language plpgsql as $$
begin
  perform pg_notify('wp_identity', tg_table_name);
  return null;
end $$;

create trigger api_keys_identity after update of revoked_at, expires_at, scopes or delete on api_keys for each statement execute function notify_identity_change();
create trigger memberships_identity after update or delete on memberships for each statement execute function notify_identity_change();
create trigger roles_identity after update or delete on roles for each statement execute function notify_identity_change();
create trigger sessions_identity after delete on sessions for each statement execute function notify_identity_change();
create trigger users_identity after update of totp_enabled, email or delete on users for each statement execute function notify_identity_change();
create trigger policies_identity after update or delete on org_security_policies for each statement execute function notify_identity_change();

-- migrate:down
drop trigger api_keys_identity on api_keys;
drop trigger memberships_identity on memberships;
drop trigger roles_identity on roles;
drop trigger sessions_identity on sessions;
drop trigger users_identity on users;
drop trigger policies_identity on org_security_policies;
drop function notify_identity_change();
