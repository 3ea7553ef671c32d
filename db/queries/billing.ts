import type { Sql } from "../client.ts";

export type Cycle = "monthly" | "annual";
export type LineStatus = "active" | "grace_period" | "past_due" | "pending_cancellation" | "cancelled";
/** Lines that still give their entitlement. */
const LIVE_STATUSES: LineStatus[] = ["active", "grace_period", "pending_cancellation"];

export interface AddonRow {
  id: string;
  name: string;
  price_cents: number;
  annual_price_cents: number;
  min_plan_id: string;
  grants: Record<string, number>;
  sort: number;
}

export interface SubscriptionRow {
  id: string;
  org_id: string;
  provider_subscription_id: string;
  provider_customer_id: string | null;
  cycle: Cycle;
  provider_status: string;
  period_start: Date | null;
  period_end: Date | null;
  last_transaction_id: string | null;
  provider_occurred_at: Date;
}

export interface LineRow {
  id: string;
  org_id: string;
  subscription_id: string;
  kind: "plan" | "addon";
  product_id: string;
  quantity: number;
  cycle: Cycle;
  unit_price_cents: number;
  status: LineStatus;
  period_start: Date;
  period_end: Date;
  grace_ends_at: Date | null;
  cancel_at: Date | null;
  ended_at: Date | null;
  /** The plan line whose cancellation also ends this add-on (resumed with it). */
  cancelled_with: string | null;
  created_at: Date;
}

export async function listAddons(sql: Sql): Promise<AddonRow[]> {
  return sql<AddonRow[]>`select * from addons order by sort`;
}

export async function billingEnabled(sql: Sql): Promise<boolean> {
  const [row] = await sql<{ enabled: boolean }[]>`select enabled from billing_settings`;
  return row?.enabled ?? true;
}

export async function setBillingEnabled(sql: Sql, enabled: boolean): Promise<void> {
  await sql`update billing_settings set enabled = ${enabled}, updated_at = now() where enabled <> ${enabled}`;
}

/** Live add-on quantities of an organisation, summed per add-on. */
export async function liveAddonQuantities(sql: Sql, orgId: string): Promise<{ addon: AddonRow; quantity: number }[]> {
  const rows = await sql<(AddonRow & { quantity: number })[]>`
    select a.*, sum(l.quantity)::int as quantity from billing_lines l join addons a on a.id = l.product_id
    where l.org_id = ${orgId} and l.kind = 'addon' and l.status = any(${LIVE_STATUSES})
    group by a.id order by a.sort`;
  return rows.map(({ quantity, ...addon }) => ({ addon, quantity }));
}

export async function findSubscriptionByProviderId(sql: Sql, providerId: string): Promise<SubscriptionRow | undefined> {
  const [row] = await sql<SubscriptionRow[]>`select * from billing_subscriptions where provider_subscription_id = ${providerId} for update`;
  return row;
}

/** The organisation's subscription that still has live lines, newest first. */
export async function findLiveSubscription(sql: Sql, orgId: string): Promise<SubscriptionRow | undefined> {
  const [row] = await sql<SubscriptionRow[]>`
    select s.* from billing_subscriptions s where s.org_id = ${orgId} and s.provider_status <> 'canceled'
      and exists (select 1 from billing_lines l where l.subscription_id = s.id and l.status = any(${LIVE_STATUSES}))
    order by s.created_at desc limit 1`;
  return row;
}

export async function upsertSubscription(
  sql: Sql,
  s: Omit<SubscriptionRow, "last_transaction_id">,
): Promise<SubscriptionRow> {
  const [row] = await sql<SubscriptionRow[]>`
    insert into billing_subscriptions (id, org_id, provider_subscription_id, provider_customer_id, cycle, provider_status, period_start, period_end, provider_occurred_at)
    values (${s.id}, ${s.org_id}, ${s.provider_subscription_id}, ${s.provider_customer_id}, ${s.cycle}, ${s.provider_status}, ${s.period_start}, ${s.period_end}, ${s.provider_occurred_at})
    on conflict (provider_subscription_id) do update set provider_customer_id = excluded.provider_customer_id, cycle = excluded.cycle,
      provider_status = excluded.provider_status, period_start = excluded.period_start, period_end = excluded.period_end,
      provider_occurred_at = excluded.provider_occurred_at, updated_at = now()
    returning *`;
  return row!;
}

/** Records the latest completed transaction (its invoice is the lines' link); false when a newer one is already recorded. */
export async function setLastTransaction(sql: Sql, subscriptionId: string, transactionId: string, occurredAt: Date): Promise<boolean> {
  const rows = await sql`
    update billing_subscriptions set last_transaction_id = ${transactionId}, last_transaction_at = ${occurredAt}, updated_at = now()
    where id = ${subscriptionId} and (last_transaction_at is null or last_transaction_at <= ${occurredAt}) returning id`;
  return rows.length > 0;
}

export async function listLines(sql: Sql, orgId: string, statuses: LineStatus[] | null = null): Promise<LineRow[]> {
  return sql<LineRow[]>`
    select * from billing_lines where org_id = ${orgId} and (${statuses}::text[] is null or status = any(${statuses}::text[]))
    order by kind desc, created_at`;
}

export async function listSubscriptionLines(sql: Sql, subscriptionId: string): Promise<LineRow[]> {
  return sql<LineRow[]>`select * from billing_lines where subscription_id = ${subscriptionId} and status = any(${LIVE_STATUSES}) order by created_at for update`;
}

export async function findLine(sql: Sql, orgId: string, id: string): Promise<LineRow | undefined> {
  const [row] = await sql<LineRow[]>`select * from billing_lines where org_id = ${orgId} and id = ${id} for update`;
  return row;
}

export async function insertLine(sql: Sql, l: Omit<LineRow, "grace_ends_at" | "cancel_at" | "ended_at" | "cancelled_with" | "created_at">): Promise<LineRow> {
  const [row] = await sql<LineRow[]>`
    insert into billing_lines (id, org_id, subscription_id, kind, product_id, quantity, cycle, unit_price_cents, status, period_start, period_end)
    values (${l.id}, ${l.org_id}, ${l.subscription_id}, ${l.kind}, ${l.product_id}, ${l.quantity}, ${l.cycle}, ${l.unit_price_cents}, ${l.status}, ${l.period_start}, ${l.period_end})
    returning *`;
  return row!;
}

export async function updateLine(
  sql: Sql,
  id: string,
  patch: Partial<Pick<LineRow, "quantity" | "unit_price_cents" | "status" | "period_start" | "period_end" | "grace_ends_at" | "cancel_at" | "ended_at" | "cancelled_with">>,
): Promise<LineRow> {
  const [row] = await sql<LineRow[]>`update billing_lines set ${sql(patch as Record<string, unknown>)}, updated_at = now() where id = ${id} returning *`;
  return row!;
}

export async function setOrgPlan(sql: Sql, orgId: string, planId: string): Promise<string | null> {
  const [row] = await sql<{ old: string }[]>`
    update organisations o set plan_id = ${planId}, updated_at = now() from organisations prev
    where o.id = ${orgId} and prev.id = o.id and o.plan_id <> ${planId} returning prev.plan_id as old`;
  return row?.old ?? null;
}

export async function ownerEmails(sql: Sql, orgId: string): Promise<string[]> {
  const rows = await sql<{ email: string }[]>`
    select u.email from memberships m join users u on u.id = m.user_id where m.org_id = ${orgId} and m.role_id = 'owner'`;
  return rows.map((r) => r.email);
}
