import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { RuleCache } from "../../../alerting/runtime/rule-cache.ts";
import { evaluateResults } from "../../../alerting/runtime/evaluate.ts";
import { result } from "../../../alerting/testing/fixtures.ts";
import { silentLogger } from "../../../core/log.ts";
import { client, makeOrg, startTestApi, type TestApi } from "../../../tests/support/api.ts";

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ ALLOW_PRIVATE_IPS: "true" });
}, 60_000);
afterAll(async () => {
  await api.stop();
}, 60_000);

async function setup(plan = "free") {
  const o = await makeOrg(api.sql, plan);
  const call = client(api.url, { key: o.api_key });
  const ch = await call("POST", "/api/v1/alert-channels", { name: "hook", type: "webhook", config: { url: "http://127.0.0.1:9/x" } });
  const mon = await call("POST", "/api/v1/monitors", { name: "Shop", type: "http", config: { url: "https://shop.example" }, tags: ["prod"] });
  // It checks from the regions the results below come from (results from elsewhere are not evaluated).
  await api.sql`update monitors set regions = '{eu-west,us-east}' where id = ${mon.body.id}`;
  return { ...o, call, channelId: ch.body.id as string, monitorId: mon.body.id as string };
}

const downRule = (channelId: string, extra: Record<string, unknown> = {}) => ({
  name: "Shop down",
  scope: { type: "all_monitors" },
  condition: { type: "status_change", to: ["down", "timeout"] },
  channels: [{ channel_id: channelId }],
  ...extra,
});

