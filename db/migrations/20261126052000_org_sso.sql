-- migrate:up
-- Single sign-on with OpenID Connect (docs/sso.md): at most one provider per organisation.
create table org_sso_configs (
  id text primary key,
  org_id text not null unique references organisations(id) on delete cascade,
  -- What people type on the sign-in page ("Sign in with SSO" by organisation); unique per deployment.
  slug text not null,
  issuer text not null,
  client_id text not null,
  -- SecretBox value (SECRET_KEY); never returned by the API.
  client_secret_enc text not null,
  -- Lower-case email domains that may sign in (and be provisioned); empty: any the provider vouches for.
  allowed_domains text[] not null default '{}',
  -- The role given to people provisioned on their first SSO sign-in (never owner).
  default_role_id text not null references roles(id),
  -- Password sign-in refused for members of this organisation, owners excepted (break-glass).
  require_sso boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index org_sso_configs_slug_key on org_sso_configs (lower(slug));
create index org_sso_configs_domains_idx on org_sso_configs using gin (allowed_domains);

-- Which provider subject is which user: a later sign-in finds the user by (org, issuer, subject), not by email.
create table sso_identities (
  org_id text not null references organisations(id) on delete cascade,
  issuer text not null,
  subject text not null,
  user_id text not null references users(id) on delete cascade,
  created_at timestamptz not null default now(),
  last_sign_in_at timestamptz not null default now(),
  primary key (org_id, issuer, subject)
);
create index sso_identities_user_idx on sso_identities (user_id);

-- migrate:down
drop table sso_identities;
drop table org_sso_configs;
