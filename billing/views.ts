import type { Sql } from "../db/client.ts";
import type { Logger } from "../core/log.ts";
import { billingEnabled, type LineRow, listAddons, listLines } from "../db/queries/billing.ts";
import { listOpenOverlaps } from "../db/queries/billing-jobs.ts";
import { findOrgPlan, listPlans } from "../db/queries/plans.ts";
import type { BillingProvider } from "./provider/types.ts";
import { selfHostedPlan } from "./self-hosted.ts";

/** Plans and add-ons on sale; with BILLING=off only the self-hosted plan, and nothing to buy. */
export async function catalogue(sql: Sql) {
  const enabled = await billingEnabled(sql);
  const plans = enabled ? (await listPlans(sql)).filter((p) => p.public) : [await selfHostedPlan(sql)];
  const addons = enabled ? await listAddons(sql) : [];
  return {
    currency: "USD",
    plans: plans.map((p) => ({
      id: p.id,
      name: p.name,
      monthly_price_cents: p.monthly_price_cents,
      annual_price_cents: p.annual_price_cents,
      annual_monthly_equivalent_cents: Math.round(p.annual_price_cents / 12),
      grace_days: p.grace_days,
      quotas: p.quotas,
    })),
    addons: addons.map((a) => ({ id: a.id, name: a.name, monthly_price_cents: a.price_cents, annual_price_cents: a.annual_price_cents, minimum_plan: a.min_plan_id, grants: a.grants })),
  };
}

function lineView(l: LineRow, names: Map<string, string>, invoiceUrl: string | null) {
  return {
    id: l.id,
    kind: l.kind,
    product_id: l.product_id,
    product_name: names.get(l.product_id) ?? l.product_id,
    quantity: l.quantity,
    unit_price_cents: l.unit_price_cents,
    price_cents: l.unit_price_cents * l.quantity,
    currency: "USD",
    cycle: l.cycle,
    status: l.status,
    period_start: l.period_start.toISOString(),
    period_end: l.period_end.toISOString(),
    next_renewal_at: l.status === "active" || l.status === "grace_period" ? l.period_end.toISOString() : null,
    cancel_at: l.cancel_at?.toISOString() ?? null,
    grace_ends_at: l.grace_ends_at?.toISOString() ?? null,
    invoice_url: invoiceUrl,
  };
}

async function productNames(sql: Sql): Promise<Map<string, string>> {
  return new Map([...(await listPlans(sql)).map((p) => [p.id, p.name] as const), ...(await listAddons(sql)).map((a) => [a.id, a.name] as const)]);
}

/** Hosted invoice of each subscription's latest transaction; a provider outage only hides the links. */
async function invoiceLinks(sql: Sql, orgId: string, provider: BillingProvider | null, log: Logger, subscriptionId?: string): Promise<Map<string, string | null>> {
  const subs = await sql<{ id: string; last_transaction_id: string | null }[]>`
    select id, last_transaction_id from billing_subscriptions where org_id = ${orgId} ${subscriptionId ? sql`and id = ${subscriptionId}` : sql``}`;
  const out = new Map<string, string | null>();
  await Promise.all(
    subs.map(async (s) => {
      if (!provider || !s.last_transaction_id) return out.set(s.id, null);
      const url = await provider.invoiceUrl(s.last_transaction_id).catch((err) => {
        log.warn({ op: "billing.invoice", orgId, err }, "invoice link unavailable");
        return null;
      });
      out.set(s.id, url);
    }),
  );
  return out;
}

/**
 * The grace banner's two ways to pay: the provider's payment-method page, and the failed renewal's open invoice.
 * A provider outage only hides the link that did not answer.
 */
