import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createChannelContext } from "../../../alerting/channels/index.ts";
import { type HttpReceiver, startHttpReceiver } from "../../../alerting/channels/testing.ts";
import { runDueDeliveries } from "../../../alerting/runtime/dispatcher.ts";
import { evaluateResults } from "../../../alerting/runtime/evaluate.ts";
import { RuleCache } from "../../../alerting/runtime/rule-cache.ts";
import { result, testBox } from "../../../alerting/testing/fixtures.ts";
import { silentLogger } from "../../../core/log.ts";
import { storeResults } from "../../../domain/results/ingest.ts";
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

const send = () =>
  runDueDeliveries({
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

/** An organisation whose webhook-notified rule fires on the monitor's second failing check from eu-west. */
async function setUp() {
  const o = await makeOrg(api.sql, "pro");
  const call = client(api.url, { key: o.api_key });
  const channel = (await call("POST", "/api/v1/alert-channels", { name: "Ops hook", type: "webhook", config: { url: `${receiver.url}/ok` } })).body.id;
  const mon = (await call("POST", "/api/v1/monitors", { name: "Shop", type: "http", config: { url: "https://shop.example" } })).body.id;
  // It checks from eu-west, where the results below come from (results from elsewhere are not evaluated).
  await api.sql`update monitors set regions = '{eu-west}' where id = ${mon}`;
  const rule = (
    await call("POST", "/api/v1/alert-rules", {
      name: "Shop down",
      scope: { type: "all_monitors" },
      condition: { type: "status_change", to: ["down"] },
      confirmation: { consecutive_failures: 2 },
      channels: [{ channel_id: channel }],
    })
  ).body;
  expect(rule.id).toBeString();
  const check = async (status: "up" | "down") => {
    const r = result(o.org_id, mon, status);
    await storeResults(api.sql, [{ ...r, job_id: `${mon}:eu-west` } as never]);
    await evaluateResults({ sql: api.sql, rules: new RuleCache(api.sql, silentLogger), publicBaseUrl: "x" }, [r]);
    await send();
  };
  return { ...o, call, channel, mon, rule: rule.id as string, check };
}

describe("GET /alerts/{id}/timeline", () => {
  it("tells one alert from its first failing check to recovery: notifications, acknowledgement, links to results", async () => {
    const s = await setUp();
    await s.check("up");
    await s.check("down");
    await s.check("down");
    const active = (await s.call("GET", "/api/v1/alert-rules/active")).body.data;
    expect(active).toHaveLength(1);
    const id = active[0].alert_id;
    expect(id).toBe(`${s.rule}~${s.mon}~eu-west~1`);

    let t = await s.call("GET", `/api/v1/alerts/${id}/timeline`);
    expect(t.status).toBe(200);
    expect(t.body).toMatchObject({ id, rule: { id: s.rule, name: "Shop down" }, monitor: { id: s.mon, name: "Shop", type: "http" }, region: "eu-west", incarnation: 1, status: "firing", recovered_at: null });
    // Both failing checks, the one before the alert fired included; not the passing one before them.
    expect(t.body.checks.map((c: { status: string }) => c.status)).toEqual(["down", "down"]);
    expect(t.body.notifications).toMatchObject([{ channel_id: s.channel, channel_name: "Ops hook", channel_type: "webhook", kind: "alert", status: "sent", attempts: 1 }]);
    expect(t.body.acknowledgements).toEqual([]);

    expect((await s.call("POST", `/api/v1/alert-rules/${s.rule}/acknowledge`, { monitor_id: s.mon })).status).toBe(200);
    // Acknowledging again records nobody new.
    await s.call("POST", `/api/v1/alert-rules/${s.rule}/acknowledge`, { monitor_id: s.mon, region: "eu-west" });
    t = await s.call("GET", `/api/v1/alerts/${id}/timeline`);
    expect(t.body.status).toBe("acknowledged");
    expect(t.body.acknowledgements).toHaveLength(1);
    expect(t.body.acknowledgements[0]).toMatchObject({ actor_type: "api_key" });
    expect(t.body.acknowledgements[0].by).toStartWith("API key");

    receiver.failNext("permanent");
    await s.check("up");
    t = await s.call("GET", `/api/v1/alerts/${id}/timeline`);
    expect(t.body.status).toBe("recovered");
    expect(Date.parse(t.body.recovered_at)).toBeGreaterThanOrEqual(Date.parse(t.body.started_at));
    expect(t.body.checks.map((c: { status: string }) => c.status)).toEqual(["down", "down", "up"]);
    expect(t.body.notifications.map((n: { kind: string; status: string }) => `${n.kind}:${n.status}`)).toEqual(["alert:sent", "recovery:failed"]);
    expect(t.body.notifications[1].error).toBeString();
    // Each result links to its page.
    for (const c of t.body.checks) expect((await s.call("GET", `/api/v1/monitors/${s.mon}/checks/${c.id}`)).status).toBe(200);

    // Alert history rows name the alert they belong to.
    const history = (await s.call("GET", "/api/v1/alerts/history")).body.data;
    expect(history.map((h: { alert_id: string }) => h.alert_id)).toEqual([id, id]);

    // A second firing period is another alert; the first keeps its own story.
    await s.check("down");
    await s.check("down");
    const second = (await s.call("GET", `/api/v1/alerts/${s.rule}~${s.mon}~eu-west~2/timeline`)).body;
    expect(second.status).toBe("firing");
    expect(second.checks.map((c: { status: string }) => c.status)).toEqual(["down", "down"]);
    expect(second.acknowledgements).toEqual([]);
    const first = (await s.call("GET", `/api/v1/alerts/${id}/timeline`)).body;
    expect(first.status).toBe("recovered");
    expect(first.checks).toHaveLength(3);
  });

  it("answers 404 for a malformed id, an alert that never happened and another organisation's alert", async () => {
    const s = await setUp();
    await s.check("down");
    await s.check("down");
    const id = `${s.rule}~${s.mon}~eu-west~1`;
    expect((await s.call("GET", `/api/v1/alerts/${id}/timeline`)).status).toBe(200);
    for (const bad of ["nope-nope", `${s.rule}~${s.mon}~eu-west~0`, `${s.rule}~${s.mon}~eu-west~x`, `${s.rule}~${s.mon}~eu-west~2`, `${s.rule}~${s.mon}~us-east~1`, `~${s.mon}~eu-west~1`]) {
      const r = await s.call("GET", `/api/v1/alerts/${encodeURIComponent(bad)}/timeline`);
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ code: "NOT_FOUND" });
    }
    const other = await setUp();
    expect((await other.call("GET", `/api/v1/alerts/${id}/timeline`)).status).toBe(404);
  });
});
