import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { type BillingStack, buy, ownerOrg, startBillingStack } from "./support.ts";

// An unpaid renewal is an open invoice at the provider with its own hosted page, as at Stripe or Paddle:
// the banner links it, and paying it there ends the grace period through the ordinary webhooks.
let stack: BillingStack;
beforeAll(async () => {
  stack = await startBillingStack();
});
afterAll(() => stack.stop());

type Owner = Awaited<ReturnType<typeof ownerOrg>>["owner"];
const sub = async (owner: Owner) => (await owner("GET", "/api/v1/billing/subscription")).body;
const form = { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "" };

/** A Starter subscription whose first renewal failed: the organisation is in grace. */
async function unpaidRenewal() {
  const o = await ownerOrg(stack);
  await buy(stack, o.owner, { plan: "starter", cycle: "monthly" });
  const paidInvoice = (await sub(o.owner)).lines[0].invoice_url as string;
  const simSub = [...stack.sim.state.subscriptions.values()].find((s) => s.orgId === o.org_id)!;
  await stack.sim$("POST", "/sim/fail-next", { subscription_id: simSub.id });
  await stack.advance(31);
  const unpaid = stack.sim.state.unpaid(simSub)!;
  return { o, simSub, unpaid, paidInvoice };
}
const completedEvents = (txnId: string) => stack.sim.events.filter((e) => e.event_type === "transaction.completed" && (e.data as { id: string }).id === txnId);

describe("the open invoice of an unpaid renewal", () => {
  it("is in the grace banner beside payment_url, and its page shows the amount, the period and an open status", async () => {
    const { o, simSub, unpaid, paidInvoice } = await unpaidRenewal();
    const s = await sub(o.owner);
    expect(s.banner.kind).toBe("payment_failed");
    expect(s.banner.invoice_url).toBe(`${stack.sim.url}/invoices/${unpaid.id}`);
    expect(s.banner.payment_url).toBe(`${stack.sim.url}/subscriptions/${simSub.id}/update-payment-method`);
    // The lines keep linking the last paid invoice.
    expect(s.lines[0].invoice_url).toBe(paidInvoice);
    const page = await fetch(s.banner.invoice_url);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Amount due: <strong>$6.99</strong>");
    expect(html).toContain(`Period: ${simSub.periodStart.toISOString().slice(0, 10)} to ${simSub.periodEnd.toISOString().slice(0, 10)}`);
    expect(html).toContain('data-status="open"');
    expect(html).toContain("<button>Pay $6.99</button>");
  });

  it("is paid with the card on file by its Pay button, which ends the grace period through the webhooks", async () => {
    const { o, unpaid } = await unpaidRenewal();
    const url = (await sub(o.owner)).banner.invoice_url as string;
    const paid = await fetch(`${url}/pay`, { method: "POST" });
    expect(paid.status).toBe(200);
    expect(((await paid.json()) as { data: { transaction_id: string } }).data.transaction_id).toBe(unpaid.id);
    await stack.sim.drain();
    expect(completedEvents(unpaid.id).length).toBe(1);
    const s = await sub(o.owner);
    expect(s.status).toBe("active");
    expect(s.banner).toBeNull();
    // The paid renewal is now the lines' invoice, and its page says it was paid.
    expect(s.lines[0].invoice_url).toBe(url);
    const html = await (await fetch(url)).text();
    expect(html).toContain('data-status="paid"');
    expect(html).not.toContain("<button>");
    const jobs = await stack.api.sql`select kind from billing_jobs where org_id = ${o.org_id} and kind in ('grace_reminder', 'grace_expiry') and done_at is null`;
    expect(jobs.length).toBe(0);
  });

  it("is not made of a renewal the credit covers: nothing is charged, so the card's failure waits for the next charge", async () => {
    const o = await ownerOrg(stack);
    await buy(stack, o.owner, { plan: "starter", cycle: "monthly" });
    const simSub = [...stack.sim.state.subscriptions.values()].find((s) => s.orgId === o.org_id)!;
    simSub.creditCents = 699; // one Starter month, as an earlier downgrade leaves
    await stack.sim$("POST", "/sim/fail-next", { subscription_id: simSub.id });
    await stack.advance(31);
    expect(stack.sim.state.unpaid(simSub)).toBeUndefined();
    let s = await sub(o.owner);
    expect(s.status).toBe("active");
    expect(s.banner).toBeNull();
    await stack.advance(31);
    const unpaid = stack.sim.state.unpaid(simSub)!;
    expect(unpaid.totalCents).toBe(699);
    s = await sub(o.owner);
    expect(s.banner.kind).toBe("payment_failed");
    expect(s.banner.invoice_url).toBe(`${stack.sim.url}/invoices/${unpaid.id}`);
  });

  it("is charged once when Pay is sent twice at the same time", async () => {
    const { o, unpaid } = await unpaidRenewal();
    const url = (await sub(o.owner)).banner.invoice_url as string;
    const answers = await Promise.all([fetch(`${url}/pay`, { method: "POST" }), fetch(`${url}/pay`, { method: "POST" })]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    const refused = (await answers.find((r) => r.status === 409)!.json()) as { error: { code: string } };
    expect(refused.error.code).toBe("invoice_paid");
    await stack.sim.drain();
    expect(completedEvents(unpaid.id).length).toBe(1);
    expect((await fetch(`${url}/pay`, { method: "POST" })).status).toBe(409);
    expect(completedEvents(unpaid.id).length).toBe(1);
    expect((await sub(o.owner)).status).toBe("active");
  });

  it("stays open when the card on file is declined again, and the grace goes on", async () => {
    const { o, simSub, unpaid } = await unpaidRenewal();
    const url = (await sub(o.owner)).banner.invoice_url as string;
    await stack.sim$("POST", "/sim/fail-next", { subscription_id: simSub.id });
    const declined = await fetch(`${url}/pay`, form);
    expect(declined.status).toBe(402);
    expect(await declined.text()).toContain("declined");
    await stack.sim.drain();
    expect(completedEvents(unpaid.id).length).toBe(0);
    const s = await sub(o.owner);
    expect(s.status).toBe("grace_period");
    expect(s.banner.invoice_url).toBe(url);
    expect(await (await fetch(url)).text()).toContain('data-status="open"');
  });

  it("cannot be paid once its subscription was cancelled, and leaves the banner", async () => {
    const { o, simSub, unpaid } = await unpaidRenewal();
    const url = `${stack.sim.url}/invoices/${unpaid.id}`;
    await stack.sim$("POST", `/subscriptions/${simSub.id}/cancel`, { effective_from: "immediately" });
    await stack.sim.drain();
    const refused = await fetch(`${url}/pay`, { method: "POST" });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("subscription_canceled");
    await stack.sim.drain();
    expect(completedEvents(unpaid.id).length).toBe(0);
    const html = await (await fetch(url)).text();
    expect(html).toContain('data-status="void"');
    expect(html).not.toContain("<button>");
    expect((await sub(o.owner)).banner?.invoice_url ?? null).toBeNull();
  });
});
