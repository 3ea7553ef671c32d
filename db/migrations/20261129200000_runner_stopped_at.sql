-- migrate:up
-- When a runner last ended its session on a graceful stop (SIGTERM, SIGINT: POST /runner/session/end). A runner
-- with it set is offline at once, whatever its last heartbeat; opening a session clears it (docs/runners.md).
alter table runners add column stopped_at timestamptz;

-- migrate:down
alter table runners drop column stopped_at;
