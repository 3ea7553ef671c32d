import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { signPaddle, verifyPaddleSignature } from "../../billing/provider/paddle/signature.ts";
import { WebhookRejected } from "../../billing/provider/types.ts";
import { type BillingStack, buy, ownerOrg, SECRET, startBillingStack } from "./support.ts";

let stack: BillingStack;
beforeAll(async () => {
  stack = await startBillingStack();
});
afterAll(() => stack.stop());

const hook = (body: string, signature: string | null) =>
  fetch(`${stack.api.url}/api/v1/billing/webhooks/paddle`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(signature ? { "paddle-signature": signature } : {}) },
    body,
  });
const now = () => Math.floor(Date.now() / 1000);
const eventsOf = async (orgId: string) => (await stack.sim$("GET", "/sim/events")).data.filter((e: any) => e.data?.custom_data?.org_id === orgId);

describe("Paddle-Signature verification", () => {
  const body = '{"event_id":"evt_1"}';
  it("accepts any of several h1 values and any of several secrets (rotation)", () => {
    const ts = 1_800_000_000;
    const good = signPaddle(body, "new-secret", ts).split(";")[1];
    const at = new Date(ts * 1000);
    expect(() => verifyPaddleSignature(body, `ts=${ts};h1=${"0".repeat(64)};${good}`, ["old-secret", "new-secret"], at)).not.toThrow();
    expect(() => verifyPaddleSignature(body, signPaddle(body, "old-secret", ts), ["old-secret", "new-secret"], at)).not.toThrow();
    expect(() => verifyPaddleSignature(body, signPaddle(body, "other", ts), ["old-secret", "new-secret"], at)).toThrow(WebhookRejected);
  });

  it("refuses a missing or malformed header, a changed body and a timestamp outside the window", () => {
    const ts = 1_800_000_000;
    const at = new Date(ts * 1000);
    expect(() => verifyPaddleSignature(body, null, [SECRET], at)).toThrow("missing");
    expect(() => verifyPaddleSignature(body, "h1=abc", [SECRET], at)).toThrow("malformed");
    expect(() => verifyPaddleSignature(body + " ", signPaddle(body, SECRET, ts), [SECRET], at)).toThrow("does not match");
    expect(() => verifyPaddleSignature(body, signPaddle(body, SECRET, ts), [SECRET], new Date((ts + 301) * 1000))).toThrow("replay window");
    expect(() => verifyPaddleSignature(body, signPaddle(body, SECRET, ts), [SECRET], new Date((ts + 299) * 1000))).not.toThrow();
  });
});

