import type { Sql } from "../../core/db/client.ts";

export interface SubscriberRow {
  id: string;
  org_id: string;
  page_id: string;
  kind: "email" | "webhook";
  email: string | null;
  webhook_url: string | null;
  confirmed_at: Date | null;
  created_at: Date;
}

/** Inserts or returns the existing subscription of the same address on the same page. */
export async function upsertSubscriber(
  sql: Sql,
  s: { id: string; orgId: string; pageId: string; kind: "email" | "webhook"; email: string | null; webhookUrl: string | null; confirmed: boolean },
): Promise<{ row: SubscriberRow; created: boolean }> {
  const [created] = await sql<SubscriberRow[]>`
    insert into status_page_subscribers (id, org_id, page_id, kind, email, webhook_url, confirmed_at)
    values (${s.id}, ${s.orgId}, ${s.pageId}, ${s.kind}, ${s.email}, ${s.webhookUrl}, ${s.confirmed ? sql`now()` : null})
    on conflict do nothing returning *`;
  if (created) return { row: created, created: true };
  const [existing] = s.email
    ? await sql<SubscriberRow[]>`select * from status_page_subscribers where page_id = ${s.pageId} and lower(email) = lower(${s.email})`
    : await sql<SubscriberRow[]>`select * from status_page_subscribers where page_id = ${s.pageId} and webhook_url = ${s.webhookUrl}`;
  return { row: existing!, created: false };
}

export async function listSubscribers(sql: Sql, orgId: string, pageId: string, limit: number, offset: number): Promise<{ rows: SubscriberRow[]; total: number }> {
  const rows = await sql<SubscriberRow[]>`
    select * from status_page_subscribers where org_id = ${orgId} and page_id = ${pageId} order by created_at desc, id desc limit ${limit} offset ${offset}`;
  const [count] = await sql<{ n: number }[]>`select count(*)::int as n from status_page_subscribers where org_id = ${orgId} and page_id = ${pageId}`;
  return { rows, total: count!.n };
}

export async function deleteSubscriber(sql: Sql, orgId: string, pageId: string, id: string): Promise<boolean> {
  const rows = await sql`delete from status_page_subscribers where org_id = ${orgId} and page_id = ${pageId} and id = ${id} returning id`;
  return rows.length > 0;
}

/** Unsubscribe by signed token: the token names both the subscriber and its page. */
export async function deleteSubscriberByToken(sql: Sql, pageId: string, id: string): Promise<boolean> {
  const rows = await sql`delete from status_page_subscribers where page_id = ${pageId} and id = ${id} returning id`;
  return rows.length > 0;
}

/** The subscriber a signed token names (its page and id), read without changing it. */
export async function findSubscriberOfPage(sql: Sql, pageId: string, id: string): Promise<SubscriberRow | undefined> {
  const [row] = await sql<SubscriberRow[]>`select * from status_page_subscribers where page_id = ${pageId} and id = ${id}`;
  return row;
}

export async function confirmSubscriber(sql: Sql, pageId: string, id: string): Promise<SubscriberRow | undefined> {
  const [row] = await sql<SubscriberRow[]>`
    update status_page_subscribers set confirmed_at = coalesce(confirmed_at, now()) where page_id = ${pageId} and id = ${id} returning *`;
  return row;
}

/** Confirmed subscribers of any of the pages. */
export async function confirmedSubscribers(sql: Sql, orgId: string, pageIds: string[]): Promise<SubscriberRow[]> {
  if (pageIds.length === 0) return [];
  return sql<SubscriberRow[]>`
    select * from status_page_subscribers where org_id = ${orgId} and page_id = any(${pageIds}) and confirmed_at is not null order by created_at`;
}

export async function findSubscriberById(sql: Sql, id: string): Promise<SubscriberRow | undefined> {
  const [row] = await sql<SubscriberRow[]>`select * from status_page_subscribers where id = ${id}`;
  return row;
}
