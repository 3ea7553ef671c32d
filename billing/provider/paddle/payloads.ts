import type { Cycle } from "../../../db/queries/billing.ts";
import type { ProviderEvent, ProviderItem, ProviderSubscription, ProviderSubscriptionStatus } from "../types.ts";

/** The subset of Paddle Billing's subscription entity we read. */
export interface PaddleSubscription {
  id: string;
  status: ProviderSubscriptionStatus;
  customer_id: string | null;
  custom_data: { org_id?: string } | null;
  billing_cycle: { interval: "month" | "year"; frequency: number };
  current_billing_period: { starts_at: string; ends_at: string } | null;
  scheduled_change: { action: "cancel" | "pause" | "resume"; effective_at: string } | null;
  items: { quantity: number; status?: string; price: { id: string; product_id: string; unit_price: { amount: string; currency_code: string } } }[];
  updated_at: string;
  /** Customer-facing pages; `update_payment_method` is null for a cancelled subscription. */
  management_urls?: { update_payment_method: string | null; cancel?: string } | null;
}

export interface PaddleWebhook {
  event_id: string;
  event_type: string;
  occurred_at: string;
  data: Record<string, unknown>;
}

/** Price ids name our product and cycle: `pri_<product>_<monthly|annual>` (see docs/billing.md). */
export const priceIdOf = (item: ProviderItem, cycle: Cycle) => `pri_${item.productId}_${cycle}`;

export function parsePriceId(id: string): { productId: string; cycle: Cycle } | null {
  const m = /^pri_([a-z0-9_]+)_(monthly|annual)$/.exec(id);
  return m ? { productId: m[1]!, cycle: m[2] as Cycle } : null;
}

export function toSubscription(s: PaddleSubscription): ProviderSubscription {
  const cycle: Cycle = s.billing_cycle.interval === "year" ? "annual" : "monthly";
  const items = s.items
    .filter((i) => i.status !== "inactive")
    .map((i) => ({ productId: parsePriceId(i.price.id)?.productId ?? i.price.product_id, quantity: i.quantity, unitPriceCents: Number(i.price.unit_price.amount) }));
  return {
    id: s.id,
    customerId: s.customer_id,
    orgId: s.custom_data?.org_id ?? "",
    status: s.status,
    cycle,
    periodStart: new Date(s.current_billing_period?.starts_at ?? s.updated_at),
    periodEnd: new Date(s.current_billing_period?.ends_at ?? s.updated_at),
    items,
    cancelAt: s.scheduled_change?.action === "cancel" ? new Date(s.scheduled_change.effective_at) : null,
    updatedAt: new Date(s.updated_at),
  };
}

export function toEvent(w: PaddleWebhook): ProviderEvent {
  const base = { id: w.event_id, type: w.event_type, occurredAt: new Date(w.occurred_at) };
  if (w.event_type.startsWith("subscription.")) return { ...base, kind: "subscription", subscription: toSubscription(w.data as unknown as PaddleSubscription) };
  if (w.event_type.startsWith("transaction.")) {
    const d = w.data as { id: string; subscription_id?: string | null; status: string };
    return { ...base, kind: "transaction", transaction: { id: d.id, subscriptionId: d.subscription_id ?? null, status: d.status } };
  }
  return { ...base, kind: "other" };
}
