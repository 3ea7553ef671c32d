import { type Sql, withTx } from "../db/client.ts";
import { newId } from "../core/ids.ts";
import {
  findSubscriptionByProviderId,
  insertLine,
  type LineRow,
  listAddons,
  listSubscriptionLines,
  setLastTransaction,
  setOrgPlan,
  updateLine,
  upsertSubscription,
} from "../db/queries/billing.ts";
import { cancelJobs, insertOverlap, recordWebhookEvent, scheduleJob, setWebhookOutcome } from "../db/queries/billing-jobs.ts";
import { listPlans, type PlanRow } from "../db/queries/plans.ts";
import type { ProviderEvent, ProviderSubscription } from "./provider/types.ts";

const DAY = 86_400_000;

export type SyncOutcome = "applied" | "duplicate" | "stale" | "ignored";

/**
 * Applies one verified provider event, once per event id, in one transaction. Subscription
 * snapshots carry their own `updated_at`; an older snapshot than the one applied is recorded and skipped.
 */
export async function applyProviderEvent(sql: Sql, provider: string, event: ProviderEvent, payload: unknown): Promise<{ outcome: SyncOutcome; orgId: string | null }> {
  return withTx(sql, async (tx) => {
    const fresh = await recordWebhookEvent(tx, { eventId: event.id, provider, eventType: event.type, occurredAt: event.occurredAt, outcome: "received", payload });
    if (!fresh) return { outcome: "duplicate" as const, orgId: null };
    let result: { outcome: SyncOutcome; orgId: string | null } = { outcome: "ignored", orgId: null };
    if (event.kind === "subscription") result = await applySnapshot(tx, event.subscription);
    else if (event.kind === "transaction" && event.transaction.status === "completed" && event.transaction.subscriptionId) {
      const sub = await findSubscriptionByProviderId(tx, event.transaction.subscriptionId);
      if (sub) {
        const newest = await setLastTransaction(tx, sub.id, event.transaction.id, event.occurredAt);
        result = { outcome: newest ? "applied" : "stale", orgId: sub.org_id };
      }
    }
    await setWebhookOutcome(tx, event.id, result.outcome);
    return result;
  });
}

interface Catalogue {
  plans: Map<string, PlanRow>;
  addonMinPlan: Map<string, { min: string; grants: Record<string, number> }>;
}

async function loadCatalogue(sql: Sql): Promise<Catalogue> {
  const plans = new Map((await listPlans(sql)).map((p) => [p.id, p]));
  const addonMinPlan = new Map((await listAddons(sql)).map((a) => [a.id, { min: a.min_plan_id, grants: a.grants }]));
  return { plans, addonMinPlan };
}

