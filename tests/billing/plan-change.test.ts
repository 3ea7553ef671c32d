import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { cancelOverlap, changePlan } from "../../billing/lifecycle.ts";
import { actorOf, type BillingStack, buy, insertMonitors, ownerOrg, pinSimClock, startBillingStack } from "./support.ts";

let stack: BillingStack;
beforeAll(async () => {
  stack = await startBillingStack();
});
afterAll(() => stack.stop());

const DAY = 86_400;
const simSub = (orgId: string) => [...stack.sim.state.subscriptions.values()].find((s) => s.orgId === orgId)!;

describe("plan changes and proration", () => {
  it("upgrade is immediate and charges the prorated difference: Starter → Pro with 10 of 30 days left = 767 cents", async () => {
    pinSimClock(stack, "2027-04-01T00:00:00Z"); // April: a 30-day period
    const o = await ownerOrg(stack);
    await buy(stack, o.owner, { plan: "starter", cycle: "monthly" });
    await stack.advance(20);
    const now = stack.sim.state.now();
    const preview = await changePlan(stack.billing, actorOf(o), { plan: "pro", preview: true }, now);
    expect(preview).toMatchObject({ direction: "upgrade", from: "starter", to: "pro", applied: false });
    expect(preview.proration.period_seconds).toBe(30 * DAY);
    // (2999 − 699) × 864000 / 2592000 = 766.67 → 767
    expect(preview.proration).toMatchObject({ old_price_cents: 699, new_price_cents: 2999, charged_now_cents: 767, credited_next_invoice_cents: 0 });
    const done = await changePlan(stack.billing, actorOf(o), { plan: "pro" }, now);
    expect(done.applied).toBe(true);
    await stack.sim.drain();
    const charge = [...stack.sim.state.transactions.values()].find((t) => t.orgId === o.org_id && t.origin === "subscription_update")!;
    expect(charge.totalCents).toBe(767);
    expect((await o.key("GET", "/api/v1/entitlements")).body.plan.id).toBe("pro");
    // The next cycle bills at the new tier.
    await stack.advance(11);
    const renewal = [...stack.sim.state.transactions.values()].find((t) => t.orgId === o.org_id && t.origin === "subscription_recurring")!;
    expect(renewal.totalCents).toBe(2999);
  });

  it("a plan change says when what it suspends is deleted: the new plan's grace after the change, on the provider's clock", async () => {
    pinSimClock(stack, "2027-04-01T00:00:00Z");
    const o = await ownerOrg(stack);
    await buy(stack, o.owner, { plan: "pro", cycle: "monthly" });
    await stack.advance(3);
    const now = stack.sim.state.now();
    const preview = await changePlan(stack.billing, actorOf(o), { plan: "starter", preview: true }, now);
    // Starter's grace is 5 days.
    expect(preview.delete_suspended_at).toBe(new Date(now.getTime() + 5 * DAY * 1000).toISOString());
    const viaApi = await o.owner("POST", "/api/v1/billing/change-plan", { plan: "starter", preview: true });
    expect(viaApi.status).toBe(200);
    expect(Date.parse(viaApi.body.delete_suspended_at)).toBeGreaterThan(Date.now() + 4 * DAY * 1000);
  });

  it("a line replaced by a plan change ends when it was replaced, not at the end of the period it was bought for", async () => {
    pinSimClock(stack, "2027-04-01T00:00:00Z");
    const o = await ownerOrg(stack);
    await buy(stack, o.owner, { plan: "starter", cycle: "monthly" });
    await stack.advance(10);
    const at = stack.sim.state.now();
    await changePlan(stack.billing, actorOf(o), { plan: "pro" }, at);
    await stack.sim.drain();
    const lines = (await o.owner("GET", "/api/v1/billing/subscription")).body.lines;
    const starter = lines.find((l: any) => l.product_id === "starter");
    const pro = lines.find((l: any) => l.product_id === "pro");
    expect(starter).toMatchObject({ status: "cancelled", next_renewal_at: null });
    expect(Math.abs(Date.parse(starter.period_end) - at.getTime())).toBeLessThan(5_000);
    expect(pro.status).toBe("active");
    expect(Date.parse(pro.period_end) - at.getTime()).toBeGreaterThan(19 * DAY * 1000);
  });

  it("downgrade is immediate, credits the prorated difference to the next invoice and suspends the newest excess", async () => {
    pinSimClock(stack, "2027-06-01T00:00:00Z"); // June: 30 days
    const o = await ownerOrg(stack);
    await buy(stack, o.owner, { plan: "pro", addons: [{ id: "members", quantity: 1 }], cycle: "monthly" });
    const ids = await insertMonitors(stack.api.sql, o.org_id, 55);
    await stack.advance(15);
    const result = await changePlan(stack.billing, actorOf(o), { plan: "starter" }, stack.sim.state.now());
    // (699 − 2999) × 15/30 = −1150
    expect(result).toMatchObject({ direction: "downgrade", applied: true, proration: { amount_cents: -1150, charged_now_cents: 0, credited_next_invoice_cents: 1150 } });
    await stack.sim.drain();
    expect(simSub(o.org_id).creditCents).toBe(1150);
    expect((await o.key("GET", "/api/v1/entitlements")).body.plan.id).toBe("starter");
    const suspended = await stack.api.sql<{ id: string }[]>`select id from monitors where org_id = ${o.org_id} and suspended order by created_at`;
    expect(suspended.map((r) => r.id)).toEqual(ids.slice(50));
    // The members add-on (minimum Pro) ends with its period; the plan line is Starter.
    const sub = (await o.owner("GET", "/api/v1/billing/subscription")).body;
    expect(sub.lines.filter((l: any) => l.status !== "cancelled").map((l: any) => [l.product_id, l.status])).toEqual([
      ["starter", "active"],
      ["members", "pending_cancellation"],
    ]);
    // Next invoice: 699 less the 1150 credit → nothing due, 451 left.
    await stack.advance(16);
    const renewal = [...stack.sim.state.transactions.values()].find((t) => t.orgId === o.org_id && t.origin === "subscription_recurring")!;
    expect(renewal.totalCents).toBe(0);
    expect(renewal.items.map((i) => i.priceId)).toEqual(["pri_starter_monthly"]);
    expect(simSub(o.org_id).creditCents).toBe(451);
  });

  it("an upgrade that includes capacity bought as an add-on raises an overlap notice; cancel credits the unused balance, dismiss keeps it", async () => {
    pinSimClock(stack, "2027-09-01T00:00:00Z"); // September: 30 days
    const o = await ownerOrg(stack);
    await buy(stack, o.owner, { plan: "starter", addons: [{ id: "runner", quantity: 1 }, { id: "monitors_standard", quantity: 1 }, { id: "self_hosted_browser", quantity: 1 }], cycle: "monthly" });
    await stack.advance(18);
    await changePlan(stack.billing, actorOf(o), { plan: "pro" }, stack.sim.state.now());
    await stack.sim.drain();
    const overlaps = (await o.key("GET", "/api/v1/billing/overlaps")).body.data;
    expect(overlaps.map((x: any) => [x.addon_id, x.overlapping_quotas])).toEqual([
      ["runner", ["runners"]],
      ["monitors_standard", ["monitors"]],
      ["self_hosted_browser", ["self_hosted_browser"]],
    ]);
    // 499 × 12/30 = 199.6 → 200 credited; the add-on runs to the period end.
    const cancelled = await cancelOverlap(stack.billing, actorOf(o), overlaps[0].id, stack.sim.state.now());
    expect(cancelled.line.status).toBe("pending_cancellation");
    expect(cancelled.credit_cents).toBe(200);
    expect(stack.sim.state.adjustments.find((a) => a.subscriptionId === simSub(o.org_id).id)?.amountCents).toBe(200);
    expect((await o.owner("POST", `/api/v1/billing/overlaps/${overlaps[0].id}/cancel`)).status).toBe(404);
    const dismissed = await o.owner("POST", `/api/v1/billing/overlaps/${overlaps[1].id}/dismiss`);
    expect(dismissed.status).toBe(200);
    expect((await o.key("GET", "/api/v1/billing/overlaps")).body.data.map((x: any) => x.addon_id)).toEqual(["self_hosted_browser"]);
    expect((await o.owner("POST", `/api/v1/billing/overlaps/${overlaps[1].id}/dismiss`)).status).toBe(404);
    await stack.advance(13);
    const active = (await o.key("GET", "/api/v1/billing/addons/active")).body.data.map((l: any) => l.product_id);
    expect(active).toEqual(["monitors_standard", "self_hosted_browser"]);
  });

  it("refuses plan changes that make no sense", async () => {
    const o = await ownerOrg(stack);
    expect((await o.owner("POST", "/api/v1/billing/change-plan", { plan: "pro" })).status).toBe(409);
    await buy(stack, o.owner, { plan: "pro", cycle: "monthly" });
    expect((await o.owner("POST", "/api/v1/billing/change-plan", { plan: "pro" })).status).toBe(409);
    expect((await o.owner("POST", "/api/v1/billing/change-plan", { plan: "free" })).status).toBe(400);
    expect((await o.owner("POST", "/api/v1/billing/checkout", { plan: "business" })).status).toBe(409);
    const preview = await o.owner("POST", "/api/v1/billing/change-plan", { plan: "business", preview: true });
    expect(preview.status).toBe(200);
    expect(preview.body.applied).toBe(false);
    const p = preview.body.proration;
    expect(p.amount_cents).toBe(Math.round(((p.new_price_cents - p.old_price_cents) * p.remaining_seconds) / p.period_seconds));
  });

  it("the route prorates on the provider's clock (the simulator's in the all-in-one mode), not the API host's", async () => {
    pinSimClock(stack, "2028-04-01T00:00:00Z"); // after every other test's clock: the simulator never goes back
    stack.api.server.deps.billingClock = () => stack.sim.state.now();
    try {
      const o = await ownerOrg(stack);
      await buy(stack, o.owner, { plan: "starter", cycle: "monthly" });
      await stack.advance(20);
      const preview = await o.owner("POST", "/api/v1/billing/change-plan", { plan: "pro", preview: true });
      expect(preview.status).toBe(200);
      expect(preview.body.proration).toMatchObject({ period_seconds: 30 * DAY, charged_now_cents: 767 });
      expect(Math.abs(preview.body.proration.remaining_seconds - 10 * DAY)).toBeLessThan(60);
    } finally {
      stack.api.server.deps.billingClock = undefined;
    }
  });
});