describe("POST /billing/webhooks/paddle", () => {
  it("answers 401 to a bad signature and changes nothing", async () => {
    const o = await ownerOrg(stack);
    await buy(stack, o.owner, { plan: "starter", cycle: "monthly" });
    const [created] = await eventsOf(o.org_id);
    const forged = JSON.stringify({ ...created, event_id: "evt_forged", data: { ...created.data, status: "canceled", updated_at: new Date(Date.now() + 86_400_000).toISOString() } });
    const res = await hook(forged, signPaddle(forged, "wrong-secret", now()));
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).code).toBe("UNAUTHENTICATED");
    expect((await hook(forged, null)).status).toBe(401);
    expect((await o.key("GET", "/api/v1/entitlements")).body.plan.id).toBe("starter");
  });

  it("answers 401 to a replayed webhook whose signature is older than the window", async () => {
    const o = await ownerOrg(stack);
    await buy(stack, o.owner, { plan: "starter", cycle: "monthly" });
    const [created] = await eventsOf(o.org_id);
    const replay = JSON.stringify({ ...created, event_id: "evt_replayed_late" });
    expect((await hook(replay, signPaddle(replay, SECRET, now() - 600))).status).toBe(401);
  });

  it("is not limited like anonymous traffic", async () => {
    const limited = await startBillingStack({ RATE_LIMIT_PER_IP: "2" });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await fetch(`${limited.api.url}/api/v1/billing/webhooks/paddle`, { method: "POST", body: "{}" })).status);
      expect(statuses).toEqual([401, 401, 401, 401, 401]);
    } finally {
      await limited.stop();
    }
  });

  it("processes a duplicated event once", async () => {
    const o = await ownerOrg(stack);
    await buy(stack, o.owner, { plan: "pro", cycle: "monthly" });
    const line = (await o.owner("GET", "/api/v1/billing/subscription")).body.lines[0];
    await o.owner("POST", `/api/v1/billing/lines/${line.id}/cancel`);
    await stack.sim.drain();
    const events = await eventsOf(o.org_id);
    const first = events[0];
    const again = await stack.sim$("POST", `/sim/events/${first.event_id}/redeliver`);
    expect(again.status).toBe(200);
    const [row] = await stack.api.sql`select count(*)::int as n from billing_webhook_events where event_id = ${first.event_id}`;
    expect(row!.n).toBe(1);
    // The older created-snapshot, delivered again, did not undo the cancellation.
    expect((await o.owner("GET", "/api/v1/billing/subscription")).body.lines[0].status).toBe("pending_cancellation");
  });

  it("tolerates out-of-order delivery: the newest subscription state wins", async () => {
    const o = await ownerOrg(stack);
    await stack.sim$("POST", "/sim/webhooks/hold");
    const checkout = await o.owner("POST", "/api/v1/billing/checkout", { plan: "starter", cycle: "monthly" });
    await fetch(`${checkout.body.checkout_url}/pay`, { method: "POST" });
    const subId = [...stack.sim.state.subscriptions.values()].find((s) => s.orgId === o.org_id)!.id;
    await stack.sim$("POST", `/subscriptions/${subId}/cancel`, { effective_from: "immediately" });
    // Delivered newest first: canceled, then transaction.completed, then created.
    const released = await stack.sim$("POST", "/sim/webhooks/release", { order: "reverse" });
    expect(released.delivered.every((d: any) => d.status === 200)).toBe(true);
    const outcomes = await stack.api.sql<{ event_type: string; outcome: string }[]>`
      select event_type, outcome from billing_webhook_events where payload->'data'->'custom_data'->>'org_id' = ${o.org_id} order by received_at`;
    expect(outcomes.map((x) => `${x.event_type}:${x.outcome}`)).toEqual(["subscription.canceled:applied", "transaction.completed:applied", "subscription.created:stale"]);
    expect((await o.key("GET", "/api/v1/entitlements")).body.plan.id).toBe("free");
  });

  it("a webhook of the state before a cancel-then-resume, arriving after it, does not undo the resume", async () => {
    const o = await ownerOrg(stack);
    await buy(stack, o.owner, { plan: "starter", cycle: "monthly" });
    const line = (await o.owner("GET", "/api/v1/billing/subscription")).body.lines[0];
    await stack.sim$("POST", "/sim/webhooks/hold");
    await o.owner("POST", `/api/v1/billing/lines/${line.id}/cancel`);
    expect((await o.owner("POST", `/api/v1/billing/lines/${line.id}/resume`)).body.status).toBe("active");
    // The cancel's subscription.updated (cancel scheduled) lands only now, after the resume.
    await stack.sim$("POST", "/sim/webhooks/release", { order: "sent" });
    expect((await o.owner("GET", "/api/v1/billing/subscription")).body.lines[0]).toMatchObject({ id: line.id, status: "active", cancel_at: null });
    await stack.advance(31);
    expect((await o.key("GET", "/api/v1/entitlements")).body.plan.id).toBe("starter");
  });

  it("keeps the newest transaction's invoice when an older transaction.completed arrives late", async () => {
    const o = await ownerOrg(stack);
    await stack.sim$("POST", "/sim/webhooks/hold");
    const checkout = await o.owner("POST", "/api/v1/billing/checkout", { plan: "starter", cycle: "monthly" });
    await fetch(`${checkout.body.checkout_url}/pay`, { method: "POST" });
    await stack.sim$("POST", "/sim/advance", { days: 31 });
    const renewal = [...stack.sim.state.transactions.values()].find((t) => t.orgId === o.org_id && t.origin === "subscription_recurring")!;
    // Newest first: the renewal's events, then the first period's transaction and the creation.
    await stack.sim$("POST", "/sim/webhooks/release", { order: "reverse" });
    const line = (await o.owner("GET", "/api/v1/billing/subscription")).body.lines[0];
    expect(line.invoice_url).toContain(`/invoices/${renewal.id}`);
    const [first] = await stack.api.sql<{ outcome: string }[]>`
      select outcome from billing_webhook_events where event_type = 'transaction.completed' and payload->'data'->>'id' = ${checkout.body.transaction_id}`;
    expect(first!.outcome).toBe("stale");
  });
});
