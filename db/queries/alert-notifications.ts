import type { Sql } from "../client.ts";

export interface NotificationWrite {
  id: string;
  org_id: string;
  type: string;
  title: string;
  body: string;
  data: Record<string, unknown>;
}

export interface NotificationRow extends NotificationWrite {
  read_at: Date | null;
  created_at: Date;
}

export async function insertNotifications(tx: Sql, rows: NotificationWrite[]): Promise<void> {
  if (rows.length === 0) return;
  await tx`
    insert into notifications (id, org_id, type, title, body, data)
    select * from jsonb_to_recordset(${tx.json(rows as never)}) as n(id text, org_id text, type text, title text, body text, data jsonb)`;
}

export async function listNotifications(sql: Sql, orgId: string, unreadOnly: boolean, limit: number, offset: number): Promise<{ rows: NotificationRow[]; total: number }> {
  const rows = await sql<(NotificationRow & { total: number })[]>`
    select *, count(*) over () as total from notifications
    where org_id = ${orgId} ${unreadOnly ? sql`and read_at is null` : sql``}
    order by created_at desc, id desc limit ${limit} offset ${offset}`;
  return { rows, total: rows[0] ? Number(rows[0].total) : 0 };
}

export async function countUnread(sql: Sql, orgId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from notifications where org_id = ${orgId} and read_at is null`;
  return row!.n;
}

export async function markRead(sql: Sql, orgId: string, id: string): Promise<NotificationRow | undefined> {
  const [row] = await sql<NotificationRow[]>`
    update notifications set read_at = coalesce(read_at, now()) where org_id = ${orgId} and id = ${id} returning *`;
  return row;
}

export async function markAllRead(sql: Sql, orgId: string): Promise<number> {
  const rows = await sql`update notifications set read_at = now() where org_id = ${orgId} and read_at is null returning id`;
  return rows.length;
}
