import type { Actor } from "../domain/access/actor.ts";
import { type Sql, withTx } from "../db/client.ts";
import { conflict, entitlementRequired, notFound, validationError } from "../core/errors.ts";
import type { Logger } from "../core/log.ts";
import { billingEnabled, type Cycle, findLine, findLiveSubscription, type LineRow, listAddons, listSubscriptionLines, type SubscriptionRow, updateLine } from "../db/queries/billing.ts";
import { cancelJobs, findOpenOverlap, resolveOverlap } from "../db/queries/billing-jobs.ts";
import { listPlans } from "../db/queries/plans.ts";
import { prorate } from "./proration.ts";
import type { BillingProvider, ProviderItem, ProviderSubscription } from "./provider/types.ts";
import { reconcileSuspensions } from "./suspension.ts";
import { applySnapshot, markPendingCancellation } from "./sync.ts";

export interface BillingDeps {
  sql: Sql;
  /** Null when BILLING=off or no provider is configured. */
  provider: BillingProvider | null;
  log: Logger;
}

async function requireProvider(deps: BillingDeps): Promise<BillingProvider> {
  if (!deps.provider || !(await billingEnabled(deps.sql))) throw conflict("Billing is disabled on this deployment (BILLING=off): every organisation has the unlimited plan");
  return deps.provider;
}

/**
 * Applies what the provider answered at once, so the caller sees the change before the webhook arrives.
 * Suspensions are stamped on the provider's clock, the one the billing jobs' deletion sweep runs on.
 */
async function applyNow(deps: BillingDeps, orgId: string, snap: ProviderSubscription): Promise<void> {
  await withTx(deps.sql, (tx) => applySnapshot(tx, snap));
  await reconcileSuspensions(deps.sql, orgId, snap.updatedAt);
}

/** What the provider should bill at the next renewal: the live lines that are not ending. */
const billable = (lines: LineRow[]): ProviderItem[] => lines.filter((l) => l.status !== "pending_cancellation").map((l) => ({ productId: l.product_id, quantity: l.quantity }));

/** Add-on lines that need more than the Free plan: they end together with the plan line. */
async function addonsNeedingPlan(sql: Sql, lines: LineRow[]): Promise<LineRow[]> {
  const plans = new Map((await listPlans(sql)).map((p) => [p.id, p.sort]));
  const minSort = new Map((await listAddons(sql)).map((a) => [a.id, plans.get(a.min_plan_id) ?? 0]));
  return lines.filter((l) => l.kind === "addon" && (minSort.get(l.product_id) ?? 0) > (plans.get("free") ?? 0));
}

/**
 * Tells the provider which items to bill from the next renewal on (an empty set cancels at the
 * period end) and applies its answer at once, so webhooks of the state before this change that are
 * still in flight arrive stale instead of undoing it.
 */
async function pushItems(deps: BillingDeps, provider: BillingProvider, sub: SubscriptionRow, before: ProviderItem[]): Promise<void> {
  const after = billable(await listSubscriptionLines(deps.sql, sub.id));
  let snap: ProviderSubscription;
  if (after.length === 0) snap = await provider.cancel(sub.provider_subscription_id, "next_billing_period");
  else {
    if (before.length === 0) await provider.cancel(sub.provider_subscription_id, null);
    snap = await provider.updateItems(sub.provider_subscription_id, after, "do_not_bill");
  }
  await applyNow(deps, sub.org_id, snap);
}

export interface CheckoutInput {
  plan?: string;
  addons?: { id: string; quantity: number }[];
  cycle: Cycle;
}

