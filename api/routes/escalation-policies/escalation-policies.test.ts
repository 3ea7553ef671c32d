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

async function setup() {
  const o = await makeOrg(api.sql, "business");
  const call = client(api.url, { key: o.api_key });
  const ch = async (n: string) => (await call("POST", "/api/v1/alert-channels", { name: n, type: "webhook", config: { url: `http://127.0.0.1:9/${n}` } })).body.id as string;
  const mon = await call("POST", "/api/v1/monitors", { name: "Shop", type: "http", config: { url: "https://shop.example" } });
  // It checks from the regions the results below come from (results from elsewhere are not evaluated).
  await api.sql`update monitors set regions = '{eu-west}' where id = ${mon.body.id}`;
  return { ...o, call, a: await ch("a"), b: await ch("b"), c: await ch("c"), monitorId: mon.body.id as string };
}

describe("/escalation-policies", () => {
  it("creates, reads, patches, lists and deletes a policy", async () => {
    const s = await setup();
    const res = await s.call("POST", "/api/v1/escalation-policies", { name: "On call", steps: [{ delay_minutes: 0, channel_ids: [s.a] }, { delay_minutes: 15, channel_ids: [s.b, s.c] }] });
    expect(res.status).toBe(201);
    expect(res.body.steps).toEqual([{ delay_minutes: 0, channel_ids: [s.a] }, { delay_minutes: 15, channel_ids: [s.b, s.c] }]);
    const patched = await s.call("PATCH", `/api/v1/escalation-policies/${res.body.id}`, { name: "Night" });
    expect(patched.body.name).toBe("Night");
    expect((await s.call("GET", "/api/v1/escalation-policies")).body.pagination.total).toBe(1);
    expect((await s.call("DELETE", `/api/v1/escalation-policies/${res.body.id}`)).status).toBe(204);
    expect((await s.call("GET", `/api/v1/escalation-policies/${res.body.id}`)).status).toBe(404);
  });

  it("refuses unknown channels and steps whose delays do not increase", async () => {
    const s = await setup();
    const bad = await s.call("POST", "/api/v1/escalation-policies", { name: "x", steps: [{ delay_minutes: 5, channel_ids: ["ach_nope"] }] });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.details)).toContain("body.steps.0.channel_ids.0");
    const order = await s.call("POST", "/api/v1/escalation-policies", { name: "x", steps: [{ delay_minutes: 5, channel_ids: [s.a] }, { delay_minutes: 5, channel_ids: [s.b] }] });
    expect(JSON.stringify(order.body.details)).toContain("body.steps.1.delay_minutes");
  });

  it("expands into channel bindings for a rule that uses it, and cannot be deleted while used", async () => {
    const s = await setup();
    const { body: policy } = await s.call("POST", "/api/v1/escalation-policies", { name: "On call", steps: [{ delay_minutes: 0, channel_ids: [s.a] }, { delay_minutes: 15, channel_ids: [s.b] }] });
    const rule = await s.call("POST", "/api/v1/alert-rules", { name: "Down", scope: { type: "all_monitors" }, condition: { type: "status_change", to: ["down"] }, escalation_policy_id: policy.id });
    expect(rule.status).toBe(201);
    expect(rule.body).toMatchObject({ channels: [], escalation_policy_id: policy.id });
    const both = await s.call("POST", "/api/v1/alert-rules", { name: "x", scope: { type: "all_monitors" }, condition: { type: "status_change", to: ["down"] }, escalation_policy_id: policy.id, channels: [{ channel_id: s.a }] });
    expect(both.status).toBe(400);
    await evaluateResults({ sql: api.sql, rules: new RuleCache(api.sql, silentLogger), publicBaseUrl: "x" }, [result(s.org_id, s.monitorId, "down")]);
    const sent = await api.sql`select channel_id, kind from alert_deliveries where org_id = ${s.org_id}`;
    expect(sent.map((d) => `${d.channel_id === s.a ? "a" : "?"} ${d.kind}`)).toEqual(["a alert"]);
    const [state] = await api.sql`select next_due_at, fired_at from alert_states where org_id = ${s.org_id}`;
    expect(state!.next_due_at.getTime() - state!.fired_at.getTime()).toBe(15 * 60_000);
    expect((await s.call("DELETE", `/api/v1/escalation-policies/${policy.id}`)).status).toBe(409);
  });

  it("keeps a config key: unique per organisation (409), kept across a rename, cleared with null", async () => {
    const a = await setup();
    const b = await setup();
    const body = (s: { a: string }) => ({ name: "On call", steps: [{ delay_minutes: 0, channel_ids: [s.a] }] });
    const created = await a.call("POST", "/api/v1/escalation-policies", { ...body(a), key: "on-call" });
    expect(created.status).toBe(201);
    expect(created.body.key).toBe("on-call");
    expect((await a.call("POST", "/api/v1/escalation-policies", { ...body(a), key: "on-call" })).status).toBe(409);
    const plain = await a.call("POST", "/api/v1/escalation-policies", body(a));
    expect(plain.body.key).toBeNull();
    expect((await a.call("PATCH", `/api/v1/escalation-policies/${plain.body.id}`, { key: "on-call" })).status).toBe(409);
    expect((await a.call("POST", "/api/v1/escalation-policies", { ...body(a), key: "shop/on-call" })).body.key).toBe("shop/on-call");
    expect((await a.call("POST", "/api/v1/escalation-policies", { ...body(a), key: "a/b/on-call" })).status).toBe(400);
    expect((await a.call("PATCH", `/api/v1/escalation-policies/${created.body.id}`, { name: "Night" })).body).toMatchObject({ name: "Night", key: "on-call" });
    expect((await a.call("PATCH", `/api/v1/escalation-policies/${created.body.id}`, { key: null })).body.key).toBeNull();
    expect((await b.call("POST", "/api/v1/escalation-policies", { ...body(b), key: "on-call" })).status).toBe(201);
  });
});
