import type { Sql } from "../client.ts";

export type BillingJobKind = "grace_reminder" | "grace_expiry" | "period_end" | "suspension_cleanup";

export interface BillingJobRow {
  id: number;
  org_id: string;
  kind: BillingJobKind;
  ref_id: string;
  due_at: Date;
  attempts: number;
}

/** Schedules a job once per (kind, ref, due time). */
export async function scheduleJob(sql: Sql, job: { orgId: string; kind: BillingJobKind; refId: string; dueAt: Date }): Promise<void> {
  await sql`
    insert into billing_jobs (org_id, kind, ref_id, due_at) values (${job.orgId}, ${job.kind}, ${job.refId}, ${job.dueAt})
    on conflict (kind, ref_id, due_at) do nothing`;
}

/** Drops pending jobs of one kind for a ref (a payment during grace cancels the expiry). */
export async function cancelJobs(sql: Sql, kinds: BillingJobKind[], refId: string): Promise<void> {
  await sql`update billing_jobs set done_at = now(), last_error = 'cancelled' where ref_id = ${refId} and kind = any(${kinds}) and done_at is null`;
}

/** Claims due jobs; SKIP LOCKED lets several processes run the job loop. */
export async function claimDueJobs(sql: Sql, now: Date, limit: number): Promise<BillingJobRow[]> {
  return sql<BillingJobRow[]>`
    select id, org_id, kind, ref_id, due_at, attempts from billing_jobs
    where done_at is null and due_at <= ${now} order by due_at, id limit ${limit} for update skip locked`;
}

export async function finishJob(sql: Sql, id: number, error: string | null): Promise<void> {
  if (error === null) await sql`update billing_jobs set done_at = now(), attempts = attempts + 1 where id = ${id}`;
  else
    await sql`update billing_jobs set attempts = attempts + 1, last_error = ${error},
      due_at = now() + make_interval(secs => least(3600, 30 * power(2, attempts))), done_at = case when attempts >= 10 then now() end where id = ${id}`;
}

export async function listPendingJobs(sql: Sql, orgId: string): Promise<BillingJobRow[]> {
  return sql<BillingJobRow[]>`select id, org_id, kind, ref_id, due_at, attempts from billing_jobs where org_id = ${orgId} and done_at is null order by due_at`;
}

/** Records an inbound webhook once; false when its event id was seen before. */
export async function recordWebhookEvent(
  sql: Sql,
  e: { eventId: string; provider: string; eventType: string; occurredAt: Date; outcome: string; payload: unknown },
): Promise<boolean> {
  const rows = await sql`
    insert into billing_webhook_events (event_id, provider, event_type, occurred_at, outcome, payload)
    values (${e.eventId}, ${e.provider}, ${e.eventType}, ${e.occurredAt}, ${e.outcome}, ${sql.json(e.payload as never)})
    on conflict (event_id) do nothing returning event_id`;
  return rows.length > 0;
}

export async function setWebhookOutcome(sql: Sql, eventId: string, outcome: string): Promise<void> {
  await sql`update billing_webhook_events set outcome = ${outcome} where event_id = ${eventId}`;
}

export interface OverlapRow {
  id: string;
  org_id: string;
  line_id: string;
  plan_id: string;
  quotas: string[];
  status: "open" | "cancelled" | "dismissed";
  credit_cents: number | null;
  created_at: Date;
  resolved_at: Date | null;
}

export async function insertOverlap(sql: Sql, o: { id: string; orgId: string; lineId: string; planId: string; quotas: string[] }): Promise<void> {
  await sql`
    insert into billing_overlaps (id, org_id, line_id, plan_id, quotas) values (${o.id}, ${o.orgId}, ${o.lineId}, ${o.planId}, ${o.quotas})
    on conflict (line_id) where status = 'open' do update set plan_id = excluded.plan_id, quotas = excluded.quotas`;
}

export async function listOpenOverlaps(sql: Sql, orgId: string): Promise<(OverlapRow & { product_id: string })[]> {
  return sql<(OverlapRow & { product_id: string })[]>`
    select o.*, l.product_id from billing_overlaps o join billing_lines l on l.id = o.line_id
    where o.org_id = ${orgId} and o.status = 'open' and l.status in ('active', 'grace_period') order by o.created_at`;
}

export async function findOpenOverlap(sql: Sql, orgId: string, id: string): Promise<OverlapRow | undefined> {
  const [row] = await sql<OverlapRow[]>`select * from billing_overlaps where org_id = ${orgId} and id = ${id} and status = 'open' for update`;
  return row;
}

export async function resolveOverlap(sql: Sql, id: string, status: "cancelled" | "dismissed", creditCents: number | null): Promise<void> {
  await sql`update billing_overlaps set status = ${status}, credit_cents = ${creditCents}, resolved_at = now() where id = ${id}`;
}