/** Brings the subscription's lines in line with the provider's snapshot (the spec's status table). */
export async function applySnapshot(tx: Sql, snap: ProviderSubscription): Promise<{ outcome: SyncOutcome; orgId: string | null }> {
  const [org] = await tx<{ id: string; plan_id: string }[]>`select id, plan_id from organisations where id = ${snap.orgId} for update`;
  if (!org) return { outcome: "ignored", orgId: null };
  const existing = await findSubscriptionByProviderId(tx, snap.id);
  if (existing && existing.provider_occurred_at.getTime() >= snap.updatedAt.getTime()) return { outcome: "stale", orgId: org.id };
  const cat = await loadCatalogue(tx);
  const sub = await upsertSubscription(tx, {
    id: existing?.id ?? newId("bsub"),
    org_id: org.id,
    provider_subscription_id: snap.id,
    provider_customer_id: snap.customerId,
    cycle: snap.cycle,
    provider_status: snap.status,
    period_start: snap.periodStart,
    period_end: snap.periodEnd,
    provider_occurred_at: snap.updatedAt,
  });
  const at = snap.updatedAt;
  let lines = await listSubscriptionLines(tx, sub.id);
  for (const item of snap.items) {
    const kind = cat.plans.has(item.productId) ? "plan" : cat.addonMinPlan.has(item.productId) ? "addon" : null;
    if (!kind) continue;
    const line = lines.find((l) => l.product_id === item.productId);
    if (!line) {
      if (snap.status === "canceled") continue;
      await insertLine(tx, {
        id: newId("bln"),
        org_id: org.id,
        subscription_id: sub.id,
        kind,
        product_id: item.productId,
        quantity: item.quantity,
        cycle: snap.cycle,
        unit_price_cents: item.unitPriceCents,
        status: "active",
        period_start: snap.periodStart,
        period_end: snap.periodEnd,
      });
    } else if (line.status !== "pending_cancellation") {
      await updateLine(tx, line.id, { quantity: item.quantity, unit_price_cents: item.unitPriceCents, period_start: snap.periodStart, period_end: snap.periodEnd });
    }
  }
  lines = await listSubscriptionLines(tx, sub.id);
  for (const line of lines) {
    const present = snap.items.some((i) => i.productId === line.product_id);
    if (snap.status === "canceled" || (!present && line.status !== "pending_cancellation")) {
      // A running line that ends mid-period (replaced by a plan change, cancelled at once) ends then, not at its period's end.
      const cut = (line.status === "active" || line.status === "grace_period") && at < line.period_end ? { period_end: at } : {};
      await updateLine(tx, line.id, { status: "cancelled", ended_at: at, grace_ends_at: null, ...cut });
    }
  }
  lines = await listSubscriptionLines(tx, sub.id);
  const graceDays = cat.plans.get(lines.find((l) => l.kind === "plan")?.product_id ?? org.plan_id)?.grace_days ?? 7;
  if (snap.status === "past_due") {
    const graceEnds = new Date(at.getTime() + graceDays * DAY);
    let started = false;
    for (const line of lines.filter((l) => l.status === "active")) {
      await updateLine(tx, line.id, { status: "grace_period", grace_ends_at: graceEnds });
      started = true;
    }
    if (started) {
      await scheduleJob(tx, { orgId: org.id, kind: "grace_reminder", refId: sub.id, dueAt: at });
      if (graceDays > 1) await scheduleJob(tx, { orgId: org.id, kind: "grace_reminder", refId: sub.id, dueAt: new Date(graceEnds.getTime() - DAY) });
      await scheduleJob(tx, { orgId: org.id, kind: "grace_expiry", refId: sub.id, dueAt: graceEnds });
    }
  } else if (snap.status === "active" || snap.status === "trialing") {
    // A payment during grace brings the lines back to active in the period the provider reports.
    for (const line of lines.filter((l) => l.status === "grace_period")) await updateLine(tx, line.id, { status: "active", grace_ends_at: null });
    await cancelJobs(tx, ["grace_reminder", "grace_expiry"], sub.id);
    if (snap.cancelAt) {
      for (const line of lines.filter((l) => l.status === "active")) await markPendingCancellation(tx, line, snap.cancelAt);
    }
  }
  await settleOrgPlan(tx, org.id, cat);
  return { outcome: "applied", orgId: org.id };
}

/** The line keeps working until `at`, then the period-end job cancels it. `withLineId`: the plan line it ends with. */
export async function markPendingCancellation(tx: Sql, line: LineRow, at: Date, withLineId: string | null = null): Promise<void> {
  await updateLine(tx, line.id, { status: "pending_cancellation", cancel_at: at, cancelled_with: withLineId });
  await scheduleJob(tx, { orgId: line.org_id, kind: "period_end", refId: line.id, dueAt: at });
}

/**
 * The organisation's plan is its live plan line, else Free. On an upgrade, add-ons whose capacity the
 * new plan includes raise overlap notices; on a downgrade, add-ons above the new plan's minimum end at their period end.
 */
export async function settleOrgPlan(tx: Sql, orgId: string, cat?: Catalogue): Promise<void> {
  const catalogue = cat ?? (await loadCatalogue(tx));
  const lines = await tx<LineRow[]>`
    select * from billing_lines where org_id = ${orgId} and status in ('active', 'grace_period', 'pending_cancellation') order by kind desc, created_at`;
  const planLine = lines.filter((l) => l.kind === "plan").at(-1);
  const planId = planLine?.product_id ?? "free";
  const old = await setOrgPlan(tx, orgId, planId);
  if (old === null) return;
  const before = catalogue.plans.get(old);
  const after = catalogue.plans.get(planId);
  if (!before || !after) return;
  for (const line of lines.filter((l) => l.kind === "addon")) {
    const addon = catalogue.addonMinPlan.get(line.product_id);
    if (!addon) continue;
    if (after.sort > before.sort && line.status !== "pending_cancellation") {
      const quotas = Object.keys(addon.grants).filter((q) => (after.quotas[q] ?? 0) > (before.quotas[q] ?? 0));
      if (quotas.length) await insertOverlap(tx, { id: newId("ovl"), orgId, lineId: line.id, planId, quotas });
    }
    const min = catalogue.plans.get(addon.min);
    if (min && after.sort < min.sort && line.status === "active") await markPendingCancellation(tx, line, line.period_end);
  }
}
