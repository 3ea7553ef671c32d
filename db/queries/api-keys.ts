import type { Sql } from "../client.ts";

export interface ApiKeyRow {
  id: string;
  org_id: string;
  created_by: string;
  created_by_key: string | null;
  name: string;
  display_prefix: string;
  scopes: string[];
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
}

const columns = (sql: Sql) => sql`id, org_id, created_by, created_by_key, name, display_prefix, scopes, created_at, last_used_at, expires_at, revoked_at`;

export async function insertApiKey(
  sql: Sql,
  k: {
    id: string;
    orgId: string;
    createdBy: string;
    createdByKey?: string | null;
    name: string;
    displayPrefix: string;
    keyHash: Buffer;
    scopes: string[];
    expiresAt: Date | null;
  },
): Promise<ApiKeyRow> {
  const [row] = await sql<ApiKeyRow[]>`
    insert into api_keys (id, org_id, created_by, created_by_key, name, display_prefix, key_hash, scopes, expires_at)
    values (${k.id}, ${k.orgId}, ${k.createdBy}, ${k.createdByKey ?? null}, ${k.name}, ${k.displayPrefix}, ${k.keyHash}, ${k.scopes}, ${k.expiresAt})
    returning ${columns(sql)}`;
  return row!;
}

/** Which live keys a caller may see: those whose scopes are all in `within`, and only `createdBy`'s unless null (any creator). */
export interface KeyVisibility {
  within: readonly string[];
  createdBy: string | null;
}

export async function listApiKeys(sql: Sql, orgId: string, visible: KeyVisibility, limit: number, offset: number): Promise<{ rows: ApiKeyRow[]; total: number }> {
  const where = sql`org_id = ${orgId} and revoked_at is null and scopes <@ ${visible.within as string[]}::text[]
    and (${visible.createdBy}::text is null or created_by = ${visible.createdBy})`;
  const rows = await sql<(ApiKeyRow & { total: number })[]>`
    select ${columns(sql)}, count(*) over ()::int as total from api_keys
    where ${where} order by created_at desc, id desc limit ${limit} offset ${offset}`;
  if (rows.length > 0 || offset === 0) return { rows, total: rows[0]?.total ?? 0 };
  const [count] = await sql<{ n: number }[]>`select count(*)::int as n from api_keys where ${where}`;
  return { rows, total: count!.n };
}

export async function findLiveApiKey(sql: Sql, orgId: string, id: string): Promise<ApiKeyRow | undefined> {
  const [row] = await sql<ApiKeyRow[]>`select ${columns(sql)} from api_keys where id = ${id} and org_id = ${orgId} and revoked_at is null`;
  return row;
}

/**
 * Revokes a key and every live key it made, and theirs, with the pending invitations any of them
 * sent, in one statement; returns how many keys.
 */
export async function revokeApiKeyTree(sql: Sql, orgId: string, id: string): Promise<number> {
  const rows = await sql`
    with recursive tree (id) as (
      select id from api_keys where id = ${id} and org_id = ${orgId} and revoked_at is null
      union
      select k.id from api_keys k join tree t on k.created_by_key = t.id where k.org_id = ${orgId}
    ), invitations_sent as (
      update invitations set revoked_at = now()
      where org_id = ${orgId} and invited_by_key in (select id from tree) and accepted_at is null and revoked_at is null
    )
    update api_keys set revoked_at = now() where id in (select id from tree) and revoked_at is null returning id`;
  return rows.length;
}
