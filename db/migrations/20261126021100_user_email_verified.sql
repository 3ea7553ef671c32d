-- migrate:up
-- When a token mailed to the user's current address was last used (an invitation accepted by its
-- token). Anyone can sign up with any address, so accepting or listing invitations by the account's
-- email alone needs this proof; changing the email clears it. Existing accounts start unproven.
alter table users add column email_verified_at timestamptz;

-- migrate:down
alter table users drop column email_verified_at;
