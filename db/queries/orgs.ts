import type { Sql } from "../client.ts";

export interface OrgRow {
  id: string;
  name: string;
  plan_id: string;
  created_at: Date;
  updated_at: Date;
}

export interface MyOrgRow extends OrgRow {
  role_id: string;
  is_default: boolean;
  require_2fa: boolean;
  /** The organisation signs in with single sign-on (a provider is configured). */
  sso: boolean;
}

export async function insertOrg(sql: Sql, o: { id: string; name: string; planId: string }): Promise<OrgRow> {
  const [row] = await sql<OrgRow[]>`insert into organisations (id, name, plan_id) values (${o.id}, ${o.name}, ${o.planId}) returning *`;
  await sql`insert into org_security_policies (org_id) values (${o.id})`;
  return row!;
}

export async function findOrg(sql: Sql, orgId: string): Promise<OrgRow | undefined> {
  const [row] = await sql<OrgRow[]>`select * from organisations where id = ${orgId}`;
  return row;
}

export async function updateOrgName(sql: Sql, orgId: string, name: string): Promise<OrgRow | undefined> {
  const [row] = await sql<OrgRow[]>`update organisations set name = ${name}, updated_at = now() where id = ${orgId} returning *`;
  return row;
}

export async function deleteOrg(sql: Sql, orgId: string): Promise<void> {
  await sql`delete from organisations where id = ${orgId}`;
}

export async function listUserOrgs(sql: Sql, userId: string): Promise<MyOrgRow[]> {
  return sql<MyOrgRow[]>`
    select o.*, m.role_id, m.is_default, coalesce(p.require_2fa, false) as require_2fa,
           exists (select 1 from org_sso_configs c where c.org_id = o.id) as sso
    from memberships m join organisations o on o.id = m.org_id left join org_security_policies p on p.org_id = o.id
    where m.user_id = ${userId} order by m.is_default desc, m.created_at asc`;
}

export interface SecurityPolicyRow {
  org_id: string;
  require_2fa: boolean;
  updated_at: Date;
}

export async function findSecurityPolicy(sql: Sql, orgId: string): Promise<SecurityPolicyRow> {
  const [row] = await sql<SecurityPolicyRow[]>`
    insert into org_security_policies (org_id) values (${orgId})
    on conflict (org_id) do update set org_id = excluded.org_id returning *`;
  return row!;
}

export async function updateSecurityPolicy(sql: Sql, orgId: string, require2fa: boolean): Promise<SecurityPolicyRow> {
  const [row] = await sql<SecurityPolicyRow[]>`
    insert into org_security_policies (org_id, require_2fa) values (${orgId}, ${require2fa})
    on conflict (org_id) do update set require_2fa = excluded.require_2fa, updated_at = now() returning *`;
  return row!;
}

/** Whether any organisation exists (the first-run setup is offered only while none does). */
export async function anyOrgExists(sql: Sql): Promise<boolean> {
  const [row] = await sql<{ exists: boolean }[]>`select exists (select 1 from organisations) as exists`;
  return row!.exists;
}
