import type { Sql } from "../client.ts";

/** One alert: the rule × monitor × region state, one incarnation (firing period) of it. */
export interface AlertKey {
  rule_id: string;
  monitor_id: string;
  region: string;
  incarnation: number;
}

export interface AlertHeadRow {
  rule_name: string;
  monitor_name: string;
  monitor_type: string;
  firing: boolean;
  acknowledged: boolean;
  current_incarnation: number;
  fired_at: Date | null;
}

/** The state row with its rule and monitor names, in one organisation; undefined when any is gone. */
export async function findAlertHead(sql: Sql, orgId: string, k: AlertKey): Promise<AlertHeadRow | undefined> {
  const [row] = await sql<AlertHeadRow[]>`
    select r.name as rule_name, m.name as monitor_name, m.type as monitor_type, s.firing, s.acknowledged,
           s.incarnation as current_incarnation, s.fired_at
    from alert_states s join alert_rules r on r.id = s.rule_id join monitors m on m.id = s.monitor_id
    where s.org_id = ${orgId} and s.rule_id = ${k.rule_id} and s.monitor_id = ${k.monitor_id} and s.region = ${k.region}`;
  return row;
}

/** When the in-app feed recorded this incarnation firing and clearing (same transaction as the state change). */
export async function alertEventTimes(sql: Sql, orgId: string, k: AlertKey): Promise<{ fired_at: Date | null; recovered_at: Date | null }> {
  const rows = await sql<{ type: string; at: Date }[]>`
    select type, min(created_at) as at from notifications
    where org_id = ${orgId} and type in ('alert.fired', 'alert.recovered')
      and data->>'rule_id' = ${k.rule_id} and data->>'monitor_id' = ${k.monitor_id} and data->>'region' = ${k.region}
      and data->>'incarnation' = ${String(k.incarnation)}
    group by type`;
  const at = (t: string) => rows.find((r) => r.type === t)?.at ?? null;
  return { fired_at: at("alert.fired"), recovered_at: at("alert.recovered") };
}

export interface TimelineDeliveryRow {
  id: string;
  channel_id: string;
  channel_name: string | null;
  channel_type: string | null;
  kind: string;
  seq: number;
  status: "pending" | "sent" | "failed";
  attempts: number;
  last_error: string | null;
  created_at: Date;
  sent_at: Date | null;
}

/** Every notification decided for this incarnation (the idempotency key carries it), in decision order. */
export async function alertDeliveries(sql: Sql, orgId: string, k: AlertKey): Promise<TimelineDeliveryRow[]> {
  const prefix = `${k.rule_id}:${k.monitor_id}:${k.region}:${k.incarnation}:`;
  return sql<TimelineDeliveryRow[]>`
    select d.id, d.channel_id, c.name as channel_name, c.type as channel_type, d.kind, d.seq, d.status, d.attempts, d.last_error, d.created_at, d.sent_at
    from alert_deliveries d left join alert_channels c on c.id = d.channel_id
    where d.org_id = ${orgId} and d.rule_id = ${k.rule_id} and d.monitor_id = ${k.monitor_id} and d.region = ${k.region}
      and starts_with(d.idempotency_key, ${prefix})
    order by d.order_no`;
}

export interface AckWrite extends AlertKey {
  org_id: string;
  actor_type: "user" | "api_key";
  actor_id: string;
  actor_label: string;
}

export async function insertAcknowledgements(tx: Sql, rows: AckWrite[]): Promise<void> {
  if (rows.length === 0) return;
  await tx`
    insert into alert_acknowledgements (org_id, rule_id, monitor_id, region, incarnation, actor_type, actor_id, actor_label)
    select * from jsonb_to_recordset(${tx.json(rows as never)})
      as a(org_id text, rule_id text, monitor_id text, region text, incarnation integer, actor_type text, actor_id text, actor_label text)`;
}

export async function alertAcknowledgements(sql: Sql, orgId: string, k: AlertKey): Promise<{ actor_type: "user" | "api_key"; actor_label: string; created_at: Date }[]> {
  return sql`
    select actor_type, actor_label, created_at from alert_acknowledgements
    where org_id = ${orgId} and rule_id = ${k.rule_id} and monitor_id = ${k.monitor_id} and region = ${k.region} and incarnation = ${k.incarnation}
    order by created_at, id`;
}

export interface TimelineCheckRow {
  id: string;
  checked_at: Date;
  status: string;
  duration_ms: number;
  error: string | null;
}

/**
 * The results from this region around one firing period: the failing run that led to it (back to
 * the last passing result before `from`, at most `lookbackMs`), every failing result up to `to`, and
 * the first passing one at or after `to` (the recovery). At most `limit` failing results, oldest first.
 */
export async function alertChecks(sql: Sql, orgId: string, monitorId: string, location: string, from: Date, to: Date | null, lookbackMs: number, limit: number): Promise<TimelineCheckRow[]> {
  const floor = new Date(from.getTime() - lookbackMs);
  const [lastUp] = await sql<{ at: Date | null }[]>`
    select max(scheduled_at) as at from check_results
    where org_id = ${orgId} and monitor_id = ${monitorId} and location = ${location} and status = 'up'
      and scheduled_at >= ${floor} and checked_at < ${from}`;
  const start = lastUp?.at ?? floor;
  const failing = await sql<TimelineCheckRow[]>`
    select check_result_id(id, job_id, scheduled_at)::text as id, checked_at, status, duration_ms, error from check_results
    where org_id = ${orgId} and monitor_id = ${monitorId} and location = ${location} and status <> 'up'
      and scheduled_at > ${start} ${to ? sql`and checked_at <= ${to}` : sql``}
    order by scheduled_at limit ${limit}`;
  if (!to) return failing;
  const after = failing.length > 0 ? sql`and checked_at > ${failing[failing.length - 1]!.checked_at}` : sql``;
  const recovery = await sql<TimelineCheckRow[]>`
    select check_result_id(id, job_id, scheduled_at)::text as id, checked_at, status, duration_ms, error from check_results
    where org_id = ${orgId} and monitor_id = ${monitorId} and location = ${location} and status = 'up'
      and scheduled_at > ${start} and checked_at <= ${to} ${after}
    order by scheduled_at limit 1`;
  return [...failing, ...recovery];
}
