import { periodEnd } from "../proration.ts";
import { signPaddle } from "../provider/paddle/signature.ts";
import { checkoutPage, invoicePage, paymentUpdatePage, renewalInvoicePage } from "./pages.ts";
import { type SimItem, SimState, type SimSubscription, type SimTransaction, simId } from "./state.ts";

export interface SimulatorOptions {
  port?: number;
  hostname?: string;
  /** Where signed webhooks go, e.g. http://127.0.0.1:3000/api/v1/billing/webhooks/paddle. */
  webhookUrl: string;
  secret: string;
  /** Price id (`pri_<product>_<cycle>`) → cents. */
  prices: Record<string, number>;
  apiKey?: string;
}

interface SentEvent {
  event_id: string;
  event_type: string;
  occurred_at: string;
  data: unknown;
  delivered: number[];
}

export interface BillingSimulator {
  url: string;
  state: SimState;
  events: SentEvent[];
  /** Points webhooks elsewhere (the API may start after the simulator). */
  setWebhookUrl(url: string): void;
  /** Where the hosted checkout page sends the browser after Pay (like Paddle's success URL); `?checkout=<txn>` is added. */
  setReturnUrl(url: string | null): void;
  /** Waits until every queued webhook was delivered (or failed). */
  drain(): Promise<void>;
  stop(): Promise<void>;
}

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
const err = (status: number, code: string, detail: string) => json({ error: { type: "request_error", code, detail } }, status);

/**
 * A local stand-in for Paddle Billing: the API subset the adapter uses, a hosted-checkout page,
 * signed webhooks to the API, and admin endpoints (`/sim/*`) to move time and fail payments.
 */
