import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { client, makeOrg, startTestApi, type TestApi } from "../../../tests/support/api.ts";

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ ALLOW_PRIVATE_IPS: "true" });
}, 60_000);
afterAll(async () => {
  await api.stop();
}, 60_000);

async function setup() {
  const o = await makeOrg(api.sql, "business");
  const call = client(api.url, { key: o.api_key });
  const ch = await call("POST", "/api/v1/alert-channels", { name: "hook", type: "webhook", config: { url: "http://127.0.0.1:9/x" } });
  const mon = await call("POST", "/api/v1/monitors", { name: "Shop", type: "http", config: { url: "https://shop.example" } });
  return { ...o, call, channelId: ch.body.id as string, monitorId: mon.body.id as string };
}

const rule = (channelId: string, extra: Record<string, unknown> = {}) => ({
  name: "Slow",
  scope: { type: "all_monitors" },
  condition: { type: "metric_threshold", metric: "response_time", operator: "gt", threshold: 800 },
  channels: [{ channel_id: channelId }],
  ...extra,
});

describe("metric_threshold metrics", () => {
  it("refuses an unknown metric with 400, listing the valid metrics per monitor type", async () => {
    const { call, channelId } = await setup();
    const res = await call("POST", "/api/v1/alert-rules", rule(channelId, { condition: { type: "metric_threshold", metric: "respnse_time", operator: "gt", threshold: 1 } }));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_ERROR");
    const issue = res.body.details.issues.find((i: { path: string }) => i.path === "body.condition.metric");
    expect(issue.message).toContain("respnse_time");
    expect(issue.message).toContain("ping: ");
    expect(issue.message).toContain("packet_loss_pct");
    expect(res.body.details.metrics_by_monitor_type.ssl).toContain("ssl_days_remaining");
    expect(res.body.details.metrics_by_monitor_type.http).toContain("response_time");
  });

  it("accepts the spec's metrics and any numeric result field", async () => {
    const { call, channelId } = await setup();
    for (const metric of ["response_time", "duration_ms", "ssl_days_remaining", "packet_loss_pct", "ttfb_ms"]) {
      const res = await call("POST", "/api/v1/alert-rules", rule(channelId, { condition: { type: "metric_threshold", metric, operator: "gt", threshold: 1 } }));
      expect(res.status).toBe(201);
    }
  });

  it("refuses a metric the scoped monitor's type never reports", async () => {
    const { call, channelId, monitorId } = await setup();
    const res = await call(
      "POST",
      "/api/v1/alert-rules",
      rule(channelId, { scope: { type: "monitor", monitor_id: monitorId }, condition: { type: "metric_threshold", metric: "packet_loss_pct", operator: "gt", threshold: 5 } }),
    );
    expect(res.status).toBe(400);
    const issue = res.body.details.issues.find((i: { path: string }) => i.path === "body.condition.metric");
    expect(issue.message).toContain("http monitors do not report packet_loss_pct");
  });

  it("enumerates the metrics in the OpenAPI document", async () => {
    const doc = (await client(api.url)("GET", "/openapi.json")).body;
    let body = doc.paths["/api/v1/alert-rules"].post.requestBody.content["application/json"].schema;
    if (body.$ref) body = doc.components.schemas[body.$ref.split("/").pop()];
    // condition is one of the registry's condition components: read the ones it refers to.
    const condition = body.properties.condition;
    const refs = (condition.oneOf ?? []).map((s: { $ref?: string }) => s.$ref && doc.components.schemas[s.$ref.split("/").pop()!]);
    const text = JSON.stringify([condition, ...refs]);
    expect(text).toContain("packet_loss_pct");
    expect(text).toContain("ssl_days_remaining");
    expect(text).toContain("domain_days_remaining");
  });
});

