import type { Sql } from "../client.ts";

export interface InvitationRow {
  id: string;
  org_id: string;
  email: string;
  role_id: string;
  invited_by: string | null;
  invited_by_key: string | null;
  created_at: Date;
  expires_at: Date;
  accepted_at: Date | null;
  revoked_at: Date | null;
}

export async function insertInvitation(
  sql: Sql,
  i: { id: string; orgId: string; email: string; roleId: string; tokenHash: Buffer; invitedBy: string; invitedByKey: string | null; expiresAt: Date },
): Promise<InvitationRow> {
  const [row] = await sql<InvitationRow[]>`
    insert into invitations (id, org_id, email, role_id, token_hash, invited_by, invited_by_key, expires_at)
    values (${i.id}, ${i.orgId}, ${i.email}, ${i.roleId}, ${i.tokenHash}, ${i.invitedBy}, ${i.invitedByKey}, ${i.expiresAt})
    returning id, org_id, email, role_id, invited_by, invited_by_key, created_at, expires_at, accepted_at, revoked_at`;
  return row!;
}

export async function listOrgInvitations(sql: Sql, orgId: string, limit: number, offset: number): Promise<{ rows: InvitationRow[]; total: number }> {
  const rows = await sql<InvitationRow[]>`
    select id, org_id, email, role_id, invited_by, invited_by_key, created_at, expires_at, accepted_at, revoked_at from invitations
    where org_id = ${orgId} and accepted_at is null and revoked_at is null and expires_at > now()
    order by created_at desc, id limit ${limit} offset ${offset}`;
  const [c] = await sql<{ n: number }[]>`
    select count(*)::int as n from invitations where org_id = ${orgId} and accepted_at is null and revoked_at is null and expires_at > now()`;
  return { rows, total: c!.n };
}

export async function pendingInvitationForEmail(sql: Sql, orgId: string, email: string): Promise<InvitationRow | undefined> {
  const [row] = await sql<InvitationRow[]>`
    select id, org_id, email, role_id, invited_by, invited_by_key, created_at, expires_at, accepted_at, revoked_at from invitations
    where org_id = ${orgId} and lower(email) = lower(${email}) and accepted_at is null and revoked_at is null and expires_at > now()`;
  return row;
}

export async function revokeInvitation(sql: Sql, orgId: string, id: string): Promise<boolean> {
  const rows = await sql`update invitations set revoked_at = now() where id = ${id} and org_id = ${orgId} and accepted_at is null and revoked_at is null returning id`;
  return rows.length > 0;
}

export async function listInvitationsForEmail(sql: Sql, email: string): Promise<(InvitationRow & { org_name: string })[]> {
  return sql`
    select i.id, i.org_id, o.name as org_name, i.email, i.role_id, i.invited_by, i.invited_by_key, i.created_at, i.expires_at, i.accepted_at, i.revoked_at
    from invitations i join organisations o on o.id = i.org_id
    where lower(i.email) = lower(${email}) and i.accepted_at is null and i.revoked_at is null and i.expires_at > now()
    order by i.created_at desc`;
}

/** Marks the invitation accepted and returns it, or nothing when it is unknown, used, revoked or expired. */
export async function acceptInvitationByToken(sql: Sql, tokenHash: Buffer): Promise<InvitationRow | undefined> {
  const [row] = await sql<InvitationRow[]>`
    update invitations set accepted_at = now()
    where token_hash = ${tokenHash} and accepted_at is null and revoked_at is null and expires_at > now()
    returning id, org_id, email, role_id, invited_by, invited_by_key, created_at, expires_at, accepted_at, revoked_at`;
  return row;
}

export async function acceptInvitationById(sql: Sql, id: string, email: string): Promise<InvitationRow | undefined> {
  const [row] = await sql<InvitationRow[]>`
    update invitations set accepted_at = now()
    where id = ${id} and lower(email) = lower(${email}) and accepted_at is null and revoked_at is null and expires_at > now()
    returning id, org_id, email, role_id, invited_by, invited_by_key, created_at, expires_at, accepted_at, revoked_at`;
  return row;
}

/**
 * What the sender of an invitation may grant now: their current role's permissions, and the scopes
 * of the key they sent it with (null when that key is revoked or expired). Nothing when they left.
 */
export async function findInviterGrant(
  sql: Sql,
  orgId: string,
  userId: string,
  keyId: string | null,
): Promise<{ role_permissions: string[]; key_scopes: string[] | null } | undefined> {
  const [row] = await sql<{ role_permissions: string[]; key_scopes: string[] | null }[]>`
    select r.permissions as role_permissions, k.scopes as key_scopes
    from memberships m
    join roles r on r.id = m.role_id
    left join api_keys k on k.id = ${keyId} and k.org_id = m.org_id and k.created_by = m.user_id
      and k.revoked_at is null and (k.expires_at is null or k.expires_at > now())
    where m.org_id = ${orgId} and m.user_id = ${userId}`;
  return row;
}
