import type { Sql } from "../client.ts";

export interface SessionRow {
  id: string;
  user_id: string;
  csrf_token: string;
  ip: string | null;
  user_agent: string | null;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
}

export async function insertSession(
  sql: Sql,
  s: { id: string; userId: string; tokenHash: Buffer; csrfToken: string; ip: string | null; userAgent: string | null; expiresAt: Date; orgScope?: string | null },
): Promise<SessionRow> {
  const [row] = await sql<SessionRow[]>`
    insert into sessions (id, user_id, token_hash, csrf_token, ip, user_agent, expires_at, org_scope)
    values (${s.id}, ${s.userId}, ${s.tokenHash}, ${s.csrfToken}, ${s.ip}, ${s.userAgent}, ${s.expiresAt}, ${s.orgScope ?? null})
    returning id, user_id, csrf_token, ip, user_agent, created_at, last_seen_at, expires_at`;
  return row!;
}

export async function listUserSessions(sql: Sql, userId: string): Promise<SessionRow[]> {
  return sql<SessionRow[]>`
    select id, user_id, csrf_token, ip, user_agent, created_at, last_seen_at, expires_at
    from sessions where user_id = ${userId} and expires_at > now() order by last_seen_at desc`;
}

export async function deleteUserSession(sql: Sql, userId: string, sessionId: string): Promise<boolean> {
  const rows = await sql`delete from sessions where id = ${sessionId} and user_id = ${userId} returning id`;
  return rows.length > 0;
}

export async function deleteAllUserSessions(sql: Sql, userId: string, exceptSessionId: string | null = null): Promise<void> {
  await sql`delete from sessions where user_id = ${userId} and (${exceptSessionId}::text is null or id <> ${exceptSessionId})`;
}