describe("rules and deleted monitors", () => {
  it("disables a rule whose monitor was deleted and says why; it stays editable and needs a new scope to be enabled", async () => {
    const { call, channelId, monitorId } = await setup();
    const created = await call("POST", "/api/v1/alert-rules", rule(channelId, { scope: { type: "monitor", monitor_id: monitorId } }));
    expect(created.body.disabled_reason).toBeNull();
    expect((await call("DELETE", `/api/v1/monitors/${monitorId}`)).status).toBe(204);
    const after = (await call("GET", `/api/v1/alert-rules/${created.body.id}`)).body;
    expect(after.enabled).toBe(false);
    expect(after.disabled_reason).toContain(monitorId);
    expect(after.disabled_reason).toContain("was deleted");
    const renamed = await call("PATCH", `/api/v1/alert-rules/${created.body.id}`, { name: "Slow (old shop)" });
    expect(renamed.status).toBe(200);
    expect(renamed.body.disabled_reason).toContain("was deleted");
    const enabled = await call("PATCH", `/api/v1/alert-rules/${created.body.id}`, { enabled: true });
    expect(enabled.status).toBe(400);
    expect(enabled.body.details.issues[0].path).toBe("body.scope.monitor_id");
    const rescoped = await call("PATCH", `/api/v1/alert-rules/${created.body.id}`, { enabled: true, scope: { type: "all_monitors" } });
    expect(rescoped.status).toBe(200);
    expect(rescoped.body).toMatchObject({ enabled: true, disabled_reason: null });
  });
});

describe("inputs that make no sense", () => {
  it("refuses a keyword_missing rule on a monitor that does not look for that keyword", async () => {
    const { call, channelId, monitorId } = await setup();
    const kw = await call("POST", "/api/v1/monitors", { name: "Cart", type: "keyword", config: { url: "https://shop.example/cart", keyword: "Checkout" } });
    const make = (monitor: string, keyword: string) =>
      call("POST", "/api/v1/alert-rules", rule(channelId, { scope: { type: "monitor", monitor_id: monitor }, condition: { type: "keyword_missing", keyword } }));
    const onHttp = await make(monitorId, "Checkout");
    expect(onHttp.status).toBe(400);
    expect(onHttp.body.details.issues[0]).toEqual({ path: "body.condition.keyword", message: 'keyword_missing reads what a keyword monitor (or a Browser Lite monitor with a keyword) found; monitor "Shop" is of type http' });
    const other = await make(kw.body.id, "Add to cart");
    expect(other.status).toBe(400);
    expect(other.body.details.issues[0]).toEqual({ path: "body.condition.keyword", message: 'monitor "Cart" looks for "Checkout", not "Add to cart"; set the monitor\'s keyword or the rule\'s to the same text' });
    expect((await make(kw.body.id, "checkout")).status).toBe(201);
  });

  it("refuses ssl_expiry, domain_expiry and certificate_changed on a monitor whose checks never report what they read", async () => {
    const { call, channelId, monitorId } = await setup();
    const ssl = (await call("POST", "/api/v1/monitors", { name: "Cert", type: "ssl", config: { host: "shop.example" } })).body;
    for (const [condition, field] of [
      [{ type: "ssl_expiry", days_before: 14 }, "ssl_days_remaining"],
      [{ type: "domain_expiry", days_before: 14 }, "domain_days_remaining"],
      [{ type: "certificate_changed" }, "fingerprint_sha256"],
    ] as const) {
      const res = await call("POST", "/api/v1/alert-rules", rule(channelId, { scope: { type: "monitor", monitor_id: monitorId }, condition }));
      expect(res.status).toBe(400);
      expect(res.body.details.issues[0]).toEqual({ path: "body.condition.type", message: `${condition.type} reads ${field}, which http monitors never report; monitor "Shop" would never fire it` });
    }
    expect((await call("POST", "/api/v1/alert-rules", rule(channelId, { scope: { type: "monitor", monitor_id: ssl.id }, condition: { type: "certificate_changed" } }))).status).toBe(201);
  });

  it("refuses recurring_interval_minutes 0 with a message a person understands", async () => {
    const { call, channelId } = await setup();
    const res = await call("POST", "/api/v1/alert-rules", rule(channelId, { notifications: { recurring: true, recurring_interval_minutes: 0 } }));
    expect(res.status).toBe(400);
    const issue = res.body.details.issues.find((i: { path: string }) => i.path === "body.notifications.recurring_interval_minutes");
    expect(issue.message).toBe("Expected a whole number from 1 to 10080, or null");
  });

  it("refuses runner_ids on a heartbeat monitor instead of dropping them", async () => {
    const { call } = await setup();
    const runner = await call("POST", "/api/v1/runners", { name: "basement" });
    const res = await call("POST", "/api/v1/monitors", { name: "Cron", type: "heartbeat", config: {}, runner_ids: [runner.body.id] });
    expect(res.status).toBe(400);
    const issue = res.body.details.issues.find((i: { path: string }) => i.path === "body.runner_ids");
    expect(issue.message).toContain("heartbeat monitors are pinged by the target");
  });
});
