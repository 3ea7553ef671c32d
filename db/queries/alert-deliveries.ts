import type { Sql } from "../client.ts";

export interface DeliveryWrite {
  id: string;
  org_id: string;
  idempotency_key: string;
  rule_id: string;
  monitor_id: string;
  region: string;
  channel_id: string;
  kind: string;
  seq: number;
  event: Record<string, unknown>;
}

export interface DeliveryRow extends DeliveryWrite {
  order_no: number;
  status: "pending" | "sent" | "failed";
  attempts: number;
  last_error: string | null;
  next_attempt_at: Date;
  lease_until: Date | null;
  created_at: Date;
  sent_at: Date | null;
}

/** Outbox rows, in the transaction that decided them; a key already decided is left as it is. */
export async function insertDeliveries(tx: Sql, rows: DeliveryWrite[]): Promise<void> {
  if (rows.length === 0) return;
  await tx`
    insert into alert_deliveries (id, org_id, idempotency_key, rule_id, monitor_id, region, channel_id, kind, seq, event)
    select * from jsonb_to_recordset(${tx.json(rows as never)}) as d(id text, org_id text, idempotency_key text, rule_id text, monitor_id text,
      region text, channel_id text, kind text, seq integer, event jsonb)
    on conflict (idempotency_key) do nothing`;
}

/**
 * Takes up to `limit` due deliveries for `leaseMs`: no other dispatcher takes them until the
 * lease runs out, which is also how a crashed dispatcher's deliveries come back.
 */
export async function claimDeliveries(sql: Sql, now: Date, leaseMs: number, limit: number): Promise<DeliveryRow[]> {
  return sql<DeliveryRow[]>`
    update alert_deliveries d set lease_until = ${new Date(now.getTime() + leaseMs)}, attempts = d.attempts + 1
    where d.id in (
      select id from alert_deliveries
      where status = 'pending' and next_attempt_at <= ${now} and (lease_until is null or lease_until <= ${now})
        -- One channel hears about one alert in decision order: nothing overtakes an earlier pending delivery.
        and not exists (select 1 from alert_deliveries e where e.status = 'pending' and e.rule_id = alert_deliveries.rule_id
                          and e.monitor_id = alert_deliveries.monitor_id and e.region = alert_deliveries.region
                          and e.channel_id = alert_deliveries.channel_id and e.order_no < alert_deliveries.order_no)
      order by order_no limit ${limit} for update skip locked)
    returning d.*`;
}

export async function markDelivery(
  tx: Sql,
  id: string,
  outcome: { status: "sent" } | { status: "failed"; error: string } | { status: "pending"; error: string; nextAttemptAt: Date },
): Promise<void> {
  if (outcome.status === "sent") {
    await tx`update alert_deliveries set status = 'sent', sent_at = now(), lease_until = null, last_error = null where id = ${id}`;
  } else if (outcome.status === "failed") {
    await tx`update alert_deliveries set status = 'failed', lease_until = null, last_error = ${outcome.error} where id = ${id}`;
  } else {
    await tx`update alert_deliveries set lease_until = null, last_error = ${outcome.error}, next_attempt_at = ${outcome.nextAttemptAt} where id = ${id}`;
  }
}

export interface HistoryWrite {
  id: string;
  org_id: string;
  delivery_id: string;
  rule_id: string;
  monitor_id: string;
  region: string;
  channel_id: string;
  channel_type: string | null;
  kind: string;
  attempt: number;
  status: "sent" | "retrying" | "failed" | "suppressed";
  http_status: number | null;
  error: string | null;
  duration_ms: number | null;
}

export async function insertHistory(tx: Sql, h: HistoryWrite): Promise<void> {
  await tx`insert into alert_history ${tx(h as never)}`;
}

export interface HistoryRow extends HistoryWrite {
  created_at: Date;
  /** The firing period of the alert the delivery belongs to (from its idempotency key); null for a test send. */
  incarnation: number | null;
}

export interface HistoryFilter {
  rule_id?: string;
  monitor_id?: string;
  channel_id?: string;
  region?: string;
  delivery_id?: string;
  kind?: string;
  status?: string;
  from?: string;
  to?: string;
}

export async function listHistory(sql: Sql, orgId: string, f: HistoryFilter, limit: number, offset: number): Promise<{ rows: HistoryRow[]; total: number }> {
  const rows = await sql<(HistoryRow & { total: number })[]>`
    select h.*, count(*) over () as total,
      (select case when split_part(d.idempotency_key, ':', 4) ~ '^[0-9]{1,9}$' then split_part(d.idempotency_key, ':', 4)::int end
       from alert_deliveries d where d.id = h.delivery_id) as incarnation
    from alert_history h
    where org_id = ${orgId}
      ${f.rule_id === undefined ? sql`` : sql`and rule_id = ${f.rule_id}`}
      ${f.monitor_id === undefined ? sql`` : sql`and monitor_id = ${f.monitor_id}`}
      ${f.channel_id === undefined ? sql`` : sql`and channel_id = ${f.channel_id}`}
      ${f.region === undefined ? sql`` : sql`and region = ${f.region}`}
      ${f.delivery_id === undefined ? sql`` : sql`and delivery_id = ${f.delivery_id}`}
      ${f.kind === undefined ? sql`` : sql`and kind = ${f.kind}`}
      ${f.status === undefined ? sql`` : sql`and status = ${f.status}`}
      ${f.from === undefined ? sql`` : sql`and created_at >= ${new Date(f.from)}`}
      ${f.to === undefined ? sql`` : sql`and created_at < ${new Date(f.to)}`}
    order by created_at desc, id desc limit ${limit} offset ${offset}`;
  return { rows, total: rows[0] ? Number(rows[0].total) : 0 };
}
