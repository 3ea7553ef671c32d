import type { Sql } from "../client.ts";

export type NoticeKind = "created" | "updated" | "resolved";

export interface SubscriberDeliveryRow {
  id: string;
  org_id: string;
  subscriber_id: string;
  incident_id: string;
  update_id: string;
  kind: NoticeKind;
  status: "pending" | "sent" | "failed";
  attempts: number;
  next_attempt_at: Date;
  last_error: string | null;
  created_at: Date;
  sent_at: Date | null;
}

/**
 * One notice per address (an email case-insensitively, a webhook URL by its hash) among the confirmed subscribers
 * of the pages, skipping suspended pages; the oldest subscription of an address carries it.
 */
export async function enqueueSubscriberNotices(
  tx: Sql,
  n: { orgId: string; incidentId: string; updateId: string; kind: NoticeKind; pageIds: string[] },
): Promise<number> {
  if (n.pageIds.length === 0) return 0;
  const rows = await tx`
    insert into subscriber_deliveries (id, org_id, subscriber_id, incident_id, update_id, kind)
    select 'sdl_' || replace(gen_random_uuid()::text, '-', ''), ${n.orgId}, s.id, ${n.incidentId}, ${n.updateId}, ${n.kind}
    from (
      select distinct on (coalesce('e:' || lower(s.email), 'h:' || encode(s.webhook_url_hash, 'hex'), 'w:' || s.webhook_url)) s.id
      from status_page_subscribers s join status_pages p on p.id = s.page_id
      where s.org_id = ${n.orgId} and s.page_id = any(${n.pageIds}) and s.confirmed_at is not null and not p.suspended
      order by coalesce('e:' || lower(s.email), 'h:' || encode(s.webhook_url_hash, 'hex'), 'w:' || s.webhook_url), s.created_at, s.id
    ) s
    on conflict (update_id, subscriber_id) do nothing
    returning id`;
  return rows.length;
}

/**
 * Claims due pending notices (SKIP LOCKED) and counts the attempt; a claim holds them for `leaseMs`.
 * Only a subscriber's oldest pending notice is claimed, so each subscriber gets its notices in the order
 * they were written (created, updated, resolved): one being sent or waiting to be retried holds back the
 * later ones until it is sent or given up.
 */
export async function claimSubscriberDeliveries(sql: Sql, limit: number, leaseMs: number): Promise<SubscriberDeliveryRow[]> {
  return sql<SubscriberDeliveryRow[]>`
    update subscriber_deliveries d set attempts = d.attempts + 1, next_attempt_at = now() + make_interval(secs => ${leaseMs / 1000})
    from (
      select id from subscriber_deliveries s where status = 'pending' and next_attempt_at <= now()
        and not exists (
          select 1 from subscriber_deliveries e
          where e.subscriber_id = s.subscriber_id and e.status = 'pending' and (e.created_at, e.id) < (s.created_at, s.id)
        )
      order by next_attempt_at, id for update skip locked limit ${limit}
    ) due
    where d.id = due.id
    returning d.*`;
}

export async function markSubscriberDelivery(
  sql: Sql,
  id: string,
  outcome: { status: "sent" } | { status: "failed"; error: string } | { status: "pending"; error: string; retryInMs: number },
): Promise<void> {
  if (outcome.status === "sent") await sql`update subscriber_deliveries set status = 'sent', sent_at = now(), last_error = null where id = ${id}`;
  else if (outcome.status === "failed") await sql`update subscriber_deliveries set status = 'failed', last_error = ${outcome.error} where id = ${id}`;
  else
    await sql`update subscriber_deliveries set last_error = ${outcome.error}, next_attempt_at = now() + make_interval(secs => ${outcome.retryInMs / 1000}) where id = ${id}`;
}
