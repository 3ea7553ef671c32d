import type { SimState, SimSubscription, SimTransaction } from "./state.ts";

/** The simulator's hosted pages (Paddle's checkout, invoice and payment-method update), plain HTML a browser opens. */
const escapeHtml = (v: string) => v.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const money = (cents: number) => `$${(cents / 100).toFixed(2)}`;
const page = (title: string, body: string) =>
  new Response(`<!doctype html><html lang="en"><meta charset="utf-8"><title>${title}</title><main>${body}</main></html>`, { headers: { "content-type": "text/html; charset=utf-8" } });
const itemRows = (t: SimTransaction, state: SimState) =>
  t.items.map((i) => `<li>${i.quantity} × ${escapeHtml(i.priceId)}: ${money(state.price(i.priceId) * i.quantity)}</li>`).join("");

export function checkoutPage(t: SimTransaction, state: SimState): Response {
  return page(
    "Checkout",
    `<h1>Simulated checkout</h1><p>No real payment is taken.</p><ul>${itemRows(t, state)}</ul><p>Total per ${t.cycle === "annual" ? "year" : "month"}: <strong>${money(state.total(t.items))}</strong></p><form method="post" action="/checkout/${t.id}/pay"><button>Pay</button></form>`,
  );
}

/** A completed transaction's hosted invoice: what GET /transactions/:id/invoice links to. */
export function invoicePage(t: SimTransaction, state: SimState): Response {
  return page(
    `Invoice ${t.id}`,
    `<h1>Invoice ${escapeHtml(t.id)}</h1><p>Simulated invoice: no real payment was taken.</p><p>Billed ${t.createdAt.toISOString().slice(0, 10)} (${t.origin.replaceAll("_", " ")}), ${t.cycle}.</p><ul>${itemRows(t, state)}</ul><p>Amount charged: <strong>${money(t.totalCents)}</strong> — Paid</p>`,
  );
}

/** A renewal's credit from earlier downgrades or overlap cancellations, when it lowered the amount due. */
const creditLine = (t: SimTransaction, state: SimState) => {
  const credit = state.total(t.items) - t.totalCents;
  return credit > 0 ? `<p>Credit applied: −${money(credit)}</p>` : "";
};

/**
 * Paddle's "update payment method" page (the subscription's management_urls): the failed renewal that is due,
 * and a form that stores a new (simulated) card and pays it.
 */
export function paymentUpdatePage(s: SimSubscription, unpaid: SimTransaction | undefined, state: SimState): Response {
  const due = unpaid
    ? `<h2>Unpaid invoice ${escapeHtml(unpaid.id)}</h2><p>Renewal billed ${unpaid.createdAt.toISOString().slice(0, 10)}, ${unpaid.cycle}.</p><ul>${itemRows(unpaid, state)}</ul>${creditLine(unpaid, state)}<p>Amount due: <strong>${money(unpaid.totalCents)}</strong> — Unpaid</p>`
    : "<p>Nothing is due: the subscription is paid up. A new card is used from the next renewal.</p>";
  return page(
    "Update payment method",
    `<h1>Update payment method</h1><p>Simulated provider page: no real card is stored or charged.</p>${due}<form method="post" action="/subscriptions/${escapeHtml(s.id)}/update-payment-method"><label>Card number <input name="card" value="4242 4242 4242 4242" autocomplete="off"></label> <button>${unpaid ? `Update and pay ${money(unpaid.totalCents)}` : "Update card"}</button></form>`,
  );
}

/**
 * A renewal's hosted invoice (Stripe's hosted invoice page, Paddle's link for a past_due transaction): amount,
 * period and status; while open, a Pay button that charges the card on file. A cancelled subscription's is void.
 */
export function renewalInvoicePage(t: SimTransaction, period: { start: Date; end: Date }, s: SimSubscription, state: SimState): Response {
  const status = t.status === "completed" ? "paid" : s.status === "canceled" ? "void" : "open";
  const label = { paid: "Paid", open: "Open", void: "Void: the subscription was cancelled" }[status];
  const pay = status === "open" ? `<form method="post" action="/invoices/${escapeHtml(t.id)}/pay"><p>Charged to the card on file.</p><button>Pay ${money(t.totalCents)}</button></form>` : "";
  return page(
    `Invoice ${t.id}`,
    `<h1>Invoice ${escapeHtml(t.id)}</h1><p>Simulated invoice: no real payment is taken.</p><p>Renewal billed ${t.createdAt.toISOString().slice(0, 10)}, ${t.cycle}.</p><p>Period: ${period.start.toISOString().slice(0, 10)} to ${period.end.toISOString().slice(0, 10)}</p><ul>${itemRows(t, state)}</ul>${creditLine(t, state)}<p>${status === "paid" ? "Amount charged" : "Amount due"}: <strong>${money(t.totalCents)}</strong></p><p>Status: <strong data-status="${status}">${label}</strong></p>${pay}`,
  );
}
