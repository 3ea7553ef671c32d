import type { Sql } from "../client.ts";

export interface MonitorSecretsRow {
  id: string;
  config: Record<string, unknown>;
  secrets_enc: string | null;
}

/**
 * One page, in id order after `afterId`, of monitors whose config has a field that can hold a
 * secret. Across every organisation: this is the start-up step that seals old rows, not a request.
 */
export async function monitorsWithSecretFields(sql: Sql, afterId: string, limit: number): Promise<MonitorSecretsRow[]> {
  return sql<MonitorSecretsRow[]>`
    select id, config, secrets_enc from monitors
    where (config ? 'headers' or config ? 'auth' or config ? 'steps') and id > ${afterId}
    order by id limit ${limit}`;
}

/** Replaces a monitor's config and secrets, unless its config changed meanwhile (then the writer already sealed it). */
export async function replaceMonitorSecrets(sql: Sql, id: string, oldConfig: Record<string, unknown>, config: Record<string, unknown>, secretsEnc: string | null): Promise<boolean> {
  const rows = await sql`
    update monitors set config = ${sql.json(config as never)}, secrets_enc = ${secretsEnc}
    where id = ${id} and config = ${sql.json(oldConfig as never)}::jsonb returning id`;
  return rows.length === 1;
}
