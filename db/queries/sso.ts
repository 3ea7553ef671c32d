import type { Sql } from "../client.ts";

export interface SsoConfigRow {
  id: string;
  org_id: string;
  slug: string;
  issuer: string;
  client_id: string;
  client_secret_enc: string;
  allowed_domains: string[];
  default_role_id: string;
  require_sso: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface SsoConfigWrite {
  id: string;
  orgId: string;
  slug: string;
  issuer: string;
  clientId: string;
  clientSecretEnc: string;
  allowedDomains: string[];
  defaultRoleId: string;
  requireSso: boolean;
}

export async function findSsoConfig(sql: Sql, orgId: string): Promise<SsoConfigRow | undefined> {
  const [row] = await sql<SsoConfigRow[]>`select * from org_sso_configs where org_id = ${orgId}`;
  return row;
}

export async function findSsoConfigBySlug(sql: Sql, slug: string): Promise<SsoConfigRow | undefined> {
  const [row] = await sql<SsoConfigRow[]>`select * from org_sso_configs where lower(slug) = lower(${slug})`;
  return row;
}

/** Every configuration that lists `domain` (lower case) among its allowed email domains. */
export async function findSsoConfigsByDomain(sql: Sql, domain: string): Promise<SsoConfigRow[]> {
  return sql<SsoConfigRow[]>`select * from org_sso_configs where allowed_domains @> array[${domain}]::text[] order by created_at limit 5`;
}

/** Inserts or replaces the organisation's configuration (one per organisation). */
export async function upsertSsoConfig(sql: Sql, c: SsoConfigWrite): Promise<SsoConfigRow> {
  const [row] = await sql<SsoConfigRow[]>`
    insert into org_sso_configs (id, org_id, slug, issuer, client_id, client_secret_enc, allowed_domains, default_role_id, require_sso)
    values (${c.id}, ${c.orgId}, ${c.slug}, ${c.issuer}, ${c.clientId}, ${c.clientSecretEnc}, ${c.allowedDomains}, ${c.defaultRoleId}, ${c.requireSso})
    on conflict (org_id) do update set
      slug = excluded.slug, issuer = excluded.issuer, client_id = excluded.client_id, client_secret_enc = excluded.client_secret_enc,
      allowed_domains = excluded.allowed_domains, default_role_id = excluded.default_role_id, require_sso = excluded.require_sso, updated_at = now()
    returning *`;
  return row!;
}

export async function deleteSsoConfig(sql: Sql, orgId: string): Promise<boolean> {
  const rows = await sql`delete from org_sso_configs where org_id = ${orgId} returning id`;
  if (rows.length > 0) await sql`delete from sso_identities where org_id = ${orgId}`;
  return rows.length > 0;
}

export async function findSsoIdentityUser(sql: Sql, orgId: string, issuer: string, subject: string): Promise<string | undefined> {
  const [row] = await sql<{ user_id: string }[]>`
    update sso_identities set last_sign_in_at = now() where org_id = ${orgId} and issuer = ${issuer} and subject = ${subject} returning user_id`;
  return row?.user_id;
}

export async function insertSsoIdentity(sql: Sql, i: { orgId: string; issuer: string; subject: string; userId: string }): Promise<void> {
  await sql`insert into sso_identities (org_id, issuer, subject, user_id) values (${i.orgId}, ${i.issuer}, ${i.subject}, ${i.userId})`;
}

/**
 * The organisations among the user's that require SSO and in which the user is not an owner: password
 * sign-in is refused while there is one (owners keep it as the break-glass way in).
 */
/** How many of the user's organisations take a password session: those not requiring SSO, and those they own. */
export async function passwordOrgCount(sql: Sql, userId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from memberships m left join org_sso_configs c on c.org_id = m.org_id
    where m.user_id = ${userId} and not (coalesce(c.require_sso, false) and m.role_id <> 'owner')`;
  return row!.n;
}

export async function ssoRequiredFor(sql: Sql, userId: string): Promise<{ org_id: string; slug: string }[]> {
  return sql<{ org_id: string; slug: string }[]>`
    select c.org_id, c.slug from memberships m join org_sso_configs c on c.org_id = m.org_id
    where m.user_id = ${userId} and c.require_sso and m.role_id <> 'owner' order by c.slug`;
}