export function startBillingSimulator(opts: SimulatorOptions): BillingSimulator {
  const state = new SimState(opts.prices);
  let webhookUrl = opts.webhookUrl;
  let returnUrl: string | null = null;
  const events: SentEvent[] = [];
  let queue: Promise<void> = Promise.resolve();
  let hold = false;
  const held: SentEvent[] = [];

  async function deliver(e: SentEvent): Promise<number> {
    const body = JSON.stringify({ event_id: e.event_id, event_type: e.event_type, occurred_at: e.occurred_at, notification_id: `ntf_${e.event_id}`, data: e.data });
    try {
      const res = await fetch(webhookUrl, {
        method: "POST",
        headers: { "content-type": "application/json", "paddle-signature": signPaddle(body, opts.secret, Math.floor(Date.now() / 1000)) },
        body,
      });
      await res.arrayBuffer();
      e.delivered.push(res.status);
      return res.status;
    } catch {
      e.delivered.push(0);
      return 0;
    }
  }
  function emit(type: string, data: unknown): SentEvent {
    const e: SentEvent = { event_id: simId("evt"), event_type: type, occurred_at: state.stamp().toISOString(), data, delivered: [] };
    events.push(e);
    if (hold) held.push(e);
    else queue = queue.then(() => deliver(e).then(() => {}));
    return e;
  }
  const subEvent = (type: string, s: SimSubscription) => emit(type, state.toPaddle(s));
  const txnData = (t: SimTransaction) => ({
    id: t.id,
    status: t.status,
    subscription_id: t.subscriptionId,
    origin: t.origin,
    custom_data: { org_id: t.orgId },
    details: { totals: { grand_total: String(t.totalCents), currency_code: "USD" }, line_items: t.items.map((i, n) => ({ id: `txnitm_${t.id}_${n}`, price_id: i.priceId, quantity: i.quantity })) },
    billed_at: t.createdAt.toISOString(),
    // Paddle's checkout link of a past_due transaction is where the customer pays it: here, its hosted invoice.
    checkout: t.status === "past_due" && state.subscriptions.get(t.subscriptionId ?? "")?.status !== "canceled" ? { url: `${state.baseUrl}/invoices/${t.id}` } : null,
  });

  function renew(s: SimSubscription) {
    const now = state.now();
    while (s.status !== "canceled" && s.periodEnd <= now) {
      if (s.cancelAt && s.cancelAt <= now) {
        s.status = "canceled";
        s.cancelAt = null;
        s.updatedAt = state.stamp();
        subEvent("subscription.canceled", s);
        return;
      }
      s.periodStart = s.periodEnd;
      s.periodEnd = periodEnd(s.periodStart, s.cycle);
      const due = Math.max(0, state.total(s.items) - s.creditCents);
      s.creditCents = Math.max(0, s.creditCents - state.total(s.items));
      // A renewal the credit covers charges nothing, so a card that would fail fails the next charge instead.
      const fail = s.failNext && due > 0;
      if (due > 0) s.failNext = false;
      const txn = state.addTransaction({ subscriptionId: s.id, orgId: s.orgId, status: fail ? "past_due" : "completed", origin: "subscription_recurring", items: s.items, cycle: s.cycle, totalCents: due, email: "", period: { start: s.periodStart, end: s.periodEnd } });
      s.status = fail ? "past_due" : "active";
      s.updatedAt = state.stamp();
      if (fail) {
        emit("transaction.payment_failed", txnData(txn));
        subEvent("subscription.past_due", s);
        return;
      }
      emit("transaction.completed", txnData(txn));
      subEvent("subscription.updated", s);
    }
  }

  /** Pays the failed renewal (Paddle collects it once the payment method works): the subscription is active again. */
  function payDue(s: SimSubscription, t = state.unpaid(s)): SimTransaction | undefined {
    if (t) t.status = "completed";
    if (!state.unpaid(s)) s.status = "active";
    s.updatedAt = state.stamp();
    if (t) emit("transaction.completed", txnData(t));
    subEvent("subscription.updated", s);
    return t;
  }
  /** A browser's form post goes back to the app once the webhooks landed, so it shows the new state. */
  async function backToApp(req: Request, txnId: string): Promise<Response | null> {
    if (!returnUrl || !req.headers.get("content-type")?.startsWith("application/x-www-form-urlencoded")) return null;
    await queue;
    const back = new URL(returnUrl);
    back.searchParams.set("checkout", txnId);
    return new Response(null, { status: 303, headers: { location: back.toString() } });
  }

  async function body<T>(req: Request): Promise<T> {
    const text = await req.text();
    return (text ? JSON.parse(text) : {}) as T;
  }
  const authorised = (req: Request) => !opts.apiKey || req.headers.get("authorization") === `Bearer ${opts.apiKey}`;

  async function handle(req: Request, base: string): Promise<Response> {
    const url = new URL(req.url);
    const p = url.pathname;
    const m = (re: RegExp) => re.exec(p);
    let r: RegExpExecArray | null;
    if (p === "/favicon.ico") return new Response(null, { status: 204 });
    // Hosted checkout page and its "pay" button.
    if ((r = m(/^\/checkout\/([^/]+)$/)) && req.method === "GET") {
      const t = state.transactions.get(r[1]!);
      if (!t) return err(404, "not_found", "no such checkout");
      return checkoutPage(t, state);
    }
    if ((r = m(/^\/invoices\/([^/]+)$/)) && req.method === "GET") {
      const t = state.transactions.get(r[1]!);
      const s = t?.subscriptionId ? state.subscriptions.get(t.subscriptionId) : undefined;
      if (!t || (t.status !== "completed" && t.status !== "past_due")) return err(404, "not_found", "no such invoice");
      return t.period && s ? renewalInvoicePage(t, t.period, s, state) : invoicePage(t, state);
    }
    // An unpaid renewal's Pay button: charges the card on file once; the webhooks are those of any payment.
    if ((r = m(/^\/invoices\/([^/]+)\/pay$/)) && req.method === "POST") {
      await req.arrayBuffer();
      const t = state.transactions.get(r[1]!);
      const s = t?.subscriptionId ? state.subscriptions.get(t.subscriptionId) : undefined;
      if (!t || !s || !t.period) return err(404, "not_found", "no such invoice");
      if (t.status === "completed") return err(409, "invoice_paid", "this invoice is already paid");
      if (s.status === "canceled") return err(409, "subscription_canceled", "the subscription is cancelled: this invoice can no longer be paid");
      if (s.failNext) {
        s.failNext = false;
        emit("transaction.payment_failed", txnData(t));
        return err(402, "payment_declined", "the card on file was declined; update the payment method");
      }
      payDue(s, t);
      return (await backToApp(req, t.id)) ?? json({ data: { transaction_id: t.id, subscription_id: s.id } });
    }
    if ((r = m(/^\/(?:checkout|sim\/checkouts)\/([^/]+)\/(?:pay|complete)$/)) && req.method === "POST") {
      const t = state.transactions.get(r[1]!);
      if (!t || t.status !== "ready") return err(409, "transaction_not_ready", "checkout already completed or unknown");
      const s = state.completeCheckout(t);
      subEvent("subscription.created", s);
      emit("transaction.completed", txnData(t));
      return (await backToApp(req, t.id)) ?? json({ data: { transaction_id: t.id, subscription_id: s.id } });
    }
    // The customer's payment-method page (management_urls.update_payment_method): a new card pays what is due.
    if ((r = m(/^\/subscriptions\/([^/]+)\/update-payment-method$/)) && (req.method === "GET" || req.method === "POST")) {
      const s = state.subscriptions.get(r[1]!);
      if (!s || s.status === "canceled") return err(404, "not_found", "no such subscription");
      if (req.method === "GET") return paymentUpdatePage(s, s.status === "past_due" ? state.unpaid(s) : undefined, state);
      await req.arrayBuffer();
      if (s.status !== "past_due") return json({ data: { subscription_id: s.id, paid_transaction_id: null } });
      const t = payDue(s);
      return (t && (await backToApp(req, t.id))) ?? json({ data: { subscription_id: s.id, paid_transaction_id: t?.id ?? null } });
    }
    if (p.startsWith("/sim/")) return admin(req, p);
    if (!authorised(req)) return err(403, "forbidden", "bad API key");
    if (p === "/transactions" && req.method === "POST") {
      const b = await body<{ items: { price_id: string; quantity: number }[]; custom_data: { org_id: string }; customer?: { email?: string } }>(req);
      const items: SimItem[] = b.items.map((i) => ({ priceId: i.price_id, quantity: i.quantity }));
      const cycles = new Set(items.map((i) => (i.priceId.endsWith("_annual") ? "annual" : "monthly")));
      if (cycles.size !== 1) return err(400, "invalid_field", "all items must share one billing cycle");
      try {
        items.forEach((i) => state.price(i.priceId));
      } catch (e) {
        return err(400, "invalid_field", (e as Error).message);
      }
      const t = state.addTransaction({ subscriptionId: null, orgId: b.custom_data.org_id, status: "ready", origin: "web", items, cycle: [...cycles][0] as "monthly", totalCents: 0, email: b.customer?.email ?? "" });
      return json({ data: { id: t.id, status: t.status, checkout: { url: `${base}/checkout/${t.id}` } } }, 201);
    }
    if (p === "/transactions" && req.method === "GET") {
      const subId = url.searchParams.get("subscription_id");
      const statuses = (url.searchParams.get("status") ?? "completed").split(",");
      const list = [...state.transactions.values()].filter((t) => t.subscriptionId === subId && statuses.includes(t.status)).reverse();
      return json({ data: list.map(txnData) });
    }
    if ((r = m(/^\/transactions\/([^/]+)\/invoice$/))) {
      const t = state.transactions.get(r[1]!);
      if (!t || t.status !== "completed") return err(404, "not_found", "no invoice");
      return json({ data: { url: `${base}/invoices/${t.id}` } });
    }
    if ((r = m(/^\/subscriptions\/([^/]+)(\/cancel)?$/))) {
      const s = state.subscriptions.get(r[1]!);
      if (!s) return err(404, "not_found", "no such subscription");
      if (req.method === "GET" && !r[2]) return json({ data: state.toPaddle(s) });
      if (s.status === "canceled") return err(400, "subscription_locked_canceled", "subscription is canceled");
      if (req.method === "POST" && r[2]) {
        const b = await body<{ effective_from: "immediately" | "next_billing_period" }>(req);
        if (b.effective_from === "immediately") {
          s.status = "canceled";
          s.cancelAt = null;
          s.updatedAt = state.stamp();
          subEvent("subscription.canceled", s);
        } else {
          s.cancelAt = s.periodEnd;
          s.updatedAt = state.stamp();
          subEvent("subscription.updated", s);
        }
        return json({ data: state.toPaddle(s) });
      }
      if (req.method === "PATCH") {
        const b = await body<{ items?: { price_id: string; quantity: number }[]; proration_billing_mode?: string; scheduled_change?: null }>(req);
        if (b.scheduled_change === null) s.cancelAt = null;
        if (b.items) {
          const items = b.items.map((i) => ({ priceId: i.price_id, quantity: i.quantity }));
          try {
            items.forEach((i) => state.price(i.priceId));
          } catch (e) {
            return err(400, "invalid_field", (e as Error).message);
          }
          const before = s.items;
          const charge = state.changeItems(s, items, b.proration_billing_mode ?? "prorated_immediately");
          if (charge > 0) {
            const changed = items.filter((i) => !before.some((x) => x.priceId === i.priceId && x.quantity === i.quantity));
            const t = state.addTransaction({ subscriptionId: s.id, orgId: s.orgId, status: "completed", origin: "subscription_update", items: changed, cycle: s.cycle, totalCents: charge, email: "" });
            emit("transaction.completed", txnData(t));
          }
        }
        s.updatedAt = state.stamp();
        subEvent("subscription.updated", s);
        return json({ data: state.toPaddle(s) });
      }
    }
    if (p === "/adjustments" && req.method === "POST") {
      const b = await body<{ transaction_id: string; reason: string; items: { amount: string }[] }>(req);
      const t = state.transactions.get(b.transaction_id);
      if (!t || !t.subscriptionId) return err(404, "not_found", "no such transaction");
      const amount = b.items.reduce((n, i) => n + Number(i.amount), 0);
      state.adjustments.push({ subscriptionId: t.subscriptionId, transactionId: t.id, amountCents: amount, reason: b.reason });
      state.subscriptions.get(t.subscriptionId)!.creditCents += amount;
      return json({ data: { id: simId("adj"), action: "credit", status: "approved" } }, 201);
    }
    return err(404, "not_found", `no route ${req.method} ${p}`);
  }

  async function admin(req: Request, p: string): Promise<Response> {
    let r: RegExpExecArray | null;
    if (p === "/sim/state") return json({ now: state.now().toISOString(), subscriptions: [...state.subscriptions.values()], transactions: [...state.transactions.values()], adjustments: state.adjustments });
    if (p === "/sim/events") return json({ data: events });
    if (p === "/sim/advance" && req.method === "POST") {
      const b = await body<{ seconds?: number; days?: number }>(req);
      state.offsetMs += ((b.seconds ?? 0) + (b.days ?? 0) * 86_400) * 1000;
      for (const s of state.subscriptions.values()) renew(s);
      return json({ now: state.now().toISOString() });
    }
    if (p === "/sim/fail-next" && req.method === "POST") {
      const b = await body<{ subscription_id?: string }>(req);
      for (const s of state.subscriptions.values()) if (!b.subscription_id || s.id === b.subscription_id) s.failNext = true;
      return json({ ok: true });
    }
    if ((r = /^\/sim\/subscriptions\/([^/]+)\/pay$/.exec(p)) && req.method === "POST") {
      const s = state.subscriptions.get(r[1]!);
      if (!s || s.status !== "past_due") return err(409, "not_past_due", "nothing to pay");
      payDue(s);
      return json({ data: state.toPaddle(s) });
    }
    if (p === "/sim/webhooks/hold" && req.method === "POST") {
      hold = true;
      return json({ ok: true });
    }
    if (p === "/sim/webhooks/release" && req.method === "POST") {
      const b = await body<{ order?: "sent" | "reverse" }>(req);
      hold = false;
      const list = held.splice(0);
      if (b.order === "reverse") list.reverse();
      for (const e of list) queue = queue.then(() => deliver(e).then(() => {}));
      await queue;
      return json({ delivered: list.map((e) => ({ event_id: e.event_id, status: e.delivered.at(-1) })) });
    }
    if ((r = /^\/sim\/events\/([^/]+)\/redeliver$/.exec(p)) && req.method === "POST") {
      const e = events.find((x) => x.event_id === r![1]);
      if (!e) return err(404, "not_found", "no such event");
      return json({ status: await deliver(e) });
    }
    if (p === "/sim/drain" && req.method === "POST") {
      await queue;
      return json({ ok: true });
    }
    return err(404, "not_found", `no admin route ${p}`);
  }

  const server: ReturnType<typeof Bun.serve> = Bun.serve({
    hostname: opts.hostname ?? "127.0.0.1",
    port: opts.port ?? 0,
    fetch: async (req): Promise<Response> => {
      try {
        return await handle(req, `http://${opts.hostname ?? "127.0.0.1"}:${server.port}`);
      } catch (e) {
        return err(500, "internal_error", (e as Error).message);
      }
    },
  });
  state.baseUrl = `http://${opts.hostname ?? "127.0.0.1"}:${server.port}`;
  return {
    url: state.baseUrl,
    state,
    events,
    setWebhookUrl(url) {
      webhookUrl = url;
    },
    setReturnUrl(url) {
      returnUrl = url;
    },
    drain: async () => {
      await queue;
    },
    async stop() {
      await queue.catch(() => {});
      await server.stop(true);
    },
  };
}
