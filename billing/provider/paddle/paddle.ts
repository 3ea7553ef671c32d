import type { Cycle } from "../../../db/queries/billing.ts";
import { type BillingProvider, type ProrationMode, type ProviderItem, WebhookRejected } from "../types.ts";
import { type PaddleSubscription, type PaddleWebhook, priceIdOf, toEvent, toSubscription } from "./payloads.ts";
import { verifyPaddleSignature } from "./signature.ts";

export interface PaddleOptions {
  /** https://api.paddle.com, https://sandbox-api.paddle.com, or the local simulator. */
  apiUrl: string;
  apiKey: string;
  /** Webhook secrets; more than one while rotating. */
  webhookSecrets: string[];
  replayWindowSeconds?: number;
  fetch?: typeof fetch;
}

class PaddleError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** 4xx other than 429 will fail again; 429 and 5xx may be retried. */
    readonly permanent: boolean,
  ) {
    super(message);
  }
}

/** Paddle Billing (merchant of record): transactions, subscriptions with items, proration modes, adjustments. */
export function createPaddleProvider(opts: PaddleOptions): BillingProvider {
  const doFetch = opts.fetch ?? fetch;
  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await doFetch(`${opts.apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${opts.apiKey}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await res.text();
    if (!res.ok) throw new PaddleError(res.status, `Paddle ${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`, res.status < 500 && res.status !== 429);
    return (JSON.parse(text) as { data: T }).data;
  }
  const cycleOf = async (subscriptionId: string): Promise<Cycle> =>
    toSubscription(await call<PaddleSubscription>("GET", `/subscriptions/${subscriptionId}`)).cycle;
  const items = (list: ProviderItem[], cycle: Cycle) => list.map((i) => ({ price_id: priceIdOf(i, cycle), quantity: i.quantity }));

  return {
    name: "paddle",
    async createCheckout({ orgId, email, cycle, items: list }) {
      const txn = await call<{ id: string; checkout: { url: string } | null }>("POST", "/transactions", {
        items: items(list, cycle),
        custom_data: { org_id: orgId },
        customer: { email },
        collection_mode: "automatic",
      });
      if (!txn.checkout?.url) throw new PaddleError(502, "Paddle returned a transaction without a checkout URL", false);
      return { url: txn.checkout.url, transactionId: txn.id };
    },
    async updateItems(subscriptionId, list, mode: ProrationMode) {
      const cycle = await cycleOf(subscriptionId);
      return toSubscription(await call<PaddleSubscription>("PATCH", `/subscriptions/${subscriptionId}`, { items: items(list, cycle), proration_billing_mode: mode }));
    },
    async cancel(subscriptionId, effective) {
      if (effective === null) return toSubscription(await call<PaddleSubscription>("PATCH", `/subscriptions/${subscriptionId}`, { scheduled_change: null }));
      return toSubscription(await call<PaddleSubscription>("POST", `/subscriptions/${subscriptionId}/cancel`, { effective_from: effective }));
    },
    async credit(subscriptionId, amountCents, reason) {
      const txns = await call<{ id: string; items: { id?: string }[]; details?: { line_items?: { id: string }[] } }[]>(
        "GET",
        `/transactions?subscription_id=${encodeURIComponent(subscriptionId)}&status=completed&order_by=billed_at[DESC]&per_page=1`,
      );
      const txn = txns[0];
      const itemId = txn?.details?.line_items?.[0]?.id;
      if (!txn || !itemId) throw new PaddleError(409, `No completed transaction to credit on subscription ${subscriptionId}`, true);
      await call("POST", "/adjustments", { action: "credit", transaction_id: txn.id, reason, type: "partial", items: [{ item_id: itemId, type: "partial", amount: String(amountCents) }] });
    },
    async paymentUpdateUrl(subscriptionId) {
      try {
        return (await call<PaddleSubscription>("GET", `/subscriptions/${subscriptionId}`)).management_urls?.update_payment_method ?? null;
      } catch (err) {
        if (err instanceof PaddleError && err.permanent) return null;
        throw err;
      }
    },
    async openInvoiceUrl(subscriptionId) {
      try {
        const txns = await call<{ checkout?: { url: string | null } | null }[]>(
          "GET",
          `/transactions?subscription_id=${encodeURIComponent(subscriptionId)}&status=past_due&order_by=billed_at[DESC]&per_page=1`,
        );
        return txns[0]?.checkout?.url ?? null;
      } catch (err) {
        if (err instanceof PaddleError && err.permanent) return null;
        throw err;
      }
    },
    async invoiceUrl(transactionId) {
      try {
        return (await call<{ url: string }>("GET", `/transactions/${transactionId}/invoice`)).url;
      } catch (err) {
        if (err instanceof PaddleError && err.permanent) return null;
        throw err;
      }
    },
    parseWebhook(rawBody, headers, now) {
      verifyPaddleSignature(rawBody, headers.get("paddle-signature"), opts.webhookSecrets, now, opts.replayWindowSeconds);
      let payload: PaddleWebhook;
      try {
        payload = JSON.parse(rawBody) as PaddleWebhook;
      } catch {
        throw new WebhookRejected("body is not JSON");
      }
      if (!payload?.event_id || !payload.event_type || !payload.occurred_at || !payload.data) throw new WebhookRejected("not a Paddle notification");
      return toEvent(payload);
    },
  };
}
