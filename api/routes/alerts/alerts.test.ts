import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createChannelContext } from "../../../alerting/channels/index.ts";
import { type HttpReceiver, startHttpReceiver } from "../../../alerting/channels/testing.ts";
import { type DispatcherDeps, runDueDeliveries } from "../../../alerting/runtime/dispatcher.ts";
import { evaluateResults } from "../../../alerting/runtime/evaluate.ts";
import { RuleCache } from "../../../alerting/runtime/rule-cache.ts";
import { result, testBox } from "../../../alerting/testing/fixtures.ts";
import { silentLogger } from "../../../core/log.ts";
import { client, makeOrg, startTestApi, type TestApi } from "../../../tests/support/api.ts";

let api: TestApi;
let receiver: HttpReceiver;
beforeAll(async () => {
  api = await startTestApi({ ALLOW_PRIVATE_IPS: "true" });
  receiver = await startHttpReceiver();
}, 60_000);
afterAll(async () => {
  await receiver.close();
  await api.stop();
}, 60_000);

const dispatcher = (): DispatcherDeps => ({
  sql: api.sql,
  box: testBox,
  log: silentLogger,
  rules: new RuleCache(api.sql, silentLogger),
  channelCtx: createChannelContext({ publicBaseUrl: "http://x", allowPrivateAddresses: true, timeoutMs: 2000 }),
  publicBaseUrl: "http://x",
  leaseMs: 10_000,
  maxAttempts: 1,
  retryBaseMs: 10,
  retryMaxMs: 10,
});

async function withAlerts() {
  const o = await makeOrg(api.sql, "pro");
  const call = client(api.url, { key: o.api_key });
  const good = (await call("POST", "/api/v1/alert-channels", { name: "good", type: "webhook", config: { url: `${receiver.url}/ok` } })).body.id;
  const mon = (await call("POST", "/api/v1/monitors", { name: "Shop", type: "http", config: { url: "https://shop.example" } })).body.id;
  // It checks from the regions the results below come from (results from elsewhere are not evaluated).
  await api.sql`update monitors set regions = '{eu-west}' where id = ${mon}`;
  const rule = (await call("POST", "/api/v1/alert-rules", { name: "Down", scope: { type: "all_monitors" }, condition: { type: "status_change", to: ["down"] }, channels: [{ channel_id: good }] })).body.id;
  const evaluate = (status: "up" | "down") => evaluateResults({ sql: api.sql, rules: new RuleCache(api.sql, silentLogger), publicBaseUrl: "x" }, [result(o.org_id, mon, status)]);
  await evaluate("down");
  await runDueDeliveries(dispatcher());
  receiver.failNext("permanent");
  await evaluate("up");
  await runDueDeliveries(dispatcher());
  return { ...o, call, good, mon, rule };
}

describe("/alerts/history, /notifications, /alert-capabilities", () => {
  it("lists every attempt with filters", async () => {
    const s = await withAlerts();
    const all = await s.call("GET", "/api/v1/alerts/history");
    expect(all.status).toBe(200);
    expect(all.body.data.map((h: { kind: string; status: string }) => `${h.kind}:${h.status}`).sort()).toEqual(["alert:sent", "recovery:failed"]);
    expect(all.body.data[0]).toMatchObject({ rule_id: s.rule, monitor_id: s.mon, channel_id: s.good, channel_type: "webhook", region: "eu-west" });
    expect((await s.call("GET", "/api/v1/alerts/history?kind=recovery")).body.data).toHaveLength(1);
    expect((await s.call("GET", "/api/v1/alerts/history?status=failed")).body.data[0].http_status).toBe(400);
    expect((await s.call("GET", `/api/v1/alerts/history?rule_id=${s.rule}&channel_id=${s.good}&monitor_id=${s.mon}`)).body.pagination.total).toBe(2);
    expect((await s.call("GET", "/api/v1/alerts/history?from=2999-01-01T00:00:00Z")).body.data).toHaveLength(0);
    expect((await s.call("GET", "/api/v1/alerts/history?region=eu-west")).body.data).toHaveLength(2);
    expect((await s.call("GET", "/api/v1/alerts/history?region=us-east")).body.data).toHaveLength(0);
    const one = all.body.data[0];
    expect((await s.call("GET", `/api/v1/alerts/history?delivery_id=${one.delivery_id}`)).body.data.map((h: { id: string }) => h.id)).toEqual([one.id]);
  });

  it("keeps an in-app feed with an unread count, mark one and mark all read", async () => {
    const s = await withAlerts();
    const feed = await s.call("GET", "/api/v1/notifications");
    expect(feed.body.data.map((n: { type: string }) => n.type).sort()).toEqual(["alert.fired", "alert.recovered", "delivery.failed"]);
    expect((await s.call("GET", "/api/v1/notifications/unread-count")).body).toEqual({ unread: 3 });
    const one = await s.call("POST", `/api/v1/notifications/${feed.body.data[0].id}/read`);
    expect(one.body.read).toBe(true);
    expect((await s.call("GET", "/api/v1/notifications/unread-count")).body).toEqual({ unread: 2 });
    expect((await s.call("GET", "/api/v1/notifications?unread=true")).body.data).toHaveLength(2);
    expect((await s.call("POST", "/api/v1/notifications/read-all")).body).toEqual({ marked: 2 });
    expect((await s.call("GET", "/api/v1/notifications/unread-count")).body).toEqual({ unread: 0 });
    expect((await s.call("POST", "/api/v1/notifications/ntf_nope/read")).status).toBe(404);
  });

  it("describes the plan's alerting capabilities", async () => {
    const o = await makeOrg(api.sql, "starter");
    const res = await client(api.url, { key: o.api_key })("GET", "/api/v1/alert-capabilities");
    expect(res.status).toBe(200);
    expect(res.body.limits).toEqual({ alert_rules: 15, alert_channels: 10 });
    expect(res.body.channel_types.map((c: { type: string }) => c.type)).toContain("pagerduty");
    expect(res.body.channel_types.find((c: { type: string }) => c.type === "opsgenie").receives_acknowledgements).toBe(true);
    expect(res.body.condition_types).toHaveLength(7);
  });
});