export async function checkout(deps: BillingDeps, actor: Actor, input: CheckoutInput): Promise<{ checkout_url: string | null; transaction_id: string | null; applied: boolean }> {
  const provider = await requireProvider(deps);
  const addons = new Map((await listAddons(deps.sql)).map((a) => [a.id, a]));
  const plans = new Map((await listPlans(deps.sql)).map((p) => [p.id, p]));
  const wanted = input.addons ?? [];
  if (!input.plan && wanted.length === 0) throw validationError([{ path: "body", message: "Pick a plan or at least one add-on" }]);
  if (input.plan) {
    const p = plans.get(input.plan);
    if (!p || !p.public || p.id === "free") throw validationError([{ path: "body.plan", message: `Not a purchasable plan: ${input.plan}` }]);
  }
  const [org] = await deps.sql<{ plan_id: string }[]>`select plan_id from organisations where id = ${actor.orgId}`;
  const targetPlan = plans.get(input.plan ?? org!.plan_id)!;
  // The provider takes one item per price: a repeated add-on would be charged but never applied.
  const repeated = wanted.findIndex((w, i) => wanted.findIndex((x) => x.id === w.id) !== i);
  if (repeated >= 0) throw validationError([{ path: `body.addons.${repeated}.id`, message: `${wanted[repeated]!.id} is listed twice; give its total quantity once` }]);
  for (const w of wanted) {
    const a = addons.get(w.id);
    if (!a) throw validationError([{ path: "body.addons", message: `Unknown add-on ${w.id}` }]);
    const min = plans.get(a.min_plan_id)!;
    if (targetPlan.sort < min.sort) throw entitlementRequired(`addon:${a.id}`, `${a.name} needs the ${min.name} plan or higher`, { minimum_plan: min.id });
  }
  const live = await findLiveSubscription(deps.sql, actor.orgId);
  if (live) {
    if (input.plan) throw conflict("The organisation already has a subscription; change its plan with POST /billing/change-plan", { subscription_id: live.id });
    if (input.cycle !== live.cycle) throw conflict(`Add-ons are billed with the subscription's ${live.cycle} cycle`);
    const lines = await listSubscriptionLines(deps.sql, live.id);
    const items = billable(lines);
    for (const w of wanted) {
      const line = lines.find((l) => l.product_id === w.id);
      if (line?.status === "pending_cancellation") throw conflict(`${w.id} is ending at the period end; resume line ${line.id} instead`, { line_id: line.id });
      const item = items.find((i) => i.productId === w.id);
      if (item) item.quantity += w.quantity;
      else items.push({ productId: w.id, quantity: w.quantity });
    }
    // Added to the existing subscription: one transaction with a line per item, charged prorated now.
    const snap = await provider.updateItems(live.provider_subscription_id, items, "prorated_immediately");
    await applyNow(deps, actor.orgId, snap);
    return { checkout_url: null, transaction_id: null, applied: true };
  }
  const [user] = await deps.sql<{ email: string }[]>`select email from users where id = ${actor.userId}`;
  const items: ProviderItem[] = [...(input.plan ? [{ productId: input.plan, quantity: 1 }] : []), ...wanted.map((w) => ({ productId: w.id, quantity: w.quantity }))];
  const { url, transactionId } = await provider.createCheckout({ orgId: actor.orgId, email: user?.email ?? "", cycle: input.cycle, items });
  return { checkout_url: url, transaction_id: transactionId, applied: false };
}

export interface PlanChange {
  direction: "upgrade" | "downgrade";
  from: string;
  to: string;
  cycle: Cycle;
  proration: { old_price_cents: number; new_price_cents: number; period_seconds: number; remaining_seconds: number; amount_cents: number; charged_now_cents: number; credited_next_invoice_cents: number };
  /** What the change suspends and is still suspended then is deleted at this time: the new plan's grace days from now. */
  delete_suspended_at: string;
  applied: boolean;
}

export async function changePlan(deps: BillingDeps, actor: Actor, input: { plan: string; preview?: boolean }, now = new Date()): Promise<PlanChange> {
  const provider = await requireProvider(deps);
  const plans = new Map((await listPlans(deps.sql)).map((p) => [p.id, p]));
  const target = plans.get(input.plan);
  if (!target || !target.public) throw validationError([{ path: "body.plan", message: `Unknown plan ${input.plan}` }]);
  if (target.id === "free") throw validationError([{ path: "body.plan", message: "To go back to Free, cancel the plan line (POST /billing/lines/:id/cancel)" }]);
  const sub = await findLiveSubscription(deps.sql, actor.orgId);
  const lines = sub ? await listSubscriptionLines(deps.sql, sub.id) : [];
  const planLine = lines.find((l) => l.kind === "plan");
  if (!sub || !planLine) throw conflict("No paid plan to change; buy one with POST /billing/checkout");
  if (planLine.status === "pending_cancellation") throw conflict("The plan is ending at the period end; resume it first", { line_id: planLine.id });
  if (planLine.product_id === target.id) throw conflict(`Already on the ${target.name} plan`);
  const current = plans.get(planLine.product_id)!;
  const price = (p: typeof target) => (sub.cycle === "annual" ? p.annual_price_cents : p.monthly_price_cents);
  const oldPrice = planLine.unit_price_cents;
  const newPrice = price(target);
  const period = { start: planLine.period_start, end: planLine.period_end };
  const amount = prorate(oldPrice, newPrice, period, now);
  const direction = target.sort > current.sort ? "upgrade" : "downgrade";
  const result: PlanChange = {
    direction,
    from: current.id,
    to: target.id,
    cycle: sub.cycle,
    proration: {
      old_price_cents: oldPrice,
      new_price_cents: newPrice,
      period_seconds: Math.floor((period.end.getTime() - period.start.getTime()) / 1000),
      remaining_seconds: Math.min(Math.floor((period.end.getTime() - period.start.getTime()) / 1000), Math.max(0, Math.floor((period.end.getTime() - now.getTime()) / 1000))),
      amount_cents: amount,
      charged_now_cents: Math.max(0, amount),
      credited_next_invoice_cents: Math.max(0, -amount),
    },
    // Suspensions are stamped on this (the provider's) clock and the billing jobs delete after the org plan's grace.
    delete_suspended_at: new Date(now.getTime() + target.grace_days * 86_400_000).toISOString(),
    applied: false,
  };
  if (input.preview) return result;
  const items = billable(lines).map((i) => (i.productId === current.id ? { productId: target.id, quantity: 1 } : i));
  // Add-ons below the new plan's minimum stop being billed; their lines end at the period end.
  const addonMin = new Map((await listAddons(deps.sql)).map((a) => [a.id, plans.get(a.min_plan_id)!.sort]));
  const kept = items.filter((i) => (addonMin.get(i.productId) ?? 0) <= target.sort);
  const dropped = lines.filter((l) => l.kind === "addon" && l.status === "active" && (addonMin.get(l.product_id) ?? 0) > target.sort);
  await withTx(deps.sql, async (tx) => {
    for (const line of dropped) await markPendingCancellation(tx, line, line.period_end);
  });
  // The plan is prorated; dropped add-ons are already paid to the period end, so they leave unbilled.
  let snap = await provider.updateItems(sub.provider_subscription_id, items, direction === "upgrade" ? "prorated_immediately" : "prorated_next_billing_period");
  if (kept.length < items.length) snap = await provider.updateItems(sub.provider_subscription_id, kept, "do_not_bill");
  await applyNow(deps, actor.orgId, snap);
  return { ...result, applied: true };
}

