import type { Sql } from "../client.ts";

export interface StateKey {
  rule_id: string;
  monitor_id: string;
  region: string;
}

export interface AlertStateRow extends StateKey {
  org_id: string;
  firing: boolean;
  acknowledged: boolean;
  consecutive: number;
  incarnation: number;
  fired_at: Date | null;
  last_notified_at: Date | null;
  last_result_at: Date | null;
  state: Record<string, unknown>;
  next_due_at: Date | null;
}

export const keyOf = (k: StateKey) => `${k.rule_id}|${k.monitor_id}|${k.region}`;

/** Existing states of these monitors, without locks (a cheap first look). */
export async function peekStates(sql: Sql, monitorIds: string[]): Promise<Map<string, AlertStateRow>> {
  if (monitorIds.length === 0) return new Map();
  const rows = await sql<AlertStateRow[]>`select s.* from alert_states s join unnest(${monitorIds}::text[]) as i(id) on s.monitor_id = i.id`;
  return new Map(rows.map((r) => [keyOf(r), r]));
}

/** Creates missing rows, then locks every row in key order (so concurrent processes never deadlock). */
export async function lockStates(
  tx: Sql,
  keys: (StateKey & { org_id: string })[],
  initial: Record<string, unknown>,
  /** Keys known to have a row already (skips the insert when that is all of them). */
  existing: Set<string> = new Set(),
): Promise<Map<string, AlertStateRow>> {
  if (keys.length === 0) return new Map();
  const sorted = [...keys].sort((a, b) => keyOf(a).localeCompare(keyOf(b)));
  const missing = sorted.filter((k) => !existing.has(keyOf(k)));
  if (missing.length > 0) await tx`
    insert into alert_states (org_id, rule_id, monitor_id, region, state)
    select k.org_id, k.rule_id, k.monitor_id, k.region, ${tx.json(initial as never)}
    from jsonb_to_recordset(${tx.json(missing as never)}) as k(org_id text, rule_id text, monitor_id text, region text)
    where exists (select 1 from alert_rules r where r.id = k.rule_id) and exists (select 1 from monitors m where m.id = k.monitor_id)
    order by k.rule_id, k.monitor_id, k.region
    on conflict do nothing`;
  const rows = await tx<AlertStateRow[]>`
    select s.* from alert_states s
    join jsonb_to_recordset(${tx.json(sorted as never)}) as k(rule_id text, monitor_id text, region text)
      on s.rule_id = k.rule_id and s.monitor_id = k.monitor_id and s.region = k.region
    order by s.rule_id, s.monitor_id, s.region
    for update of s`;
  return new Map(rows.map((r) => [keyOf(r), r]));
}

export interface StateWrite extends StateKey {
  firing: boolean;
  acknowledged: boolean;
  consecutive: number;
  incarnation: number;
  fired_at: string | null;
  last_notified_at: string | null;
  last_result_at: string | null;
  state: Record<string, unknown>;
  next_due_at: string | null;
}

export async function saveStates(tx: Sql, rows: StateWrite[]): Promise<void> {
  if (rows.length === 0) return;
  await tx`
    update alert_states s set firing = w.firing, acknowledged = w.acknowledged, consecutive = w.consecutive, incarnation = w.incarnation,
      fired_at = w.fired_at, last_notified_at = w.last_notified_at, last_result_at = w.last_result_at, state = w.state,
      next_due_at = w.next_due_at, updated_at = now()
    from jsonb_to_recordset(${tx.json(rows as never)}) as w(rule_id text, monitor_id text, region text, firing boolean, acknowledged boolean,
      consecutive integer, incarnation integer, fired_at timestamptz, last_notified_at timestamptz, last_result_at timestamptz, state jsonb, next_due_at timestamptz)
    where s.rule_id = w.rule_id and s.monitor_id = w.monitor_id and s.region = w.region`;
}

/** States whose next escalation or reminder is due; rows another process holds are skipped. */
export async function claimDueStates(tx: Sql, now: Date, limit: number): Promise<AlertStateRow[]> {
  return tx<AlertStateRow[]>`
    select * from alert_states where next_due_at <= ${now} order by next_due_at limit ${limit} for update skip locked`;
}

