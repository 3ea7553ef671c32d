import type { Sql } from "../client.ts";

export interface EscalationStep {
  delay_minutes: number;
  channel_ids: string[];
}

export interface EscalationPolicyRow {
  id: string;
  org_id: string;
  name: string;
  steps: EscalationStep[];
  /** The key a config file (watchpost.yaml) gives the policy; null when none did. */
  config_key?: string | null;
  created_at: Date;
  updated_at: Date;
}

export async function insertEscalationPolicy(sql: Sql, orgId: string, id: string, p: { name: string; steps: EscalationStep[]; configKey?: string | null }): Promise<EscalationPolicyRow> {
  const [row] = await sql<EscalationPolicyRow[]>`
    insert into escalation_policies (id, org_id, name, steps, config_key) values (${id}, ${orgId}, ${p.name}, ${sql.json(p.steps as never)}, ${p.configKey ?? null}) returning *`;
  return row!;
}

export async function updateEscalationPolicy(sql: Sql, orgId: string, id: string, p: { name: string; steps: EscalationStep[]; configKey?: string | null }): Promise<EscalationPolicyRow | undefined> {
  const [row] = await sql<EscalationPolicyRow[]>`
    update escalation_policies set name = ${p.name}, steps = ${sql.json(p.steps as never)}, config_key = ${p.configKey ?? null}, updated_at = now()
    where org_id = ${orgId} and id = ${id} returning *`;
  return row;
}

/** Whether another policy of the organisation already has this config key. */
export async function policyConfigKeyTaken(sql: Sql, orgId: string, key: string, exceptId: string | null): Promise<boolean> {
  const rows = await sql`select 1 from escalation_policies where org_id = ${orgId} and config_key = ${key} and id is distinct from ${exceptId} limit 1`;
  return rows.length > 0;
}

export async function findEscalationPolicy(sql: Sql, orgId: string, id: string): Promise<EscalationPolicyRow | undefined> {
  const [row] = await sql<EscalationPolicyRow[]>`select * from escalation_policies where org_id = ${orgId} and id = ${id}`;
  return row;
}

export async function listEscalationPolicies(sql: Sql, orgId: string, limit: number, offset: number): Promise<{ rows: EscalationPolicyRow[]; total: number }> {
  const rows = await sql<(EscalationPolicyRow & { total: number })[]>`
    select *, count(*) over () as total from escalation_policies where org_id = ${orgId}
    order by created_at desc, id desc limit ${limit} offset ${offset}`;
  return { rows, total: rows[0] ? Number(rows[0].total) : 0 };
}

export async function orgEscalationPolicies(sql: Sql, orgId: string): Promise<EscalationPolicyRow[]> {
  return sql<EscalationPolicyRow[]>`select * from escalation_policies where org_id = ${orgId}`;
}

export async function deleteEscalationPolicy(sql: Sql, orgId: string, id: string): Promise<boolean> {
  const rows = await sql`delete from escalation_policies where org_id = ${orgId} and id = ${id} returning id`;
  return rows.length > 0;
}

export async function policyRuleIds(sql: Sql, orgId: string, id: string): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`select id from alert_rules where org_id = ${orgId} and escalation_policy_id = ${id}`;
  return rows.map((r) => r.id);
}
