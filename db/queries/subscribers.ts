import type { Sql } from "../client.ts";

export interface SubscriberRow {
  id: string;
  org_id: string;
  page_id: string;
  kind: "email" | "webhook";
  email: string | null;
  /** Only in rows of earlier releases not sealed yet; new rows hold the URL in webhook_url_enc. */
  webhook_url: string | null;
  webhook_url_enc: string | null;
  webhook_url_hash: Buffer | null;
  /** The Standard Webhooks signing secret (whsec_…), encrypted; null in rows of earlier releases (sent unsigned). */
  webhook_secret_enc: string | null;
  /** The secret before the last one, while a receiver may still hold it (both sign). */
  webhook_previous_secret_enc: string | null;
  confirmed_at: Date | null;
  created_at: Date;
}

/**
 * Inserts or returns the existing subscription of the same address (e-mail, or webhook URL by its hash) on
 * the same page. A webhook's `secretEnc` is its signing secret; for an existing webhook subscription it
 * becomes the new secret and the one it had becomes the previous one.
 */
export async function upsertSubscriber(
  sql: Sql,
  s: {
    id: string;
    orgId: string;
    pageId: string;
    kind: "email" | "webhook";
    email: string | null;
    webhook: { enc: string; hash: Buffer; secretEnc: string } | null;
    confirmed: boolean;
  },
): Promise<{ row: SubscriberRow; created: boolean }> {
  const [created] = await sql<SubscriberRow[]>`
    insert into status_page_subscribers (id, org_id, page_id, kind, email, webhook_url_enc, webhook_url_hash, webhook_secret_enc, confirmed_at)
    values (${s.id}, ${s.orgId}, ${s.pageId}, ${s.kind}, ${s.email}, ${s.webhook?.enc ?? null}, ${s.webhook?.hash ?? null}, ${s.webhook?.secretEnc ?? null}, ${s.confirmed ? sql`now()` : null})
    on conflict do nothing returning *`;
  if (created) return { row: created, created: true };
  const [existing] = s.email
    ? await sql<SubscriberRow[]>`select * from status_page_subscribers where page_id = ${s.pageId} and lower(email) = lower(${s.email})`
    : await sql<SubscriberRow[]>`
        update status_page_subscribers set webhook_previous_secret_enc = webhook_secret_enc, webhook_secret_enc = ${s.webhook!.secretEnc}
        where page_id = ${s.pageId} and webhook_url_hash = ${s.webhook!.hash} returning *`;
  return { row: existing!, created: false };
}

/** A page of webhook subscribers whose URL is still in clear (rows of earlier releases), across organisations. */
export async function plaintextWebhookSubscribers(sql: Sql, afterId: string, limit: number): Promise<{ id: string; webhook_url: string }[]> {
  return sql<{ id: string; webhook_url: string }[]>`
    select id, webhook_url from status_page_subscribers where webhook_url is not null and id > ${afterId} order by id limit ${limit}`;
}

/**
 * Replaces a clear URL by its encrypted form and hash. When the page already has the same URL
 * encrypted (subscribed again meanwhile), the clear duplicate is removed instead.
 */
export async function sealWebhookSubscriber(sql: Sql, id: string, url: string, enc: string, hash: Buffer): Promise<"sealed" | "duplicate" | "changed"> {
  const [dup] = await sql`
    select 1 from status_page_subscribers d join status_page_subscribers s on s.page_id = d.page_id
    where s.id = ${id} and d.id <> s.id and d.webhook_url_hash = ${hash}`;
  if (dup) {
    await sql`delete from status_page_subscribers where id = ${id} and webhook_url = ${url}`;
    return "duplicate";
  }
  const rows = await sql`
    update status_page_subscribers set webhook_url = null, webhook_url_enc = ${enc}, webhook_url_hash = ${hash}
    where id = ${id} and webhook_url = ${url} returning id`;
  return rows.length === 1 ? "sealed" : "changed";
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

export async function findSubscriberById(sql: Sql, id: string): Promise<SubscriberRow | undefined> {
  const [row] = await sql<SubscriberRow[]>`select * from status_page_subscribers where id = ${id}`;
  return row;
}