/**
 * Firing states whose location their monitor no longer checks from, locked; rows another process holds are skipped.
 * The locations are domain/monitors/locations.ts's rule in SQL: a heartbeat's pings, `none` for a monitor with no
 * region and no runner, else its regions and runners.
 */
export async function claimWithdrawnStates(tx: Sql, places: { heartbeat: string; nowhere: string }, limit: number): Promise<AlertStateRow[]> {
  return tx<AlertStateRow[]>`
    select s.* from alert_states s join monitors m on m.id = s.monitor_id
    where s.firing and s.region <> all(
      case when m.type = 'heartbeat' then array[${places.heartbeat}]::text[]
           when cardinality(m.regions) + cardinality(m.runner_ids) = 0 then array[${places.nowhere}]::text[]
           else m.regions || m.runner_ids end)
    order by s.rule_id, s.monitor_id, s.region limit ${limit}
    for update of s skip locked`;
}

/** The firing states of one (rule, monitor), optionally one region, locked for an acknowledgement. */
export async function lockFiringStates(tx: Sql, orgId: string, ruleId: string, monitorId: string, region: string | null): Promise<AlertStateRow[]> {
  return tx<AlertStateRow[]>`
    select * from alert_states where org_id = ${orgId} and rule_id = ${ruleId} and monitor_id = ${monitorId} and firing
      ${region === null ? tx`` : tx`and region = ${region}`}
    order by region for update`;
}

export interface ActiveAlertRow {
  rule_id: string;
  rule_name: string;
  monitor_id: string;
  monitor_name: string;
  region: string;
  acknowledged: boolean;
  fired_at: Date;
  last_notified_at: Date | null;
  consecutive: number;
  incarnation: number;
}

export async function listActiveAlerts(
  sql: Sql,
  orgId: string,
  f: { rule_id?: string; monitor_id?: string; acknowledged?: boolean },
  limit: number,
  offset: number,
): Promise<{ rows: ActiveAlertRow[]; total: number }> {
  const rows = await sql<(ActiveAlertRow & { total: number })[]>`
    select s.rule_id, r.name as rule_name, s.monitor_id, m.name as monitor_name, s.region, s.acknowledged, s.fired_at, s.last_notified_at, s.consecutive, s.incarnation,
           count(*) over () as total
    from alert_states s join alert_rules r on r.id = s.rule_id join monitors m on m.id = s.monitor_id
    where s.org_id = ${orgId} and s.firing
      ${f.rule_id === undefined ? sql`` : sql`and s.rule_id = ${f.rule_id}`}
      ${f.monitor_id === undefined ? sql`` : sql`and s.monitor_id = ${f.monitor_id}`}
      ${f.acknowledged === undefined ? sql`` : sql`and s.acknowledged = ${f.acknowledged}`}
    order by s.fired_at desc, s.rule_id, s.monitor_id, s.region limit ${limit} offset ${offset}`;
  return { rows, total: rows[0] ? Number(rows[0].total) : 0 };
}

/** Looks at these states again later (their rule or monitor could not be loaded just now). */
export async function postponeStates(tx: Sql, keys: StateKey[], until: Date): Promise<void> {
  if (keys.length === 0) return;
  await tx`
    update alert_states s set next_due_at = ${until}
    from jsonb_to_recordset(${tx.json(keys as never)}) as k(rule_id text, monitor_id text, region text)
    where s.rule_id = k.rule_id and s.monitor_id = k.monitor_id and s.region = k.region`;
}

/**
 * The certificate fingerprint of the latest stored check of (monitor, location) scheduled before
 * `before`, within 30 days; null when there is none. For certificate_changed on a state that has
 * not seen a fingerprint yet (a rule newer than the monitor).
 */
export async function previousFingerprint(sql: Sql, orgId: string, monitorId: string, location: string, before: Date): Promise<string | null> {
  const [row] = await sql<{ fp: string }[]>`
    select data->>'fingerprint_sha256' as fp from check_results
    where monitor_id = ${monitorId} and location = ${location} and org_id = ${orgId}
      and scheduled_at < ${before} and scheduled_at > ${before} - interval '30 days'
      and data ? 'fingerprint_sha256'
    order by scheduled_at desc limit 1`;
  return row?.fp ?? null;
}
