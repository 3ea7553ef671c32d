/**
 * The in-app feed hears about billing events, whichever path changed the subscription: the
 * provider's webhooks (checkout, failed renewal), the user's own cancel and the billing jobs
 * (grace expiry). Driven through the API and the payment-provider simulator.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { changePlan } from "../../billing/lifecycle.ts";
import { actorOf, type BillingStack, buy, ownerOrg, startBillingStack } from "../billing/support.ts";

let stack: BillingStack;
beforeAll(async () => {
  stack = await startBillingStack();
}, 60_000);
afterAll(() => stack.stop(), 60_000);

type Owner = Awaited<ReturnType<typeof ownerOrg>>;
const feed = async (o: Owner) => (await o.key("GET", "/api/v1/notifications?limit=100")).body.data.reverse() as { id: string; type: string; title: string; body: string; read: boolean }[];

describe("billing events in the in-app feed", () => {
  it("announces a subscription, a failed payment and the drop to Free when grace runs out", async () => {
    const o = await ownerOrg(stack);
    await buy(stack, o.owner, { plan: "pro", cycle: "monthly" });
    expect((await feed(o)).map((n) => `${n.type}: ${n.title}`).sort()).toEqual(["billing.plan_changed: Plan changed to Pro", "billing.subscribed: Subscribed: Pro"]);
    await stack.sim$("POST", "/sim/fail-next", {});
    await stack.advance(31);
    const failed = (await feed(o)).filter((n) => n.type === "billing.payment_failed");
    expect(failed.map((n) => n.title)).toEqual(["Payment failed: Pro"]);
    expect(failed[0]!.body).toContain("Everything keeps working until");
    await stack.advance(7.01);
    const after = (await feed(o)).map((n) => n.type);
    expect(after.slice(-2).sort()).toEqual(["billing.past_due", "billing.plan_changed"]);
    expect((await feed(o)).find((n) => n.type === "billing.past_due")!.body).toContain("Free plan");
  });

  it("announces a scheduled cancellation and its end", async () => {
    const o = await ownerOrg(stack);
    await buy(stack, o.owner, { plan: "starter", cycle: "monthly" });
    const line = (await o.owner("GET", "/api/v1/billing/subscription")).body.lines[0];
    await o.owner("POST", `/api/v1/billing/lines/${line.id}/cancel`);
    const scheduled = (await feed(o)).find((n) => n.type === "billing.cancellation_scheduled")!;
    expect(scheduled.title).toBe("Cancellation scheduled: Starter");
    expect(scheduled.body).toContain(`ends on ${line.period_end.slice(0, 16).replace("T", " ")} UTC`);
    await o.owner("POST", `/api/v1/billing/lines/${line.id}/resume`);
    expect((await feed(o)).at(-1)!.type).toBe("billing.resumed");
    await o.owner("POST", `/api/v1/billing/lines/${line.id}/cancel`);
    await stack.advance(32);
    const types = (await feed(o)).map((n) => n.type);
    expect(types.slice(-2).sort()).toEqual(["billing.cancelled", "billing.plan_changed"]);
  });

  it("announces an overlap notice when an upgrade includes an add-on's capacity", async () => {
    const o = await ownerOrg(stack);
    await buy(stack, o.owner, { plan: "starter", addons: [{ id: "self_hosted_browser", quantity: 1 }], cycle: "monthly" });
    expect((await feed(o)).filter((n) => n.type === "billing.overlap")).toHaveLength(0);
    await changePlan(stack.billing, actorOf(o), { plan: "pro" }, stack.sim.state.now());
    await stack.sim.drain();
    const overlap = (await feed(o)).find((n) => n.type === "billing.overlap")!;
    expect(overlap.body).toBe("The Pro plan already includes what +1 Self-hosted browser monitor adds. Keep the add-on or cancel it at the next renewal (Billing).");
    expect((await feed(o)).filter((n) => n.type === "billing.overlap")).toHaveLength(1);
  });

  it("counts unread notifications and marks one or all read", async () => {
    const o = await ownerOrg(stack);
    await buy(stack, o.owner, { plan: "starter", cycle: "monthly" });
    const count = async () => (await o.key("GET", "/api/v1/notifications/unread-count")).body.unread;
    expect(await count()).toBe(2);
    const [first] = await feed(o);
    const read = await o.key("POST", `/api/v1/notifications/${first!.id}/read`);
    expect(read.body.read).toBe(true);
    expect(await count()).toBe(1);
    expect((await o.key("GET", "/api/v1/notifications?unread=true")).body.data).toHaveLength(1);
    expect((await o.key("POST", "/api/v1/notifications/read-all")).body.marked).toBe(1);
    expect(await count()).toBe(0);
  });
});
