-- migrate:up
-- Managing API keys becomes a permission of its own (api_keys:write): read-only keys and viewers
-- lose it; the member role keeps what it could do. Custom roles get it only when an admin grants it.
update roles set permissions = array_append(permissions, 'api_keys:write'), updated_at = now()
where id = 'member' and org_id is null and not ('api_keys:write' = any (permissions));

-- The key that made a key (null when a signed-in user made it): revoking a key revokes what it made.
alter table api_keys add column created_by_key text references api_keys(id) on delete cascade;
create index api_keys_created_by_key_idx on api_keys (created_by_key) where created_by_key is not null;

-- migrate:down
drop index api_keys_created_by_key_idx;
alter table api_keys drop column created_by_key;
update roles set permissions = array_remove(permissions, 'api_keys:write') where 'api_keys:write' = any (permissions);
update api_keys set scopes = array_remove(scopes, 'api_keys:write') where 'api_keys:write' = any (scopes);
