import type { Sql } from "../client.ts";

export interface SessionIdentityRow {
  session_id: string;
  csrf_token: string;
  user_id: string;
  email: string;
  totp_enabled: boolean;
  org_id: string | null;
  role_id: string | null;
  permissions: string[] | null;
  require_2fa: boolean;
  /** The organisation a single sign-on session is confined to; null for a password session. */
  org_scope: string | null;
  /** A password session in an organisation that requires single sign-on, as a member who does not own it: its SSO name. */
  sso_required_slug: string | null;
  last_seen_at: Date;
  expires_at: Date;
}

/** The session's user and the organisation it acts in: `orgId` when given (membership required), else the default one. */
export async function findSessionIdentity(sql: Sql, tokenHash: Buffer, orgId: string | null): Promise<SessionIdentityRow | undefined> {
  const [row] = await sql<SessionIdentityRow[]>`
    select s.id as session_id, s.csrf_token, s.last_seen_at, s.expires_at, s.org_scope, u.id as user_id, u.email, u.totp_enabled,
           m.org_id, m.role_id, r.permissions, coalesce(p.require_2fa, false) as require_2fa,
           case when m.password_refused then m.sso_slug end as sso_required_slug
    from sessions s
    join users u on u.id = s.user_id
    left join lateral (
      select ms.org_id, ms.role_id, c.slug as sso_slug,
             (s.org_scope is null and coalesce(c.require_sso, false) and ms.role_id <> 'owner') as password_refused
      from memberships ms left join org_sso_configs c on c.org_id = ms.org_id
      where ms.user_id = u.id and (${orgId}::text is null or ms.org_id = ${orgId}) and (s.org_scope is null or ms.org_id = s.org_scope)
      -- Without X-Org-Id: an organisation the session may act in first.
      order by password_refused asc, ms.is_default desc, ms.created_at asc limit 1
    ) m on true
    left join roles r on r.id = m.role_id
    left join org_security_policies p on p.org_id = m.org_id
    where s.token_hash = ${tokenHash} and s.expires_at > now()`;
  return row;
}

export async function touchSession(sql: Sql, sessionId: string): Promise<void> {
  await sql`update sessions set last_seen_at = now() where id = ${sessionId}`;
}

export interface ApiKeyIdentityRow {
  key_id: string;
  org_id: string;
  user_id: string;
  scopes: string[];
  role_id: string;
  permissions: string[];
  last_used_at: Date | null;
  /** The key's own expiry (a key made by a key never expires after its maker). */
  expires_at: Date | null;
}

/**
 * A live key whose creator is still a member; the creator's current role bounds what it grants.
 * Every key up its chain of makers must be live too: revocation also marks the keys a key made,
 * but one minted while that statement ran would escape it.
 */
export async function findApiKeyIdentity(sql: Sql, keyHash: Buffer): Promise<ApiKeyIdentityRow | undefined> {
  const [row] = await sql<ApiKeyIdentityRow[]>`
    select k.id as key_id, k.org_id, k.created_by as user_id, k.scopes, k.last_used_at, k.expires_at, m.role_id, r.permissions
    from api_keys k
    join memberships m on m.org_id = k.org_id and m.user_id = k.created_by
    join roles r on r.id = m.role_id
    where k.key_hash = ${keyHash} and k.revoked_at is null and (k.expires_at is null or k.expires_at > now())
      and not exists (
        with recursive makers (id) as (
          select k.created_by_key
          union
          select a.created_by_key from api_keys a join makers on a.id = makers.id
        )
        select 1 from api_keys a join makers on a.id = makers.id
        where a.revoked_at is not null or (a.expires_at is not null and a.expires_at <= now())
      )`;
  return row;
}

export async function touchApiKey(sql: Sql, keyId: string): Promise<void> {
  await sql`update api_keys set last_used_at = now() where id = ${keyId}`;
}
