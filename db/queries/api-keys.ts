import type { Sql } from "../../core/db/client.ts";

export interface ApiKeyRow {
  id: string;
  org_id: string;
  created_by: string;
  name: string;
  display_prefix: string;
  scopes: string[];
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
}

const columns = (sql: Sql) => sql`id, org_id, created_by, name, display_prefix, scopes, created_at, last_used_at, expires_at, revoked_at`;

export async function insertApiKey(
  sql: Sql,
  k: { id: string; orgId: string; createdBy: string; name: string; displayPrefix: string; keyHash: Buffer; scopes: string[]; expiresAt: Date | null },
): Promise<ApiKeyRow> {
  const [row] = await sql<ApiKeyRow[]>`
    insert into api_keys (id, org_id, created_by, name, display_prefix, key_hash, scopes, expires_at)
    values (${k.id}, ${k.orgId}, ${k.createdBy}, ${k.name}, ${k.displayPrefix}, ${k.keyHash}, ${k.scopes}, ${k.expiresAt})
    returning ${columns(sql)}`;
  return row!;
}

export async function listApiKeys(sql: Sql, orgId: string, limit: number, offset: number): Promise<{ rows: ApiKeyRow[]; total: number }> {
  const rows = await sql<(ApiKeyRow & { total: number })[]>`
    select ${columns(sql)}, count(*) over ()::int as total from api_keys
    where org_id = ${orgId} and revoked_at is null order by created_at desc, id desc limit ${limit} offset ${offset}`;
  if (rows.length > 0 || offset === 0) return { rows, total: rows[0]?.total ?? 0 };
  const [count] = await sql<{ n: number }[]>`select count(*)::int as n from api_keys where org_id = ${orgId} and revoked_at is null`;
  return { rows, total: count!.n };
}

export async function findLiveApiKey(sql: Sql, orgId: string, id: string): Promise<ApiKeyRow | undefined> {
  const [row] = await sql<ApiKeyRow[]>`select ${columns(sql)} from api_keys where id = ${id} and org_id = ${orgId} and revoked_at is null`;
  return row;
}

export async function revokeApiKey(sql: Sql, orgId: string, id: string): Promise<boolean> {
  const rows = await sql`update api_keys set revoked_at = now() where id = ${id} and org_id = ${orgId} and revoked_at is null returning id`;
  return rows.length > 0;
}
