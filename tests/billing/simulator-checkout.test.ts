import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { type BillingSimulator, startBillingSimulator } from "../../billing/simulator/server.ts";

// The simulated hosted checkout as a browser uses it: a page with the items and a Pay button that
// returns to the app (Paddle's success URL) once the webhooks were delivered.
let sim: BillingSimulator;
let app: ReturnType<typeof Bun.serve>;
const hooks: string[] = [];

beforeAll(() => {
  app = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: async (req) => {
      hooks.push(((await req.json()) as { event_type: string }).event_type);
      return new Response("ok");
    },
  });
  sim = startBillingSimulator({ port: 0, webhookUrl: `http://127.0.0.1:${app.port}/hook`, secret: "s", prices: { pri_starter_monthly: 699, pri_runner_monthly: 499 } });
});
afterAll(async () => {
  await sim.stop();
  app.stop(true);
});

async function newCheckout() {
  const res = await fetch(`${sim.url}/transactions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ items: [{ price_id: "pri_starter_monthly", quantity: 1 }, { price_id: "pri_runner_monthly", quantity: 2 }], custom_data: { org_id: "org_1" } }),
  });
  return ((await res.json()) as { data: { id: string; checkout: { url: string } } }).data;
}

describe("simulated hosted checkout", () => {
  it("shows every item with its price and the total", async () => {
    const txn = await newCheckout();
    const html = await (await fetch(txn.checkout.url)).text();
    expect(html).toContain('<html lang="en">');
    expect(html).toContain("1 × pri_starter_monthly: $6.99");
    expect(html).toContain("2 × pri_runner_monthly: $9.98");
    expect(html).toContain("<strong>$16.97</strong>");
  });

  it("sends a browser's Pay back to the return URL after the webhooks landed", async () => {
    sim.setReturnUrl("http://127.0.0.1:1/billing");
    const txn = await newCheckout();
    hooks.length = 0;
    const res = await fetch(`${sim.url}/checkout/${txn.id}/pay`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "", redirect: "manual" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`http://127.0.0.1:1/billing?checkout=${txn.id}`);
    expect(hooks).toEqual(["subscription.created", "transaction.completed"]);
  });

  it("answers JSON to a programmatic pay, and without a return URL", async () => {
    sim.setReturnUrl(null);
    const txn = await newCheckout();
    const res = await fetch(`${sim.url}/checkout/${txn.id}/pay`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "", redirect: "manual" });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: { transaction_id: string } }).data.transaction_id).toBe(txn.id);
  });

  it("serves the hosted invoice its API links to once the checkout is paid: items, total and paid status", async () => {
    const txn = await newCheckout();
    expect((await fetch(`${sim.url}/transactions/${txn.id}/invoice`)).status).toBe(404);
    await fetch(`${sim.url}/checkout/${txn.id}/pay`, { method: "POST" });
    const link = ((await (await fetch(`${sim.url}/transactions/${txn.id}/invoice`)).json()) as { data: { url: string } }).data.url;
    const res = await fetch(link);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/html");
    const html = await res.text();
    expect(html).toContain(txn.id);
    expect(html).toContain("2 × pri_runner_monthly: $9.98");
    expect(html).toContain("<strong>$16.97</strong>");
    expect(html).toContain("Paid");
    expect((await fetch(`${sim.url}/invoices/txn_unknown`)).status).toBe(404);
  });
});

describe("simulated payment-method update (the provider's page for a failed renewal)", () => {
  async function pastDue() {
    const txn = await newCheckout();
    await fetch(`${sim.url}/checkout/${txn.id}/pay`, { method: "POST" });
    const subId = sim.state.transactions.get(txn.id)!.subscriptionId!;
    await fetch(`${sim.url}/sim/fail-next`, { method: "POST", body: JSON.stringify({ subscription_id: subId }) });
    await fetch(`${sim.url}/sim/advance`, { method: "POST", body: JSON.stringify({ days: 32 }) });
    await sim.drain();
    return subId;
  }
  const subscription = async (id: string) => ((await (await fetch(`${sim.url}/subscriptions/${id}`)).json()) as { data: { status: string; management_urls: { update_payment_method: string | null } } }).data;

  it("links the page from the subscription (Paddle's management_urls) and shows the unpaid renewal on it", async () => {
    const subId = await pastDue();
    const sub = await subscription(subId);
    expect(sub.status).toBe("past_due");
    expect(sub.management_urls.update_payment_method).toBe(`${sim.url}/subscriptions/${subId}/update-payment-method`);
    const res = await fetch(sub.management_urls.update_payment_method!);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("Update payment method");
    expect(html).toContain("2 × pri_runner_monthly: $9.98");
    expect(html).toContain("Unpaid");
    expect(html).toContain("<strong>$16.97</strong>");
    expect(html).toContain(`action="/subscriptions/${subId}/update-payment-method"`);
  });

  it("pays the unpaid renewal with the new method, reports it as Paddle does, and sends the browser back", async () => {
    sim.setReturnUrl("http://127.0.0.1:1/billing");
    const subId = await pastDue();
    const unpaid = [...sim.state.transactions.values()].find((t) => t.subscriptionId === subId && t.status === "past_due")!;
    hooks.length = 0;
    const url = (await subscription(subId)).management_urls.update_payment_method!;
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "card=4242", redirect: "manual" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`http://127.0.0.1:1/billing?checkout=${unpaid.id}`);
    expect(hooks).toEqual(["transaction.completed", "subscription.updated"]);
    expect((await subscription(subId)).status).toBe("active");
    expect(unpaid.status).toBe("completed");
    // Nothing more is due: the page says so, and a second update charges nothing.
    expect(await (await fetch(url)).text()).toContain("Nothing is due");
    hooks.length = 0;
    const again = await fetch(url, { method: "POST", redirect: "manual" });
    expect(again.status).toBe(200);
    await sim.drain();
    expect(hooks).toEqual([]);
    sim.setReturnUrl(null);
  });
});