describe("/alert-rules", () => {
  it("creates a rule and answers with every default filled in", async () => {
    const { call, channelId } = await setup();
    const res = await call("POST", "/api/v1/alert-rules", downRule(channelId, { condition: { type: "status_change", to: ["down"], from: ["up"] } }));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: "Shop down",
      description: null,
      enabled: true,
      scope: { type: "all_monitors" },
      condition: { type: "status_change", to: ["down"], from: ["up"] },
      confirmation: { consecutive_failures: 1, confirmation_regions: null },
      notifications: { on_recovery: true, recurring: false, recurring_interval_minutes: null },
      channels: [{ channel_id: channelId, delay_minutes: 0 }],
      escalation_policy_id: null,
    });
    expect((await call("GET", `/api/v1/alert-rules/${res.body.id}`)).body).toEqual(res.body);
  });

  it("accepts each condition type with its fields", async () => {
    const { call, channelId } = await setup("business");
    const conditions = [
      { type: "status_change", to: ["degraded"] },
      { type: "metric_threshold", metric: "response_time", operator: "gte", threshold: 800 },
      { type: "ssl_expiry", days_before: 14 },
      { type: "domain_expiry", days_before: 30 },
      { type: "keyword_missing", keyword: "Add to cart" },
      { type: "certificate_changed" },
      { type: "monitoring_unavailable" },
    ];
    for (const condition of conditions) {
      // A tag scope: a rule scoped to the one http monitor is refused for conditions its checks cannot answer (rule-edges.test.ts).
      const res = await call("POST", "/api/v1/alert-rules", downRule(channelId, { condition, scope: { type: "monitor_group", tag: "prod" } }));
      expect(res.status).toBe(201);
      expect(res.body.condition).toEqual(condition);
    }
  });

  it("refuses what the spec forbids, naming the field", async () => {
    const { call, channelId } = await setup();
    const cases: [Record<string, unknown>, string][] = [
      [downRule(channelId, { condition: { type: "status_change", to: [] } }), "body.condition.to"],
      [downRule(channelId, { condition: { type: "status_change", to: ["sideways"] } }), "body.condition.to"],
      [downRule(channelId, { condition: { type: "ssl_expiry", days_before: 0 } }), "body.condition.days_before"],
      [downRule(channelId, { condition: { type: "domain_expiry" } }), "body.condition.days_before"],
      [downRule(channelId, { condition: { type: "metric_threshold", metric: "x", operator: "approx", threshold: 1 } }), "body.condition.operator"],
      [downRule(channelId, { condition: { type: "teleport" } }), "body.condition.type"],
      [downRule(channelId, { scope: { type: "monitor" } }), "body.scope.monitor_id"],
      [downRule(channelId, { scope: { type: "monitor", monitor_id: "mon_nope" } }), "body.scope.monitor_id"],
      [downRule(channelId, { channels: [{ channel_id: "ach_nope" }] }), "body.channels.0.channel_id"],
      [downRule(channelId, { channels: [] }), "body.channels"],
      [downRule(channelId, { confirmation: { consecutive_failures: 0 } }), "consecutive_failures"],
      [downRule(channelId, { notifications: { recurring: true, recurring_interval_minutes: 0 } }), "recurring_interval_minutes"],
      [downRule(channelId, { channels: [{ channel_id: channelId, delay_minutes: -1 }] }), "delay_minutes"],
    ];
    for (const [body, path] of cases) {
      const res = await call("POST", "/api/v1/alert-rules", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(res.body.details), JSON.stringify(body)).toContain(path);
    }
  });

  it("refuses another organisation's channel as unknown", async () => {
    const a = await setup();
    const b = await setup();
    const res = await b.call("POST", "/api/v1/alert-rules", downRule(a.channelId));
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body.details)).toContain("body.channels.0.channel_id");
  });

  it("patches top-level fields and merges notifications", async () => {
    const { call, channelId } = await setup();
    const { body: rule } = await call("POST", "/api/v1/alert-rules", downRule(channelId));
    const res = await call("PATCH", `/api/v1/alert-rules/${rule.id}`, { enabled: false, notifications: { recurring: true, recurring_interval_minutes: 15 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ enabled: false, notifications: { on_recovery: true, recurring: true, recurring_interval_minutes: 15 }, condition: rule.condition });
  });

  it("lists with filters and deletes", async () => {
    const { call, channelId, monitorId } = await setup();
    await call("POST", "/api/v1/alert-rules", downRule(channelId));
    await call("POST", "/api/v1/alert-rules", downRule(channelId, { enabled: false, scope: { type: "monitor", monitor_id: monitorId } }));
    await call("POST", "/api/v1/alert-rules", downRule(channelId, { scope: { type: "monitor_group", tag: "prod" } }));
    expect((await call("GET", "/api/v1/alert-rules")).body.pagination.total).toBe(3);
    expect((await call("GET", "/api/v1/alert-rules?enabled=false")).body.data).toHaveLength(1);
    expect((await call("GET", "/api/v1/alert-rules?scope_type=monitor_group")).body.data[0].scope.tag).toBe("prod");
    // The monitor (tagged prod) is watched by all three: all monitors, itself, its tag.
    expect((await call("GET", `/api/v1/alert-rules?monitor_id=${monitorId}`)).body.data).toHaveLength(3);
    expect((await call("GET", `/api/v1/alert-rules?monitor_id=${monitorId}&scope_type=monitor`)).body.data).toHaveLength(1);
    const untagged = await call("POST", "/api/v1/monitors", { name: "Other", type: "http", config: { url: "https://other.example" } });
    expect((await call("GET", `/api/v1/alert-rules?monitor_id=${untagged.body.id}`)).body.data.map((r: { scope: { type: string } }) => r.scope.type)).toEqual(["all_monitors"]);
    expect((await call("GET", "/api/v1/alert-rules?monitor_id=mon_unknown")).body.data).toHaveLength(0);
    expect((await call("GET", `/api/v1/alert-rules?channel_id=${channelId}`)).body.data).toHaveLength(3);
    expect((await call("GET", `/api/v1/alert-rules?channel_id=ach_other`)).body.data).toHaveLength(0);
    const id = (await call("GET", "/api/v1/alert-rules")).body.data[0].id;
    expect((await call("DELETE", `/api/v1/alert-rules/${id}`)).status).toBe(204);
    expect((await call("GET", `/api/v1/alert-rules/${id}`)).status).toBe(404);
    // A channel a rule still uses cannot be deleted.
    expect((await call("DELETE", `/api/v1/alert-channels/${channelId}`)).status).toBe(409);
  });

  it("enforces the plan's rule quota (Free 10)", async () => {
    const { call, channelId } = await setup("free");
    for (let i = 0; i < 10; i++) expect((await call("POST", "/api/v1/alert-rules", downRule(channelId))).status).toBe(201);
    const over = await call("POST", "/api/v1/alert-rules", downRule(channelId));
    expect(over.status).toBe(403);
    expect(over.body.details).toMatchObject({ entitlement: "alert_rules", limit: 10 });
  });
});

describe("/alert-rules config key", () => {
  it("keeps a key: unique per organisation (409), kept across a rename and other changes, cleared with null", async () => {
    const a = await setup();
    const b = await setup();
    const created = await a.call("POST", "/api/v1/alert-rules", { ...downRule(a.channelId), key: "shop-down" });
    expect(created.status).toBe(201);
    expect(created.body.key).toBe("shop-down");
    expect((await a.call("POST", "/api/v1/alert-rules", { ...downRule(a.channelId), key: "shop-down" })).status).toBe(409);
    const plain = await a.call("POST", "/api/v1/alert-rules", downRule(a.channelId));
    expect(plain.body.key).toBeNull();
    expect((await a.call("PATCH", `/api/v1/alert-rules/${plain.body.id}`, { key: "shop-down" })).status).toBe(409);
    expect((await a.call("POST", "/api/v1/alert-rules", { ...downRule(a.channelId), key: "Bad Key" })).status).toBe(400);
    expect((await a.call("POST", "/api/v1/alert-rules", { ...downRule(a.channelId), key: "shop/shop-down" })).body.key).toBe("shop/shop-down");
    expect((await a.call("POST", "/api/v1/alert-rules", { ...downRule(a.channelId), key: "a.b/shop-down" })).status).toBe(400);
    const renamed = await a.call("PATCH", `/api/v1/alert-rules/${created.body.id}`, { name: "Renamed", enabled: false });
    expect(renamed.body).toMatchObject({ name: "Renamed", enabled: false, key: "shop-down" });
    expect((await a.call("GET", `/api/v1/alert-rules/${created.body.id}`)).body.key).toBe("shop-down");
    expect((await a.call("PATCH", `/api/v1/alert-rules/${created.body.id}`, { key: null })).body.key).toBeNull();
    expect((await b.call("POST", "/api/v1/alert-rules", { ...downRule(b.channelId), key: "shop-down" })).status).toBe(201);
  });
});

