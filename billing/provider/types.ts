import type { Cycle } from "../../db/queries/billing.ts";

/** One priced item of a subscription: a plan or an add-on, in our product ids. */
export interface ProviderItem {
  productId: string;
  quantity: number;
}

export type ProviderSubscriptionStatus = "active" | "past_due" | "canceled" | "paused" | "trialing";

/** The provider's whole subscription as of `updatedAt` (newer snapshots win over older ones). */
export interface ProviderSubscription {
  id: string;
  customerId: string | null;
  orgId: string;
  status: ProviderSubscriptionStatus;
  cycle: Cycle;
  periodStart: Date;
  periodEnd: Date;
  items: (ProviderItem & { unitPriceCents: number })[];
  /** Set when the whole subscription is scheduled to cancel at the period end. */
  cancelAt: Date | null;
  updatedAt: Date;
}

export type ProviderEvent =
  | { id: string; type: string; kind: "subscription"; occurredAt: Date; subscription: ProviderSubscription }
  | { id: string; type: string; kind: "transaction"; occurredAt: Date; transaction: { id: string; subscriptionId: string | null; status: string } }
  | { id: string; type: string; kind: "other"; occurredAt: Date };

/** How a change of items is billed, in the provider's terms. */
export type ProrationMode = "prorated_immediately" | "prorated_next_billing_period" | "do_not_bill";

/** Thrown for a webhook that must be refused (bad or missing signature, outside the replay window). */
export class WebhookRejected extends Error {}

/**
 * The payment provider (merchant of record). Every call is idempotent on the provider side or
 * safe to repeat; state changes come back as webhooks and, where the API returns one, as a snapshot.
 */
export interface BillingProvider {
  readonly name: string;
  /** A hosted checkout for a new subscription: one transaction with a line item per product. */
  createCheckout(input: { orgId: string; email: string; cycle: Cycle; items: ProviderItem[] }): Promise<{ url: string; transactionId: string }>;
  /** Replaces the subscription's items (upgrade, downgrade, add-ons added or removed). */
  updateItems(subscriptionId: string, items: ProviderItem[], mode: ProrationMode): Promise<ProviderSubscription>;
  /** Cancels now, or schedules cancellation at the period end (`null` removes a scheduled one). */
  cancel(subscriptionId: string, effective: "immediately" | "next_billing_period" | null): Promise<ProviderSubscription>;
  /** Credits an amount to the next invoice (overlap cancellations). */
  credit(subscriptionId: string, amountCents: number, reason: string): Promise<void>;
  /**
   * The provider's page where the customer updates the payment method and pays what is due (a failed
   * renewal during grace), or null when it has none for this subscription (cancelled).
   */
  paymentUpdateUrl(subscriptionId: string): Promise<string | null>;
  /**
   * Hosted page of the subscription's open invoice (its latest unpaid renewal), where the customer sees the amount
   * due and pays it with the card on file; null when nothing is unpaid or the subscription is cancelled.
   */
  openInvoiceUrl(subscriptionId: string): Promise<string | null>;
  /** Hosted invoice of a transaction, or null when the provider has none yet. */
  invoiceUrl(transactionId: string): Promise<string | null>;
  /** Verifies and parses a webhook; throws WebhookRejected when it must be refused. */
  parseWebhook(rawBody: string, headers: Headers, now: Date): ProviderEvent;
}