export async function cancelLine(deps: BillingDeps, actor: Actor, lineId: string): Promise<LineRow> {
  const provider = await requireProvider(deps);
  const { line, sub, before } = await withTx(deps.sql, async (tx) => {
    const line = await findLine(tx, actor.orgId, lineId);
    if (!line) throw notFound("Subscription line");
    if (line.status !== "active") throw conflict(`Only an active line can be cancelled; this one is ${line.status}`, { status: line.status });
    const lines = await listSubscriptionLines(tx, line.subscription_id);
    const before = billable(lines);
    await markPendingCancellation(tx, line, line.period_end);
    // Without the plan the organisation is on Free: add-ons that need a paid plan end with it instead of renewing.
    if (line.kind === "plan") {
      for (const addon of await addonsNeedingPlan(tx, lines.filter((l) => l.status === "active"))) await markPendingCancellation(tx, addon, addon.period_end, line.id);
    }
    const [sub] = await tx<SubscriptionRow[]>`select * from billing_subscriptions where id = ${line.subscription_id}`;
    return { line, sub: sub!, before };
  });
  await pushItems(deps, provider, sub, before);
  return (await findLine(deps.sql, actor.orgId, line.id))!;
}

export async function resumeLine(deps: BillingDeps, actor: Actor, lineId: string, now = new Date()): Promise<LineRow> {
  const provider = await requireProvider(deps);
  const { sub, before } = await withTx(deps.sql, async (tx) => {
    const line = await findLine(tx, actor.orgId, lineId);
    if (!line) throw notFound("Subscription line");
    if (line.status !== "pending_cancellation" || (line.cancel_at && line.cancel_at <= now)) {
      throw conflict(`Only a line pending cancellation can be resumed; this one is ${line.status}. Buy it again with POST /billing/checkout`, { status: line.status });
    }
    const lines = await listSubscriptionLines(tx, line.subscription_id);
    const before = billable(lines);
    // The plan's add-ons that were ending with it resume with it; ones the user cancelled alone stay cancelled.
    for (const l of [line, ...lines.filter((x) => x.cancelled_with === line.id && x.status === "pending_cancellation")]) {
      await updateLine(tx, l.id, { status: "active", cancel_at: null, cancelled_with: null });
      await cancelJobs(tx, ["period_end"], l.id);
    }
    const [sub] = await tx<SubscriptionRow[]>`select * from billing_subscriptions where id = ${line.subscription_id}`;
    return { sub: sub!, before };
  });
  await pushItems(deps, provider, sub, before);
  return (await findLine(deps.sql, actor.orgId, lineId))!;
}

export async function cancelOverlap(deps: BillingDeps, actor: Actor, overlapId: string, now = new Date()): Promise<{ line: LineRow; credit_cents: number }> {
  const provider = await requireProvider(deps);
  const overlap = await findOpenOverlap(deps.sql, actor.orgId, overlapId);
  if (!overlap) throw notFound("Overlap notice");
  const line = await findLine(deps.sql, actor.orgId, overlap.line_id);
  if (!line) throw notFound("Subscription line");
  const credit = -prorate(line.unit_price_cents * line.quantity, 0, { start: line.period_start, end: line.period_end }, now);
  const ended = line.status === "active" ? await cancelLine(deps, actor, line.id) : line;
  const [sub] = await deps.sql<SubscriptionRow[]>`select * from billing_subscriptions where id = ${line.subscription_id}`;
  if (credit > 0) await provider.credit(sub!.provider_subscription_id, credit, `Overlap with the ${overlap.plan_id} plan: unused ${line.product_id}`);
  await resolveOverlap(deps.sql, overlap.id, "cancelled", credit);
  return { line: ended, credit_cents: credit };
}

export async function dismissOverlap(deps: BillingDeps, actor: Actor, overlapId: string): Promise<void> {
  const overlap = await findOpenOverlap(deps.sql, actor.orgId, overlapId);
  if (!overlap) throw notFound("Overlap notice");
  await resolveOverlap(deps.sql, overlap.id, "dismissed", null);
}
