-- migrate:up
-- A runner session deleted (session/end, revoke) notifies every API process on wp_identity, so a claim long-poll of
-- that session returns at once wherever it waits, even when a proxy kept it open after the runner left. Only when a
-- row went: opening a session prunes old ones with a delete that usually removes none.
create function notify_runner_session_gone() returns trigger language plpgsql as $$
begin
  if exists (select 1 from gone) then
    perform pg_notify('wp_identity', tg_table_name);
  end if;
  return null;
end $$;

create trigger runner_sessions_identity after delete on runner_sessions referencing old table as gone
  for each statement execute function notify_runner_session_gone();

-- migrate:down
drop trigger runner_sessions_identity on runner_sessions;
drop function notify_runner_session_gone();