async function paymentLinks(sql: Sql, orgId: string, subscriptionId: string, provider: BillingProvider | null, log: Logger) {
  const [sub] = await sql<{ provider_subscription_id: string }[]>`select provider_subscription_id from billing_subscriptions where org_id = ${orgId} and id = ${subscriptionId}`;
  if (!provider || !sub) return { payment_url: null, invoice_url: null };
  const unavailable = (what: string) => (err: unknown) => {
    log.warn({ op: "billing.payment_link", orgId, err }, `${what} link unavailable`);
    return null;
  };
  const [payment_url, invoice_url] = await Promise.all([
    provider.paymentUpdateUrl(sub.provider_subscription_id).catch(unavailable("payment-update")),
    provider.openInvoiceUrl(sub.provider_subscription_id).catch(unavailable("open-invoice")),
  ]);
  return { payment_url, invoice_url };
}

/** One line as every answer shows it (cancel, resume, overlap cancel): with its subscription's hosted invoice, as in the subscription view. */
export async function singleLineView(sql: Sql, orgId: string, line: LineRow, provider: BillingProvider | null, log: Logger) {
  const invoices = await invoiceLinks(sql, orgId, provider, log, line.subscription_id);
  return lineView(line, await productNames(sql), invoices.get(line.subscription_id) ?? null);
}

/** Subscription state for the web app: overall status, the banner, the plan row and every line. */
export async function subscriptionView(sql: Sql, orgId: string, provider: BillingProvider | null, log: Logger) {
  if (!(await billingEnabled(sql))) {
    // Self-hosted: the one unlimited plan is always in force and nothing is subscribed to.
    const plan = await selfHostedPlan(sql);
    return { billing_enabled: false, status: "active" as const, banner: null, plan: { id: plan.id, name: plan.name, included_quotas: plan.quotas, line_id: null }, lines: [] };
  }
  const plan = (await findOrgPlan(sql, orgId))!;
  const lines = await listLines(sql, orgId);
  const names = await productNames(sql);
  const invoices = await invoiceLinks(sql, orgId, provider, log);
  const live = lines.filter((l) => ["active", "grace_period", "pending_cancellation"].includes(l.status));
  const grace = live.filter((l) => l.status === "grace_period");
  const planLine = live.find((l) => l.kind === "plan") ?? lines.filter((l) => l.kind === "plan").at(-1);
  // Never subscribed: the Free plan is in force, which is "active" (the spec has no "none").
  const status: LineRow["status"] = grace.length > 0 ? "grace_period" : planLine?.status ?? "active";
  const first = [...grace].sort((a, b) => a.grace_ends_at!.getTime() - b.grace_ends_at!.getTime())[0];
  return {
    billing_enabled: true,
    status,
    banner: first ? { kind: "payment_failed" as const, grace_ends_at: first.grace_ends_at!.toISOString(), ...(await paymentLinks(sql, orgId, first.subscription_id, provider, log)) } : null,
    plan: { id: plan.id, name: plan.name, included_quotas: plan.quotas, line_id: live.find((l) => l.kind === "plan")?.id ?? null },
    lines: lines.filter((l) => l.status !== "cancelled" || l.kind === "plan").slice(-50).map((l) => lineView(l, names, invoices.get(l.subscription_id) ?? null)),
  };
}

/** Live add-on lines; none with BILLING=off, where add-ons count for nothing. */
export async function activeAddonLines(sql: Sql, orgId: string, provider: BillingProvider | null, log: Logger) {
  if (!(await billingEnabled(sql))) return [];
  const names = await productNames(sql);
  const invoices = await invoiceLinks(sql, orgId, provider, log);
  const lines = await listLines(sql, orgId, ["active", "grace_period", "pending_cancellation"]);
  return lines.filter((l) => l.kind === "addon").map((l) => lineView(l, names, invoices.get(l.subscription_id) ?? null));
}

export async function openOverlaps(sql: Sql, orgId: string) {
  if (!(await billingEnabled(sql))) return [];
  const names = await productNames(sql);
  return (await listOpenOverlaps(sql, orgId)).map((o) => ({
    id: o.id,
    line_id: o.line_id,
    addon_id: o.product_id,
    addon_name: names.get(o.product_id) ?? o.product_id,
    plan_id: o.plan_id,
    overlapping_quotas: o.quotas,
    created_at: o.created_at.toISOString(),
  }));
}