describe("/alert-rules active alerts and acknowledge", () => {
  const evaluate = (rs: ReturnType<typeof result>[]) =>
    evaluateResults({ sql: api.sql, rules: new RuleCache(api.sql, silentLogger), publicBaseUrl: "http://x" }, rs);

  async function firing() {
    const s = await setup("business");
    const pd = await s.call("POST", "/api/v1/alert-channels", { name: "pd", type: "pagerduty", config: { routing_key: "R0UTINGKEY0123456789abcdefABCDEF" } });
    expect(pd.status).toBe(201);
    const { body: rule } = await s.call("POST", "/api/v1/alert-rules", downRule(s.channelId, { channels: [{ channel_id: s.channelId }, { channel_id: pd.body.id }] }));
    await evaluate([result(s.org_id, s.monitorId, "down", { location: "eu-west" }), result(s.org_id, s.monitorId, "down", { location: "us-east" })]);
    return { ...s, ruleId: rule.id as string, pagerdutyId: pd.body.id as string };
  }

  it("lists one row per firing (rule, monitor, region)", async () => {
    const s = await firing();
    const res = await s.call("GET", "/api/v1/alert-rules/active");
    expect(res.status).toBe(200);
    expect(res.body.data.map((r: { region: string }) => r.region).sort()).toEqual(["eu-west", "us-east"]);
    expect(res.body.data[0]).toMatchObject({ rule_id: s.ruleId, monitor_id: s.monitorId, monitor_name: "Shop", acknowledged: false, consecutive: 1 });
    expect(res.body.data[0].since).toBeTruthy();
    expect(res.body.data[0].last_notified_at).toBeTruthy();
  });

  it("acknowledges one region, and without region every firing region; repeating is harmless", async () => {
    const s = await firing();
    const one = await s.call("POST", `/api/v1/alert-rules/${s.ruleId}/acknowledge`, { monitor_id: s.monitorId, region: "eu-west" });
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ acknowledged: [{ region: "eu-west", already: false }] });
    const acked = (await s.call("GET", "/api/v1/alert-rules/active?acknowledged=true")).body.data;
    expect(acked.map((r: { region: string }) => r.region)).toEqual(["eu-west"]);
    const all = await s.call("POST", `/api/v1/alert-rules/${s.ruleId}/acknowledge`, { monitor_id: s.monitorId });
    expect(all.body.acknowledged).toEqual([
      { region: "eu-west", already: true },
      { region: "us-east", already: false },
    ]);
    const again = await s.call("POST", `/api/v1/alert-rules/${s.ruleId}/acknowledge`, { monitor_id: s.monitorId });
    expect(again.status).toBe(200);
    // Only the paging channel hears of the acknowledgement, once per region.
    const acks = await api.sql`select channel_id, region from alert_deliveries where org_id = ${s.org_id} and kind = 'acknowledgement' order by region`;
    expect(acks.map((a) => `${a.channel_id === s.pagerdutyId ? "pd" : "other"} ${a.region}`)).toEqual(["pd eu-west", "pd us-east"]);
    // Still firing: acknowledged is not resolved.
    expect((await s.call("GET", "/api/v1/alert-rules/active")).body.pagination.total).toBe(2);
  });

  it("answers 404 for an unknown rule or monitor, and 200 with nothing for a region that is not firing", async () => {
    const s = await firing();
    expect((await s.call("POST", "/api/v1/alert-rules/rule_nope/acknowledge", { monitor_id: s.monitorId })).status).toBe(404);
    expect((await s.call("POST", `/api/v1/alert-rules/${s.ruleId}/acknowledge`, { monitor_id: "mon_nope" })).status).toBe(404);
    const other = await setup();
    expect((await other.call("POST", `/api/v1/alert-rules/${s.ruleId}/acknowledge`, { monitor_id: s.monitorId })).status).toBe(404);
    const quiet = await s.call("POST", `/api/v1/alert-rules/${s.ruleId}/acknowledge`, { monitor_id: s.monitorId, region: "ap-south" });
    expect(quiet.body).toEqual({ acknowledged: [] });
  });
});
