-- migrate:up
-- Per-account sign-in throttle (docs/security.md): keyed by the SHA-256 of the lower-cased email,
-- so an address without an account is throttled exactly like one with an account.
create table sign_in_throttles (
  account_key bytea primary key,
  failures integer not null,
  last_attempt_at timestamptz not null,
  blocked_until timestamptz
);
create index sign_in_throttles_last_attempt_idx on sign_in_throttles (last_attempt_at);

-- The last TOTP time step accepted for the user: a code of that step or an earlier one is refused (RFC 6238 §5.2).
alter table users add column totp_last_step bigint;

-- One-time codes that stand in for a TOTP code; only their SHA-256 is kept.
create table recovery_codes (
  user_id text not null references users(id) on delete cascade,
  code_hash bytea not null,
  created_at timestamptz not null default now(),
  used_at timestamptz,
  primary key (user_id, code_hash)
);

-- migrate:down
drop table recovery_codes;
alter table users drop column totp_last_step;
drop table sign_in_throttles;
