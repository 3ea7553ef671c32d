import type { Sql } from "../client.ts";

export interface AlertChannelRow {
  id: string;
  org_id: string;
  name: string;
  type: string;
  config_enc: string;
  enabled: boolean;
  /** Mustache title/body templates; null = the channel's default layout. */
  message_template: { title?: string; body?: string } | null;
  /** IANA time zone of times in its messages. */
  timezone: string;
  /** The key a config file gives the channel (watchpost.yaml); null when none did. */
  config_key: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface AlertChannelWrite {
  name: string;
  type: string;
  configEnc: string;
  enabled: boolean;
  messageTemplate: { title?: string; body?: string } | null;
  timezone: string;
  configKey: string | null;
}

const templateJson = (sql: Sql, t: AlertChannelWrite["messageTemplate"]) => (t === null ? null : sql.json(t as never));

export async function insertAlertChannel(sql: Sql, orgId: string, id: string, c: AlertChannelWrite): Promise<AlertChannelRow> {
  const [row] = await sql<AlertChannelRow[]>`
    insert into alert_channels (id, org_id, name, type, config_enc, enabled, message_template, timezone, config_key)
    values (${id}, ${orgId}, ${c.name}, ${c.type}, ${c.configEnc}, ${c.enabled}, ${templateJson(sql, c.messageTemplate)}, ${c.timezone}, ${c.configKey})
    returning *`;
  return row!;
}

export async function findAlertChannel(sql: Sql, orgId: string, id: string): Promise<AlertChannelRow | undefined> {
  const [row] = await sql<AlertChannelRow[]>`select * from alert_channels where org_id = ${orgId} and id = ${id}`;
  return row;
}

/** Whether another channel of the organisation already has this config key. */
export async function configKeyTaken(sql: Sql, orgId: string, key: string, exceptId: string | null): Promise<boolean> {
  const rows = await sql`select 1 from alert_channels where org_id = ${orgId} and config_key = ${key} and id is distinct from ${exceptId} limit 1`;
  return rows.length > 0;
}

export async function findAlertChannels(sql: Sql, orgId: string, ids: string[]): Promise<AlertChannelRow[]> {
  if (ids.length === 0) return [];
  return sql<AlertChannelRow[]>`select * from alert_channels where org_id = ${orgId} and id = any(${ids})`;
}

export async function listAlertChannels(sql: Sql, orgId: string, limit: number, offset: number): Promise<{ rows: AlertChannelRow[]; total: number }> {
  const rows = await sql<(AlertChannelRow & { total: number })[]>`
    select *, count(*) over () as total from alert_channels where org_id = ${orgId}
    order by created_at desc, id desc limit ${limit} offset ${offset}`;
  const total = rows[0] ? Number(rows[0].total) : (await countAlertChannels(sql, orgId));
  return { rows, total };
}

export async function countAlertChannels(sql: Sql, orgId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from alert_channels where org_id = ${orgId}`;
  return row!.n;
}

export async function updateAlertChannel(sql: Sql, orgId: string, id: string, c: AlertChannelWrite): Promise<AlertChannelRow | undefined> {
  const [row] = await sql<AlertChannelRow[]>`
    update alert_channels set name = ${c.name}, type = ${c.type}, config_enc = ${c.configEnc}, enabled = ${c.enabled},
      message_template = ${templateJson(sql, c.messageTemplate)}, timezone = ${c.timezone}, config_key = ${c.configKey}, updated_at = now()
    where org_id = ${orgId} and id = ${id} returning *`;
  return row;
}

export async function deleteAlertChannel(sql: Sql, orgId: string, id: string): Promise<boolean> {
  const rows = await sql`delete from alert_channels where org_id = ${orgId} and id = ${id} returning id`;
  return rows.length > 0;
}
