import type { SimState, SimTransaction } from "./state.ts";

/** The simulator's hosted pages (Paddle's checkout and invoice), plain HTML a browser opens. */
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
