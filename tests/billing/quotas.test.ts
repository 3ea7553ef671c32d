import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { Sql } from "../../core/db/client.ts";
import { newId } from "../../core/ids.ts";
import { client, makeOrg, startTestApi, type TestApi } from "../support/api.ts";
import { insertMonitors } from "./support.ts";

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.stop());

async function org(plan = "free") {
  const o = await makeOrg(api.sql, plan);
  return { ...o, call: client(api.url, { key: o.api_key }) };
}

/** A live add-on line as the webhook sync would leave it (no provider in this file). */
async function giveAddon(sql: Sql, orgId: string, addonId: string, quantity: number) {
  const subId = newId("bsub");
  const now = new Date();
  const end = new Date(now.getTime() + 30 * 86_400_000);
  await sql`insert into billing_subscriptions (id, org_id, provider_subscription_id, cycle, provider_status, period_start, period_end, provider_occurred_at)
            values (${subId}, ${orgId}, ${`sub_${subId}`}, 'monthly', 'active', ${now}, ${end}, ${now})`;
  await sql`insert into billing_lines (id, org_id, subscription_id, kind, product_id, quantity, cycle, unit_price_cents, status, period_start, period_end)
            values (${newId("bln")}, ${orgId}, ${subId}, 'addon', ${addonId}, ${quantity}, 'monthly', 499, 'active', ${now}, ${end})`;
}

const http = (interval: number) => ({ name: "m", type: "http", config: { url: "https://example.test/" }, interval_seconds: interval });

