import type { Sql } from "../client.ts";

export interface AlertRuleRow {
  id: string;
  org_id: string;
  name: string;
  description: string | null;
  enabled: boolean;
  scope: Record<string, unknown>;
  condition: Record<string, unknown>;
  confirmation: Record<string, unknown>;
  notifications: Record<string, unknown>;
  channels: { channel_id: string; delay_minutes: number }[];
  escalation_policy_id: string | null;
  /** Set when the system disabled the rule (its monitor was deleted); null otherwise. */
  disabled_reason: string | null;
  /** The key a config file (watchpost.yaml) gives the rule; null when none did. */
  config_key: string | null;
  created_at: Date;
  updated_at: Date;
}

export type AlertRuleWrite = Omit<AlertRuleRow, "id" | "org_id" | "created_at" | "updated_at" | "disabled_reason" | "config_key"> & { disabled_reason?: string | null; config_key?: string | null };

export interface AlertRuleFilter {
  enabled?: boolean;
  scope_type?: string;
  monitor_id?: string;
  channel_id?: string;
}

export async function insertAlertRule(sql: Sql, orgId: string, id: string, r: AlertRuleWrite): Promise<AlertRuleRow> {
  const [row] = await sql<AlertRuleRow[]>`
    insert into alert_rules (id, org_id, name, description, enabled, scope, condition, confirmation, notifications, channels, escalation_policy_id, config_key)
    values (${id}, ${orgId}, ${r.name}, ${r.description}, ${r.enabled}, ${sql.json(r.scope as never)}, ${sql.json(r.condition as never)},
            ${sql.json(r.confirmation as never)}, ${sql.json(r.notifications as never)}, ${sql.json(r.channels as never)}, ${r.escalation_policy_id}, ${r.config_key ?? null})
    returning *`;
  return row!;
}

export async function updateAlertRule(sql: Sql, orgId: string, id: string, r: AlertRuleWrite): Promise<AlertRuleRow | undefined> {
  const [row] = await sql<AlertRuleRow[]>`
    update alert_rules set name = ${r.name}, description = ${r.description}, enabled = ${r.enabled}, scope = ${sql.json(r.scope as never)},
      condition = ${sql.json(r.condition as never)}, confirmation = ${sql.json(r.confirmation as never)},
      notifications = ${sql.json(r.notifications as never)}, channels = ${sql.json(r.channels as never)},
      escalation_policy_id = ${r.escalation_policy_id}, disabled_reason = ${r.disabled_reason ?? null}, config_key = ${r.config_key ?? null}, updated_at = now()
    where org_id = ${orgId} and id = ${id} returning *`;
  return row;
}

/** Whether another rule of the organisation already has this config key. */
export async function ruleConfigKeyTaken(sql: Sql, orgId: string, key: string, exceptId: string | null): Promise<boolean> {
  const rows = await sql`select 1 from alert_rules where org_id = ${orgId} and config_key = ${key} and id is distinct from ${exceptId} limit 1`;
  return rows.length > 0;
}

export async function findAlertRule(sql: Sql, orgId: string, id: string, lock = false): Promise<AlertRuleRow | undefined> {
  const [row] = lock
    ? await sql<AlertRuleRow[]>`select * from alert_rules where org_id = ${orgId} and id = ${id} for update`
    : await sql<AlertRuleRow[]>`select * from alert_rules where org_id = ${orgId} and id = ${id}`;
  return row;
}

export async function listAlertRules(sql: Sql, orgId: string, f: AlertRuleFilter, limit: number, offset: number): Promise<{ rows: AlertRuleRow[]; total: number }> {
  const rows = await sql<(AlertRuleRow & { total: number })[]>`
    select r.*, count(*) over () as total from alert_rules r
    where r.org_id = ${orgId}
      ${f.enabled === undefined ? sql`` : sql`and r.enabled = ${f.enabled}`}
      ${f.scope_type === undefined ? sql`` : sql`and r.scope->>'type' = ${f.scope_type}`}
      ${
        f.monitor_id === undefined
          ? sql``
          : sql`and exists (select 1 from monitors m where m.org_id = r.org_id and m.id = ${f.monitor_id}
                 and (r.scope->>'type' = 'all_monitors' or r.scope->>'monitor_id' = m.id
                      or (r.scope->>'type' = 'monitor_group' and r.scope->>'tag' = any(m.tags))))`
      }
      ${
        f.channel_id === undefined
          ? sql``
          : sql`and (r.channels @> ${sql.json([{ channel_id: f.channel_id }] as never)}
                 or exists (select 1 from escalation_policies p, jsonb_array_elements(p.steps) s
                            where p.id = r.escalation_policy_id and p.org_id = r.org_id and s->'channel_ids' ? ${f.channel_id}))`
      }
    order by r.created_at desc, r.id desc limit ${limit} offset ${offset}`;
  return { rows, total: rows[0] ? Number(rows[0].total) : 0 };
}

export async function countAlertRules(sql: Sql, orgId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from alert_rules where org_id = ${orgId}`;
  return row!.n;
}

export async function deleteAlertRule(sql: Sql, orgId: string, id: string): Promise<boolean> {
  const rows = await sql`delete from alert_rules where org_id = ${orgId} and id = ${id} returning id`;
  return rows.length > 0;
}

/** Rules and escalation policies that send to a channel. */
export async function channelReferences(sql: Sql, orgId: string, channelId: string): Promise<{ rules: string[]; policies: string[] }> {
  const rules = await sql<{ id: string }[]>`
    select id from alert_rules where org_id = ${orgId} and channels @> ${sql.json([{ channel_id: channelId }] as never)}`;
  const policies = await sql<{ id: string }[]>`
    select p.id from escalation_policies p where p.org_id = ${orgId}
      and exists (select 1 from jsonb_array_elements(p.steps) s where s->'channel_ids' ? ${channelId})`;
  return { rules: rules.map((r) => r.id), policies: policies.map((p) => p.id) };
}

/** Every rule of an organisation, for the engine's per-organisation cache. */
export async function orgAlertRules(sql: Sql, orgId: string): Promise<AlertRuleRow[]> {
  return sql<AlertRuleRow[]>`select * from alert_rules where org_id = ${orgId} order by id`;
}
