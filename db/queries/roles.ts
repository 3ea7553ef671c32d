import type { Sql } from "../client.ts";

export interface RoleRow {
  id: string;
  org_id: string | null;
  name: string;
  description: string;
  permissions: string[];
  created_at: Date;
  updated_at: Date;
}

/** The system roles and this organisation's custom ones. */
export async function listRoles(sql: Sql, orgId: string): Promise<RoleRow[]> {
  return sql<RoleRow[]>`select * from roles where org_id is null or org_id = ${orgId} order by org_id nulls first, created_at, name`;
}

export async function findRole(sql: Sql, orgId: string, roleId: string): Promise<RoleRow | undefined> {
  const [row] = await sql<RoleRow[]>`select * from roles where id = ${roleId} and (org_id is null or org_id = ${orgId})`;
  return row;
}

export async function insertRole(sql: Sql, r: { id: string; orgId: string; name: string; description: string; permissions: string[] }): Promise<RoleRow> {
  const [row] = await sql<RoleRow[]>`
    insert into roles (id, org_id, name, description, permissions)
    values (${r.id}, ${r.orgId}, ${r.name}, ${r.description}, ${r.permissions}) returning *`;
  return row!;
}

export async function updateRole(
  sql: Sql,
  orgId: string,
  roleId: string,
  patch: { name?: string; description?: string; permissions?: string[] },
): Promise<RoleRow | undefined> {
  const [row] = await sql<RoleRow[]>`
    update roles set name = coalesce(${patch.name ?? null}, name), description = coalesce(${patch.description ?? null}, description),
      permissions = coalesce(${patch.permissions ?? null}::text[], permissions), updated_at = now()
    where id = ${roleId} and org_id = ${orgId} returning *`;
  return row;
}

export async function roleInUse(sql: Sql, roleId: string): Promise<boolean> {
  const [row] = await sql<{ used: boolean }[]>`
    select exists(select 1 from memberships where role_id = ${roleId})
        or exists(select 1 from invitations where role_id = ${roleId} and accepted_at is null and revoked_at is null and expires_at > now())
        or exists(select 1 from org_sso_configs where default_role_id = ${roleId}) as used`;
  return row!.used;
}

/** Deletes an unused role with the finished (accepted, revoked, expired) invitations that still name it. */
export async function deleteRole(sql: Sql, orgId: string, roleId: string): Promise<boolean> {
  await sql`
    delete from invitations where org_id = ${orgId} and role_id = ${roleId}
      and (accepted_at is not null or revoked_at is not null or expires_at <= now())`;
  const rows = await sql`delete from roles where id = ${roleId} and org_id = ${orgId} returning id`;
  return rows.length > 0;
}
