import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { type BillingStack, buy, ownerOrg, startBillingStack } from "./support.ts";

let stack: BillingStack;
beforeAll(async () => {
  stack = await startBillingStack();
});
afterAll(() => stack.stop());

const sub = async (owner: Awaited<ReturnType<typeof ownerOrg>>["owner"]) => (await owner("GET", "/api/v1/billing/subscription")).body;
const planOf = async (o: Awaited<ReturnType<typeof ownerOrg>>) => (await o.key("GET", "/api/v1/entitlements")).body.plan.id;

describe("subscription status (spec table)", () => {
  it("checkout of a plan and two add-ons is one transaction with a line each, and each becomes a subscription line", async () => {
    const o = await ownerOrg(stack);
    const res = await buy(stack, o.owner, { plan: "pro", addons: [{ id: "runner", quantity: 2 }, { id: "status_pages", quantity: 1 }], cycle: "monthly" });
    expect(res.checkout_url).toStartWith(stack.sim.url);
    const txn = stack.sim.state.transactions.get(res.transaction_id!)!;
    expect(txn.items).toEqual([
      { priceId: "pri_pro_monthly", quantity: 1 },
      { priceId: "pri_runner_monthly", quantity: 2 },
      { priceId: "pri_status_pages_monthly", quantity: 1 },
    ]);
    expect(txn.totalCents).toBe(2999 + 2 * 499 + 499);
    const s = await sub(o.owner);
    expect(s.status).toBe("active");
    expect(s.plan).toMatchObject({ id: "pro", name: "Pro" });
    expect(s.plan.included_quotas.runners).toBe(3);
    expect(s.lines.map((l: any) => [l.kind, l.product_id, l.quantity, l.status, l.cycle])).toEqual([
      ["plan", "pro", 1, "active", "monthly"],
      ["addon", "runner", 2, "active", "monthly"],
      ["addon", "status_pages", 1, "active", "monthly"],
    ]);
    expect(s.lines[0].invoice_url).toContain(`/invoices/${res.transaction_id}`);
    expect(s.lines[0].next_renewal_at).toBe(s.lines[0].period_end);
    const ent = (await o.key("GET", "/api/v1/entitlements")).body;
    expect(ent.limits.runners).toBe(3 + 2);
    expect(ent.contributions.runners).toEqual({ plan: 3, addons: [{ addon_id: "runner", name: "+1 Self-hosted runner slot", quantity: 2, adds: 2 }], total: 5 });
    expect(ent.limits.status_pages).toBe(5 + 3);
    const active = (await o.key("GET", "/api/v1/billing/addons/active")).body.data;
    expect(active.map((l: any) => l.product_id)).toEqual(["runner", "status_pages"]);
  });

  it("active → payment fails → grace_period: everything keeps working, a banner shows, the owner gets reminders", async () => {
    const o = await ownerOrg(stack);
    await buy(stack, o.owner, { plan: "starter", cycle: "monthly" });
    const { lines } = await sub(o.owner);
    await stack.sim$("POST", "/sim/fail-next", {});
    const mailsBefore = stack.api.mailer.sent.length;
    await stack.advance(31);
    const s = await sub(o.owner);
    expect(s.status).toBe("grace_period");
    expect(s.lines[0].status).toBe("grace_period");
    expect(s.banner.kind).toBe("payment_failed");
    // Starter's grace is 5 days (plans.grace_days), counted from the provider's failure notice.
    const graceMs = new Date(s.banner.grace_ends_at).getTime() - stack.sim.state.now().getTime();
    expect(Math.round(graceMs / 86_400_000)).toBe(5);
    expect(s.lines[0].period_start).not.toBe(lines[0].period_start);
    expect(await planOf(o)).toBe("starter");
    const mails = stack.api.mailer.sent.slice(mailsBefore).filter((m) => m.to === o.email);
    expect(mails.length).toBe(1);
    expect(mails[0]!.subject).toContain("payment failed");
    // The second reminder comes one day before the grace period ends.
    await stack.advance(4.01);
    expect(stack.api.mailer.sent.slice(mailsBefore).filter((m) => m.to === o.email).length).toBe(2);
    expect((await sub(o.owner)).status).toBe("grace_period");
  });

  it("the grace banner links the provider's payment-update page, where paying the failed renewal ends the grace", async () => {
    const o = await ownerOrg(stack);
    await buy(stack, o.owner, { plan: "starter", cycle: "monthly" });
    const paidInvoice = (await sub(o.owner)).lines[0].invoice_url;
    await stack.sim$("POST", "/sim/fail-next", {});
    await stack.advance(31);
    const grace = await sub(o.owner);
    expect(grace.banner.kind).toBe("payment_failed");
    const subId = [...stack.sim.state.subscriptions.values()].find((s) => s.orgId === o.org_id)!.id;
    expect(grace.banner.payment_url).toBe(`${stack.sim.url}/subscriptions/${subId}/update-payment-method`);
    expect(grace.banner.payment_url).not.toBe(paidInvoice);
    const page = await fetch(grace.banner.payment_url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("$6.99");
    const paid = await fetch(grace.banner.payment_url, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "" });
    expect(paid.status).toBe(200);
    await stack.sim.drain();
    const s = await sub(o.owner);
    expect(s.status).toBe("active");
    expect(s.banner).toBeNull();
    expect(s.lines[0].invoice_url).not.toBe(paidInvoice);
    const jobs = await stack.api.sql`select kind from billing_jobs where org_id = ${o.org_id} and kind in ('grace_reminder', 'grace_expiry') and done_at is null`;
    expect(jobs.length).toBe(0);
  });

  it("a payment during grace brings the lines back to active in the same period", async () => {
    const o = await ownerOrg(stack);
    await buy(stack, o.owner, { plan: "pro", addons: [{ id: "members", quantity: 1 }], cycle: "monthly" });
    await stack.sim$("POST", "/sim/fail-next", {});
    await stack.advance(31);
    const grace = await sub(o.owner);
    expect(grace.lines.map((l: any) => l.status)).toEqual(["grace_period", "grace_period"]);
    const subId = [...stack.sim.state.subscriptions.values()].find((s) => s.orgId === o.org_id)!.id;
    await stack.sim$("POST", `/sim/subscriptions/${subId}/pay`);
    await stack.sim.drain();
    const s = await sub(o.owner);
    expect(s.status).toBe("active");
    expect(s.banner).toBeNull();
    expect(s.lines.map((l: any) => l.status)).toEqual(["active", "active"]);
    expect(s.lines[0].period_start).toBe(grace.lines[0].period_start);
    expect(s.lines[0].period_end).toBe(grace.lines[0].period_end);
    // The expiry job was cancelled: waiting past the grace window changes nothing.
    await stack.advance(8);
    expect((await sub(o.owner)).status).toBe("active");
    expect(await planOf(o)).toBe("pro");
  });

  it("grace_period → grace expires unpaid → past_due: the plan drops to Free and add-ons are cancelled", async () => {
    const o = await ownerOrg(stack);
    await buy(stack, o.owner, { plan: "pro", addons: [{ id: "monitors_standard", quantity: 1 }], cycle: "monthly" });
    await stack.sim$("POST", "/sim/fail-next", {});
    await stack.advance(31);
    expect((await sub(o.owner)).status).toBe("grace_period");
    await stack.advance(7.01);
    const s = await sub(o.owner);
    expect(s.status).toBe("past_due");
    expect(s.lines.map((l: any) => [l.product_id, l.status])).toEqual([
      ["pro", "past_due"],
      ["monitors_standard", "past_due"],
    ]);
    expect(await planOf(o)).toBe("free");
    const ent = (await o.key("GET", "/api/v1/entitlements")).body;
    expect(ent.limits.monitors).toBe(20);
    expect((await o.key("GET", "/api/v1/billing/addons/active")).body.data).toEqual([]);
    const simSub = [...stack.sim.state.subscriptions.values()].find((x) => x.orgId === o.org_id)!;
    expect(simSub.status).toBe("canceled");
  });

  it("active → user cancels → pending_cancellation until the period ends → cancelled, plan to Free", async () => {
    const o = await ownerOrg(stack);
    await buy(stack, o.owner, { plan: "starter", cycle: "annual" });
    const { lines } = await sub(o.owner);
    const cancelled = await o.owner("POST", `/api/v1/billing/lines/${lines[0].id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: "pending_cancellation", cancel_at: lines[0].period_end, next_renewal_at: null });
    expect(await planOf(o)).toBe("starter");
    await stack.advance(200);
    expect(await planOf(o)).toBe("starter");
    await stack.advance(170);
    const s = await sub(o.owner);
    expect(s.lines[0].status).toBe("cancelled");
    expect(await planOf(o)).toBe("free");
    // The provider did not bill a renewal.
    expect([...stack.sim.state.transactions.values()].filter((t) => t.orgId === o.org_id && t.origin === "subscription_recurring")).toEqual([]);
  });

  it("cancelling the plan also stops renewing the add-ons Free cannot hold; the others renew alone", async () => {
    const o = await ownerOrg(stack);
    await buy(stack, o.owner, { plan: "starter", addons: [{ id: "runner", quantity: 1 }, { id: "monitors_standard", quantity: 1 }], cycle: "monthly" });
    const { lines } = await sub(o.owner);
    const providerSub = [...stack.sim.state.subscriptions.values()].find((x) => x.orgId === o.org_id)!;
    await o.owner("POST", `/api/v1/billing/lines/${lines[0].id}/cancel`);
    // From the next renewal the provider bills only what Free can hold; until then everything works.
    expect(providerSub.items.map((i) => i.priceId)).toEqual(["pri_monitors_standard_monthly"]);
    expect((await o.key("GET", "/api/v1/entitlements")).body.limits.runners).toBe(2);
    await stack.advance(32);
    const renewal = [...stack.sim.state.transactions.values()].find((t) => t.orgId === o.org_id && t.origin === "subscription_recurring")!;
    expect(renewal.items.map((i) => i.priceId)).toEqual(["pri_monitors_standard_monthly"]);
    expect(renewal.totalCents).toBe(499);
    const after = await sub(o.owner);
    expect(after.lines.filter((l: any) => l.status !== "cancelled").map((l: any) => [l.product_id, l.status])).toEqual([["monitors_standard", "active"]]);
    const ent = (await o.key("GET", "/api/v1/entitlements")).body;
    expect(ent.plan.id).toBe("free");
    expect(ent.limits).toMatchObject({ runners: 0, monitors: 45 });
  });

  it("resuming the plan before the period ends renews the add-ons that were ending with it, not one cancelled alone", async () => {
    const o = await ownerOrg(stack);
    await buy(stack, o.owner, { plan: "starter", addons: [{ id: "runner", quantity: 1 }, { id: "lite_browser_standard", quantity: 1 }], cycle: "monthly" });
    const { lines } = await sub(o.owner);
    const providerSub = [...stack.sim.state.subscriptions.values()].find((x) => x.orgId === o.org_id)!;
    const lite = lines.find((l: any) => l.product_id === "lite_browser_standard");
    await o.owner("POST", `/api/v1/billing/lines/${lite.id}/cancel`);
    const cancelled = await o.owner("POST", `/api/v1/billing/lines/${lines[0].id}/cancel`);
    expect(cancelled.body.status).toBe("pending_cancellation");
    expect((await sub(o.owner)).lines.map((l: any) => `${l.product_id}:${l.status}`).sort()).toEqual([
      "lite_browser_standard:pending_cancellation",
      "runner:pending_cancellation",
      "starter:pending_cancellation",
    ]);
    expect(providerSub.cancelAt).not.toBeNull();
    await o.owner("POST", `/api/v1/billing/lines/${lines[0].id}/resume`);
    expect(providerSub.items.map((i) => i.priceId).sort()).toEqual(["pri_runner_monthly", "pri_starter_monthly"]);
    expect((await sub(o.owner)).lines.find((l: any) => l.id === lite.id).status).toBe("pending_cancellation");
    await stack.advance(31);
    const ent = (await o.key("GET", "/api/v1/entitlements")).body;
    expect(ent.limits.runners).toBe(2);
    expect(ent.limits.lite_browser).toBe(1);
  });

  it("cancelled → the user picks the plan again → active with a new period", async () => {
    const o = await ownerOrg(stack);
    await buy(stack, o.owner, { plan: "starter", cycle: "monthly" });
    const first = (await sub(o.owner)).lines[0];
    await o.owner("POST", `/api/v1/billing/lines/${first.id}/cancel`);
    await stack.advance(32);
    expect(await planOf(o)).toBe("free");
    await buy(stack, o.owner, { plan: "starter", cycle: "monthly" });
    const s = await sub(o.owner);
    const live = s.lines.find((l: any) => l.status === "active");
    expect(live.product_id).toBe("starter");
    expect(live.id).not.toBe(first.id);
    expect(new Date(live.period_start).getTime()).toBeGreaterThan(new Date(first.period_end).getTime());
    expect(await planOf(o)).toBe("starter");
  });

  it("a pending cancellation can be resumed before the period ends", async () => {
    const o = await ownerOrg(stack);
    await buy(stack, o.owner, { plan: "starter", cycle: "monthly" });
    const line = (await sub(o.owner)).lines[0];
    await o.owner("POST", `/api/v1/billing/lines/${line.id}/cancel`);
    const resumed = await o.owner("POST", `/api/v1/billing/lines/${line.id}/resume`);
    expect(resumed.body).toMatchObject({ status: "active", cancel_at: null });
    await stack.advance(31);
    expect(await planOf(o)).toBe("starter");
    expect((await sub(o.owner)).lines[0].status).toBe("active");
  });

  it("cancel and resume answer the line with its hosted invoice link, as GET /billing/subscription shows it", async () => {
    const o = await ownerOrg(stack);
    const paid = await buy(stack, o.owner, { plan: "starter", cycle: "monthly" });
    const line = (await sub(o.owner)).lines[0];
    expect(line.invoice_url).toContain(`/invoices/${paid.transaction_id}`);
    const cancelled = await o.owner("POST", `/api/v1/billing/lines/${line.id}/cancel`);
    expect(cancelled.body).toMatchObject({ status: "pending_cancellation", invoice_url: line.invoice_url });
    const resumed = await o.owner("POST", `/api/v1/billing/lines/${line.id}/resume`);
    expect(resumed.body).toMatchObject({ status: "active", invoice_url: line.invoice_url });
  });

  it("removing one add-on cancels only that line at the end of the period", async () => {
    const o = await ownerOrg(stack);
    await buy(stack, o.owner, { plan: "pro", addons: [{ id: "runner", quantity: 1 }, { id: "members", quantity: 1 }], cycle: "monthly" });
    const { lines } = await sub(o.owner);
    const runner = lines.find((l: any) => l.product_id === "runner");
    await o.owner("POST", `/api/v1/billing/lines/${runner.id}/cancel`);
    expect((await o.key("GET", "/api/v1/entitlements")).body.limits.runners).toBe(4);
    await stack.advance(31);
    const s = await sub(o.owner);
    expect(s.lines.filter((l: any) => l.status !== "cancelled").map((l: any) => [l.product_id, l.status])).toEqual([
      ["pro", "active"],
      ["members", "active"],
    ]);
    expect(s.lines.find((l: any) => l.id === runner.id)).toBeUndefined();
    expect((await o.key("GET", "/api/v1/billing/addons/active")).body.data.map((l: any) => l.product_id)).toEqual(["members"]);
    expect((await o.key("GET", "/api/v1/entitlements")).body.limits.runners).toBe(3);
    // The renewal billed the plan and the remaining add-on only.
    const renewal = [...stack.sim.state.transactions.values()].find((t) => t.orgId === o.org_id && t.origin === "subscription_recurring")!;
    expect(renewal.items.map((i) => i.priceId).sort()).toEqual(["pri_members_monthly", "pri_pro_monthly"]);
  });

  it("cancelled → the user picks the add-on again → a new active line", async () => {
    const o = await ownerOrg(stack);
    await buy(stack, o.owner, { plan: "starter", addons: [{ id: "runner", quantity: 1 }], cycle: "monthly" });
    const runner = (await o.owner("GET", "/api/v1/billing/subscription")).body.lines.find((l: any) => l.product_id === "runner");
    await o.owner("POST", `/api/v1/billing/lines/${runner.id}/cancel`);
    const again = await o.owner("POST", "/api/v1/billing/checkout", { addons: [{ id: "runner", quantity: 1 }], cycle: "monthly" });
    expect(again.status).toBe(409);
    expect(again.body.details.line_id).toBe(runner.id);
    await stack.advance(31);
    expect((await o.key("GET", "/api/v1/entitlements")).body.limits.runners).toBe(1);
    await buy(stack, o.owner, { addons: [{ id: "runner", quantity: 1 }], cycle: "monthly" });
    const active = (await o.key("GET", "/api/v1/billing/addons/active")).body.data;
    expect(active.map((l: any) => [l.product_id, l.status])).toEqual([["runner", "active"]]);
    expect(active[0].id).not.toBe(runner.id);
    expect((await o.key("GET", "/api/v1/entitlements")).body.limits.runners).toBe(2);
  });

  it("add-ons bought later on a live subscription are charged at once and refused below their minimum plan", async () => {
    const o = await ownerOrg(stack);
    await buy(stack, o.owner, { plan: "starter", cycle: "monthly" });
    const refused = await o.owner("POST", "/api/v1/billing/checkout", { addons: [{ id: "members", quantity: 1 }], cycle: "monthly" });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: "ENTITLEMENT_REQUIRED", details: { entitlement: "addon:members", minimum_plan: "pro" } });
    const added = await buy(stack, o.owner, { addons: [{ id: "runner", quantity: 1 }, { id: "self_hosted_browser", quantity: 1 }], cycle: "monthly" });
    expect(added.checkout_url).toBeNull();
    const s = await sub(o.owner);
    expect(s.lines.map((l: any) => l.product_id)).toEqual(["starter", "runner", "self_hosted_browser"]);
  });

  it("refuses a checkout that lists one add-on twice, before the provider charges anything", async () => {
    const o = await ownerOrg(stack);
    const before = stack.sim.state.transactions.size;
    const res = await o.owner("POST", "/api/v1/billing/checkout", { addons: [{ id: "monitors_standard", quantity: 1 }, { id: "monitors_standard", quantity: 2 }], cycle: "monthly" });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_ERROR");
    expect(res.body.details.issues).toEqual([{ path: "body.addons.1.id", message: "monitors_standard is listed twice; give its total quantity once" }]);
    expect(stack.sim.state.transactions.size).toBe(before);
  });

  it("only the owner manages billing; members read it", async () => {
    const o = await ownerOrg(stack);
    const denied = await o.key("POST", "/api/v1/billing/checkout", { plan: "pro" });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe("PERMISSION_DENIED");
    expect((await o.key("GET", "/api/v1/billing/subscription")).body).toMatchObject({ status: "active", plan: { id: "free" }, lines: [] });
    expect((await o.key("GET", "/api/v1/billing/plans")).body.addons).toHaveLength(12);
  });
});