describe("403 ENTITLEMENT_REQUIRED names the entitlement", () => {
  it("monitors: the 21st uptime monitor on Free", async () => {
    const o = await org();
    await insertMonitors(api.sql, o.org_id, 20);
    const res = await o.call("POST", "/api/v1/monitors", http(300));
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: "ENTITLEMENT_REQUIRED", details: { entitlement: "monitors", limit: 20, used: 20, plan: "free" } });
  });

  it("min_interval_seconds: a 1-minute check on Free without a fast slot", async () => {
    const o = await org();
    const res = await o.call("POST", "/api/v1/monitors", http(60));
    expect(res.status).toBe(403);
    expect(res.body.details).toMatchObject({ entitlement: "min_interval_seconds", minimum: 300, requested: 60 });
  });

  it("monitors_fast: add-on slots stack on Free and run out at 25", async () => {
    const o = await org();
    await giveAddon(api.sql, o.org_id, "monitors_fast", 1);
    const ent = (await o.call("GET", "/api/v1/entitlements")).body;
    expect(ent.limits).toMatchObject({ monitors: 45, monitors_fast: 25, monitors_realtime: 0, min_interval_seconds: 60 });
    const ids = await insertMonitors(api.sql, o.org_id, 25, { interval: 60 });
    const res = await o.call("POST", "/api/v1/monitors", http(60));
    expect(res.status).toBe(403);
    expect(res.body.details).toMatchObject({ entitlement: "monitors_fast", limit: 25, used: 25 });
    // A 5-minute monitor still fits the standard slots; editing a fast monitor does not count it twice.
    expect((await o.call("POST", "/api/v1/monitors", http(300))).status).toBe(201);
    const patched = await o.call("PATCH", `/api/v1/monitors/${ids[0]}`, { name: "renamed" });
    expect(patched.status).toBe(200);
    expect((await o.call("PATCH", `/api/v1/monitors/${ids[0]}`, { interval_seconds: 30, timeout_ms: 10000 })).body.details.entitlement).toBe("min_interval_seconds");
  });

  it("monitors_realtime: 30-second checks need a real-time slot (Starter has none)", async () => {
    const o = await org("starter");
    const res = await o.call("POST", "/api/v1/monitors", http(30));
    expect(res.status).toBe(403);
    expect(res.body.details.entitlement).toBe("min_interval_seconds");
    const pro = await org("pro");
    await insertMonitors(api.sql, pro.org_id, 150, { interval: 30 });
    const over = await pro.call("POST", "/api/v1/monitors", http(30));
    expect(over.status).toBe(403);
    expect(over.body.details.entitlement).toBe("monitors_realtime");
  });

  it("lite_browser and flow_browser", async () => {
    const o = await org();
    const lite = await o.call("POST", "/api/v1/monitors", { name: "b", type: "browser_lite", config: { url: "https://example.test/" }, interval_seconds: 300 });
    expect(lite.status).toBe(403);
    expect(lite.body.details.entitlement).toBe("lite_browser");
    const starter = await org("starter");
    const flow = await starter.call("POST", "/api/v1/monitors", {
      name: "f",
      type: "browser_flow",
      config: { url: "https://example.test/", steps: [{ action: "navigate", url: "https://example.test/" }] },
      interval_seconds: 300,
    });
    expect(flow.status).toBe(403);
    expect(flow.body.details.entitlement).toBe("flow_browser");
  });

  it("runners: none on Free, and a runner add-on adds one", async () => {
    const o = await org();
    const res = await o.call("POST", "/api/v1/runners", { name: "r1" });
    expect(res.status).toBe(403);
    expect(res.body.details).toMatchObject({ entitlement: "runners", limit: 0 });
    const s = await org("starter");
    await giveAddon(api.sql, s.org_id, "runner", 1);
    expect((await s.call("POST", "/api/v1/runners", { name: "r1" })).status).toBe(201);
    expect((await s.call("POST", "/api/v1/runners", { name: "r2" })).status).toBe(201);
    const third = await s.call("POST", "/api/v1/runners", { name: "r3" });
    expect(third.body.details).toMatchObject({ entitlement: "runners", limit: 2 });
  });

  it("members: invitations count against the plan's seats", async () => {
    const o = await org();
    for (const n of [1, 2]) expect((await o.call("POST", "/api/v1/org/invitations", { email: `m${n}@example.test`, role_id: "member" })).status).toBe(201);
    const res = await o.call("POST", "/api/v1/org/invitations", { email: "m3@example.test", role_id: "member" });
    expect(res.status).toBe(403);
    expect(res.body.details).toMatchObject({ entitlement: "members", limit: 3 });
  });

  it("GET /entitlements lists every limit with what the plan and each add-on contribute, and slot usage", async () => {
    const o = await org("pro");
    await giveAddon(api.sql, o.org_id, "members", 2);
    await giveAddon(api.sql, o.org_id, "monitors_realtime", 1);
    await insertMonitors(api.sql, o.org_id, 3, { interval: 30 });
    const ent = (await o.call("GET", "/api/v1/entitlements")).body;
    expect(ent.plan).toEqual({ id: "pro", name: "Pro" });
    expect(ent.billing_enabled).toBe(true);
    expect(ent.limits).toMatchObject({ members: 20, monitors: 175, monitors_fast: 175, monitors_realtime: 175, runners: 3, alert_rules: 25, alert_channels: 20 });
    expect(ent.contributions.members).toEqual({ plan: 10, addons: [{ addon_id: "members", name: "+5 Team members", quantity: 2, adds: 10 }], total: 20 });
    expect(ent.usage.monitors).toEqual({ used: 3, limit: 175 });
    expect(ent.usage.monitors_realtime).toEqual({ used: 3, limit: 175 });
    expect(ent.usage.members).toEqual({ used: 1, limit: 20 });
  });
});

describe("BILLING=off", () => {
  it("gives every organisation the unlimited plan and no provider", async () => {
    const off = await startTestApi({ BILLING: "off" });
    try {
      const o = await makeOrg(off.sql, "free");
      const call = client(off.url, { key: o.api_key });
      const ent = (await call("GET", "/api/v1/entitlements")).body;
      expect(ent.plan.id).toBe("unlimited");
      expect(ent.billing_enabled).toBe(false);
      expect(ent.limits.monitors).toBe(1_000_000);
      expect(ent.limits.min_interval_seconds).toBe(10);
      expect((await call("POST", "/api/v1/monitors", { ...http(10), config: { url: "https://example.test/" } })).status).toBe(201);
      expect((await call("POST", "/api/v1/runners", { name: "r" })).status).toBe(201);
      const sub = (await call("GET", "/api/v1/billing/subscription")).body;
      expect(sub).toMatchObject({ billing_enabled: false, plan: { id: "unlimited" }, banner: null });
    } finally {
      await off.stop();
    }
  });
});
