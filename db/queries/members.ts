import type { Sql } from "../client.ts";

export interface MemberRow {
  user_id: string;
  email: string;
  name: string;
  role_id: string;
  totp_enabled: boolean;
  created_at: Date;
}

export async function insertMembership(sql: Sql, m: { orgId: string; userId: string; roleId: string; isDefault: boolean }): Promise<void> {
  await sql`insert into memberships (org_id, user_id, role_id, is_default) values (${m.orgId}, ${m.userId}, ${m.roleId}, ${m.isDefault})`;
}

export async function listMembers(sql: Sql, orgId: string, limit: number, offset: number): Promise<{ rows: MemberRow[]; total: number }> {
  const rows = await sql<MemberRow[]>`
    select u.id as user_id, u.email, u.name, m.role_id, u.totp_enabled, m.created_at
    from memberships m join users u on u.id = m.user_id
    where m.org_id = ${orgId} order by m.created_at asc, u.id limit ${limit} offset ${offset}`;
  const [count] = await sql<{ n: number }[]>`select count(*)::int as n from memberships where org_id = ${orgId}`;
  return { rows, total: count!.n };
}

export async function findMember(sql: Sql, orgId: string, userId: string): Promise<MemberRow | undefined> {
  const [row] = await sql<MemberRow[]>`
    select u.id as user_id, u.email, u.name, m.role_id, u.totp_enabled, m.created_at
    from memberships m join users u on u.id = m.user_id where m.org_id = ${orgId} and m.user_id = ${userId}`;
  return row;
}

export async function countOwners(sql: Sql, orgId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from memberships where org_id = ${orgId} and role_id = 'owner'`;
  return row!.n;
}

export async function setMemberRole(sql: Sql, orgId: string, userId: string, roleId: string): Promise<void> {
  await sql`update memberships set role_id = ${roleId} where org_id = ${orgId} and user_id = ${userId}`;
}

/**
 * Removes a member and, in the same statement, revokes the API keys they made in the organisation and the
 * pending invitations they sent: both are bounded by the membership, and must not come back to life if the
 * person is invited back later.
 */
export async function deleteMembership(sql: Sql, orgId: string, userId: string): Promise<void> {
  await sql`
    with keys as (
      update api_keys set revoked_at = now() where org_id = ${orgId} and created_by = ${userId} and revoked_at is null
    ), invitations_sent as (
      update invitations set revoked_at = now()
      where org_id = ${orgId} and invited_by = ${userId} and accepted_at is null and revoked_at is null
    )
    delete from memberships where org_id = ${orgId} and user_id = ${userId}`;
}

/** Organisations where this user is the only owner, with how many other members they have. */
export async function soleOwnedOrgs(sql: Sql, userId: string): Promise<{ org_id: string; name: string; other_members: number }[]> {
  return sql`
    select o.id as org_id, o.name, (select count(*)::int from memberships x where x.org_id = o.id and x.user_id <> ${userId}) as other_members
    from memberships m join organisations o on o.id = m.org_id
    where m.user_id = ${userId} and m.role_id = 'owner'
      and not exists (select 1 from memberships y where y.org_id = o.id and y.role_id = 'owner' and y.user_id <> ${userId})`;
}

export async function countUserMemberships(sql: Sql, userId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from memberships where user_id = ${userId}`;
  return row!.n;
}
