import type { Sql } from "../client.ts";

/** Every column holding a SecretBox value (encrypted with SECRET_KEY), by table; each table is keyed by `id`. */
export const ENCRYPTED_COLUMNS = [
  { table: "alert_channels", column: "config_enc" },
  { table: "monitors", column: "secrets_enc" },
  { table: "monitors", column: "heartbeat_token_enc" },
  { table: "users", column: "totp_secret_enc" },
  { table: "runner_sessions", column: "key_enc" },
  { table: "status_page_subscribers", column: "webhook_url_enc" },
  { table: "status_page_subscribers", column: "webhook_secret_enc" },
  { table: "status_page_subscribers", column: "webhook_previous_secret_enc" },
  { table: "org_sso_configs", column: "client_secret_enc" },
] as const;

export type EncryptedColumn = (typeof ENCRYPTED_COLUMNS)[number];

/** One page of stored values of a column, in id order after `afterId`. */
export async function encryptedValuesPage(sql: Sql, c: EncryptedColumn, afterId: string, limit: number): Promise<{ id: string; value: string }[]> {
  return sql<{ id: string; value: string }[]>`
    select id, ${sql(c.column)} as value from ${sql(c.table)}
    where ${sql(c.column)} is not null and id > ${afterId} order by id limit ${limit}`;
}

/** Replaces one value, unless it changed meanwhile (then the next rotation run takes it). */
export async function replaceEncryptedValue(sql: Sql, c: EncryptedColumn, id: string, old: string, value: string): Promise<boolean> {
  const rows = await sql`update ${sql(c.table)} set ${sql(c.column)} = ${value} where id = ${id} and ${sql(c.column)} = ${old} returning id`;
  return rows.length === 1;
}
