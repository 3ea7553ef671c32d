-- migrate:up
-- The key an invitation was sent with (null when a signed-in user sent it): revoking the key revokes
-- its pending invitations, as it revokes the keys it made.
alter table invitations add column invited_by_key text references api_keys(id) on delete cascade;
create index invitations_invited_by_key_idx on invitations (invited_by_key) where invited_by_key is not null;

-- migrate:down
drop index invitations_invited_by_key_idx;
alter table invitations drop column invited_by_key;
