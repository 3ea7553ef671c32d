import { periodEnd, prorate } from "../proration.ts";
import type { PaddleSubscription } from "../provider/paddle/payloads.ts";
import { parsePriceId } from "../provider/paddle/payloads.ts";

export interface SimItem {
  priceId: string;
  quantity: number;
}

export interface SimSubscription {
  id: string;
  customerId: string;
  orgId: string;
  status: "active" | "past_due" | "canceled";
  cycle: "monthly" | "annual";
  periodStart: Date;
  periodEnd: Date;
  items: SimItem[];
  cancelAt: Date | null;
  updatedAt: Date;
  failNext: boolean;
  creditCents: number;
}

export interface SimTransaction {
  id: string;
  subscriptionId: string | null;
  orgId: string;
  status: "ready" | "completed" | "past_due";
  origin: "web" | "subscription_recurring" | "subscription_update";
  items: SimItem[];
  cycle: "monthly" | "annual";
  /** Amount charged (positive) for this transaction, in cents. */
  totalCents: number;
  email: string;
  createdAt: Date;
  /** The billing period a renewal pays for. */
  period?: { start: Date; end: Date };
}

let seq = 0;
export const simId = (prefix: string) => `${prefix}_sim${Date.now().toString(36)}${(seq++).toString(36).padStart(4, "0")}`;

/** The simulated provider's books: a clock that only moves forward, subscriptions, transactions, credits. */
export class SimState {
  offsetMs = 0;
  private last = 0;
  subscriptions = new Map<string, SimSubscription>();
  transactions = new Map<string, SimTransaction>();
  adjustments: { subscriptionId: string; transactionId: string; amountCents: number; reason: string }[] = [];
  /** Where the simulator listens, for the customer-facing links it hands out. */
  baseUrl = "";

  constructor(readonly prices: Record<string, number>) {}

  /** Simulated now, strictly increasing so snapshots are totally ordered. */
  stamp(): Date {
    const t = Math.max(Date.now() + this.offsetMs, this.last + 1);
    this.last = t;
    return new Date(t);
  }

  now(): Date {
    return new Date(Math.max(Date.now() + this.offsetMs, this.last));
  }

  price(priceId: string): number {
    const cents = this.prices[priceId];
    if (cents === undefined) throw new Error(`unknown price ${priceId}`);
    return cents;
  }

  total(items: SimItem[]): number {
    return items.reduce((sum, i) => sum + this.price(i.priceId) * i.quantity, 0);
  }

  toPaddle(s: SimSubscription): PaddleSubscription {
    return {
      id: s.id,
      status: s.status,
      customer_id: s.customerId,
      custom_data: { org_id: s.orgId },
      billing_cycle: { interval: s.cycle === "annual" ? "year" : "month", frequency: 1 },
      current_billing_period: { starts_at: s.periodStart.toISOString(), ends_at: s.periodEnd.toISOString() },
      scheduled_change: s.cancelAt ? { action: "cancel", effective_at: s.cancelAt.toISOString() } : null,
      items: s.items.map((i) => ({
        quantity: i.quantity,
        status: "active",
        price: { id: i.priceId, product_id: `pro_${parsePriceId(i.priceId)?.productId ?? i.priceId}`, unit_price: { amount: String(this.price(i.priceId)), currency_code: "USD" } },
      })),
      updated_at: s.updatedAt.toISOString(),
      management_urls: { update_payment_method: s.status === "canceled" ? null : `${this.baseUrl}/subscriptions/${s.id}/update-payment-method` },
    };
  }

  /** The renewal that failed and is still unpaid, if any. */
  unpaid(s: SimSubscription): SimTransaction | undefined {
    return [...this.transactions.values()].reverse().find((t) => t.subscriptionId === s.id && t.status === "past_due");
  }

  /** Completes a checkout: the subscription starts now with one period paid. */
  completeCheckout(txn: SimTransaction): SimSubscription {
    const start = this.stamp();
    const sub: SimSubscription = {
      id: simId("sub"),
      customerId: `ctm_${txn.orgId}`,
      orgId: txn.orgId,
      status: "active",
      cycle: txn.cycle,
      periodStart: start,
      periodEnd: periodEnd(start, txn.cycle),
      items: txn.items,
      cancelAt: null,
      updatedAt: start,
      failNext: false,
      creditCents: 0,
    };
    this.subscriptions.set(sub.id, sub);
    txn.status = "completed";
    txn.subscriptionId = sub.id;
    txn.totalCents = this.total(txn.items);
    return sub;
  }

  /** Replaces items; returns the prorated amount (positive charged now, negative credited). */
  changeItems(sub: SimSubscription, items: SimItem[], mode: string): number {
    const amount = prorate(this.total(sub.items), this.total(items), { start: sub.periodStart, end: sub.periodEnd }, this.now());
    sub.items = items;
    sub.updatedAt = this.stamp();
    if (mode === "prorated_next_billing_period" && amount < 0) sub.creditCents += -amount;
    return mode === "prorated_immediately" ? amount : 0;
  }

  addTransaction(t: Omit<SimTransaction, "id" | "createdAt">): SimTransaction {
    const txn: SimTransaction = { ...t, id: simId("txn"), createdAt: this.now() };
    this.transactions.set(txn.id, txn);
    return txn;
  }
}
