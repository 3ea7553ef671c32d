import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { Sql } from "../../db/client.ts";
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

  it("self_hosted_browser: a browser monitor on runners only takes a self-hosted browser slot (1-minute minimum), not a cloud one", async () => {
    const pro = await org("pro");
    const runner = (await pro.call("POST", "/api/v1/runners", { name: "r" })).body.id as string;
    const selfHosted = (interval: number) => ({ name: "sh", type: "browser_lite", config: { url: "https://example.test/" }, interval_seconds: interval, runner_ids: [runner] });
    const fast = await pro.call("POST", "/api/v1/monitors", selfHosted(30));
    expect(fast.status).toBe(403);
    expect(fast.body.details).toMatchObject({ entitlement: "min_interval_seconds", minimum: 60, requested: 30, slot: "self_hosted_browser" });
    const first = await pro.call("POST", "/api/v1/monitors", selfHosted(60));
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ regions: [], runner_ids: [runner] });
    expect((await pro.call("POST", "/api/v1/monitors", { ...selfHosted(60), type: "browser_flow", config: { url: "https://example.test/", steps: [{ action: "navigate", url: "https://example.test/" }] } })).status).toBe(201);
    const third = await pro.call("POST", "/api/v1/monitors", selfHosted(300));
    expect(third.status).toBe(403);
    expect(third.body.details).toMatchObject({ entitlement: "self_hosted_browser", limit: 2, used: 2 });
    // Cloud Lite slots are untouched, and moving a cloud browser monitor onto runners needs a free self-hosted slot.
    const cloud = await pro.call("POST", "/api/v1/monitors", { ...selfHosted(300), runner_ids: [] });
    expect(cloud.status).toBe(201);
    const usage = (await pro.call("GET", "/api/v1/entitlements")).body.usage;
    expect(usage.self_hosted_browser).toEqual({ used: 2, limit: 2 });
    expect(usage.lite_browser).toEqual({ used: 1, limit: 3 });
    const moved = await pro.call("PATCH", `/api/v1/monitors/${cloud.body.id}`, { regions: [], runner_ids: [runner] });
    expect(moved.status).toBe(403);
    expect(moved.body.details.entitlement).toBe("self_hosted_browser");
    // Starter has no self-hosted browser slot until the add-on.
    const starter = await org("starter");
    const r2 = (await starter.call("POST", "/api/v1/runners", { name: "r" })).body.id as string;
    const none = await starter.call("POST", "/api/v1/monitors", { ...selfHosted(60), runner_ids: [r2] });
    expect(none.body.details).toMatchObject({ entitlement: "self_hosted_browser", limit: 0 });
    await giveAddon(api.sql, starter.org_id, "self_hosted_browser", 1);
    expect((await starter.call("POST", "/api/v1/monitors", { ...selfHosted(60), runner_ids: [r2] })).status).toBe(201);
  });

  it("runner_ids must name the organisation's own live runners", async () => {
    const a = await org("pro");
    const b = await org("pro");
    const foreign = (await b.call("POST", "/api/v1/runners", { name: "theirs" })).body.id as string;
    const res = await a.call("POST", "/api/v1/monitors", { ...http(300), runner_ids: [foreign] });
    expect(res.status).toBe(400);
    expect(res.body.details.issues[0].path).toBe("body.runner_ids");
  });

  it("regions: adding regions beyond the plan's per-monitor limit by PATCH is refused", async () => {
    const multi = await startTestApi({ REGIONS: "eu-west,us-east,ap-south", REGION_LOCATIONS: "eu-west=Frankfurt,us-east=Virginia,ap-south=Mumbai" });
    try {
      const o = await makeOrg(multi.sql, "free");
      const call = client(multi.url, { key: o.api_key });
      const created = await call("POST", "/api/v1/monitors", { ...http(300), regions: ["eu-west", "us-east"] });
      expect(created.status).toBe(201);
      const res = await call("PATCH", `/api/v1/monitors/${created.body.id}`, { regions: ["eu-west", "us-east", "ap-south"] });
      expect(res.status).toBe(403);
      expect(res.body.details).toMatchObject({ entitlement: "regions", limit: 2, requested: 3 });
    } finally {
      await multi.stop();
    }
  });

  it("alert_rules, alert_channels and status_pages: the first one over the plan's quota", async () => {
    const o = await org();
    const channel = { name: "hook", type: "webhook", config: { url: "https://hooks.example.test/x" } };
    const channelIds: string[] = [];
    for (let i = 0; i < 5; i++) {
      const c = await o.call("POST", "/api/v1/alert-channels", channel);
      expect(c.status).toBe(201);
      channelIds.push(c.body.id);
    }
    expect((await o.call("POST", "/api/v1/alert-channels", channel)).body.details).toMatchObject({ entitlement: "alert_channels", limit: 5, used: 5 });
    const rule = { name: "r", scope: { type: "all_monitors" }, condition: { type: "status_change", to: ["down"] }, channels: [{ channel_id: channelIds[0] }] };
    for (let i = 0; i < 10; i++) expect((await o.call("POST", "/api/v1/alert-rules", rule)).status).toBe(201);
    expect((await o.call("POST", "/api/v1/alert-rules", rule)).body.details).toMatchObject({ entitlement: "alert_rules", limit: 10, used: 10 });
    expect((await o.call("POST", "/api/v1/status-pages", { name: "one", slug: `q-${o.org_id}-1`.toLowerCase().replace(/_/g, "-") })).status).toBe(201);
    const page = await o.call("POST", "/api/v1/status-pages", { name: "two", slug: `q-${o.org_id}-2`.toLowerCase().replace(/_/g, "-") });
    expect(page.status).toBe(403);
    expect(page.body.details).toMatchObject({ entitlement: "status_pages", limit: 1, used: 1 });
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

describe("the refusal says what raises the limit", () => {
  it("names an add-on the plan can buy, or the plan to upgrade to when no add-on is on sale for it", async () => {
    const o = await org();
    await insertMonitors(api.sql, o.org_id, 20);
    const monitors = await o.call("POST", "/api/v1/monitors", http(300));
    expect(monitors.body.error).toBe("The Free plan allows 20 monitors, all in use: upgrade to Starter (50) or buy the add-on \"+25 Standard uptime monitors (5 min minimum interval)\"");
    const page = await o.call("POST", "/api/v1/status-pages", { name: "one", slug: `m-${o.org_id}-1`.toLowerCase().replace(/_/g, "-") });
    expect(page.status).toBe(201);
    const second = await o.call("POST", "/api/v1/status-pages", { name: "two", slug: `m-${o.org_id}-2`.toLowerCase().replace(/_/g, "-") });
    // +3 Status pages needs Pro: not something a Free organisation can buy.
    expect(second.body.error).toBe("The Free plan allows 1 status page, all in use: upgrade to Starter (3)");
    const runner = await o.call("POST", "/api/v1/runners", { name: "r" });
    expect(runner.body.error).toBe("The Free plan allows 0 self-hosted runners: upgrade to Starter (1)");
  });

  it("names the plan a shorter check interval needs", async () => {
    const o = await org();
    const res = await o.call("POST", "/api/v1/monitors", http(60));
    expect(res.body.error).toBe("The Free plan checks at most every 300 s (60 s asked): upgrade to Starter (every 60 s)");
    const business = await org("business");
    const fastest = await business.call("POST", "/api/v1/monitors", http(10));
    expect(fastest.status).toBe(403);
    expect(fastest.body.error).toBe("The Business plan checks at most every 30 s (10 s asked), and no plan checks more often");
    const starter = await org("starter");
    const realtime = await starter.call("POST", "/api/v1/monitors", http(30));
    // The real-time add-on needs Pro too: the upgrade is the only way.
    expect(realtime.body.error).toBe("The Starter plan checks at most every 60 s (30 s asked): upgrade to Pro (every 30 s)");
  });

  it("names what frees a fast or real-time slot: a plan with more, an add-on, or a longer interval", async () => {
    const o = await org("starter");
    await insertMonitors(api.sql, o.org_id, 50, { interval: 60 });
    const res = await o.call("POST", "/api/v1/monitors", http(120));
    expect(res.status).toBe(403);
    expect(res.body.details).toMatchObject({ entitlement: "monitors_fast", limit: 50, used: 50 });
    expect(res.body.error).toBe(
      'The Starter plan allows 50 monitors checking every 60–299 s, all in use (120 s asked): upgrade to Pro (150), or buy the add-on "+25 Fast uptime monitors (1 min minimum interval)", or check every 300 s or less often',
    );
    const pro = await org("pro");
    await insertMonitors(api.sql, pro.org_id, 150, { interval: 30 });
    const over = await pro.call("POST", "/api/v1/monitors", http(30));
    expect(over.body.details.entitlement).toBe("monitors_realtime");
    expect(over.body.error).toStartWith("The Pro plan allows 150 monitors checking every 30–59 s, all in use (30 s asked): upgrade to Business (500), or buy the add-on");
    expect(over.body.error).toEndWith(", or check every 60 s or less often");
  });

  it("says when no plan offers more", async () => {
    const o = await org("business");
    const channel = (await o.call("POST", "/api/v1/alert-channels", { name: "hook", type: "webhook", config: { url: "https://hooks.example.test/x" } })).body.id;
    const rule = { name: "r", scope: { type: "all_monitors" }, condition: { type: "status_change", to: ["down"] }, channels: [{ channel_id: channel }] };
    for (let i = 0; i < 50; i++) expect((await o.call("POST", "/api/v1/alert-rules", rule)).status).toBe(201);
    const res = await o.call("POST", "/api/v1/alert-rules", rule);
    expect(res.status).toBe(403);
    expect(res.body.error).toBe("The Business plan allows 50 alert rules, all in use, and no plan offers more: delete one first");
  });
});

describe("GET /entitlements usage", () => {
  it("counts every slot quota the limits list, real-time Lite browser slots included", async () => {
    const o = await org("pro");
    await insertMonitors(api.sql, o.org_id, 1, { type: "browser_lite", interval: 30 });
    const ent = (await o.call("GET", "/api/v1/entitlements")).body;
    expect(ent.usage.lite_browser_realtime).toEqual({ used: 1, limit: 3 });
    for (const quota of Object.keys(ent.limits).filter((q) => /_(fast|realtime)$/.test(q))) expect(ent.usage[quota]).toBeDefined();
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
