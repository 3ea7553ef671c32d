import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { silentLogger } from "../../core/log.ts";
import { storeResults } from "../../domain/results/ingest.ts";
import { makeResult } from "../../domain/results/test-fixtures.ts";
import { createTestDatabase, type TestDatabase } from "../../tests/support/db.ts";
import { alertingOrg, result } from "../testing/fixtures.ts";
import { evaluateResults, MAX_CLOCK_AHEAD_MS } from "./evaluate.ts";
import { RuleCache } from "./rule-cache.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
}, 60_000);
afterAll(async () => {
  await db.drop();
}, 60_000);

const evaluate = (rs: ReturnType<typeof result>[], cache = new RuleCache(db.sql, silentLogger)) =>
  evaluateResults({ sql: db.sql, rules: cache, publicBaseUrl: "https://w.test" }, rs);
const decided = async (orgId: string) =>
  (await db.sql`select kind, region from alert_deliveries where org_id = ${orgId} order by order_no`).map((d) => `${d.kind}@${d.region}`);

describe("evaluateResults", () => {
  it("applies a fail and a pass of one batch in time order, even for a state that did not exist", async () => {
    const o = await alertingOrg(db.sql);
    const mon = await o.monitor();
    const ch = await o.webhook("http://127.0.0.1:9/x");
    await o.rule({ channels: [{ channel_id: ch, delay_minutes: 0 }] });
    const down = result(o.orgId, mon, "down");
    const up = result(o.orgId, mon, "up", { checked_at: down.checked_at + 1000 });
    await evaluate([up, down]);
    expect(await decided(o.orgId)).toEqual(["alert@eu-west", "recovery@eu-west"]);
  });

  it("writes nothing for passing results without a state", async () => {
    const o = await alertingOrg(db.sql);
    const mon = await o.monitor();
    const ch = await o.webhook("http://127.0.0.1:9/x");
    await o.rule({ channels: [{ channel_id: ch, delay_minutes: 0 }] });
    const out = await evaluate([result(o.orgId, mon, "up"), result(o.orgId, mon, "up")]);
    expect(out.evaluated).toBe(2);
    expect(await db.sql`select 1 from alert_states where monitor_id = ${mon}`).toHaveLength(0);
  });

  it("runs no query for an organisation whose rules are all disabled, and evaluates once one is enabled", async () => {
    const o = await alertingOrg(db.sql);
    const mon = await o.monitor();
    const ch = await o.webhook("http://127.0.0.1:9/x");
    const rule = await o.rule({ channels: [{ channel_id: ch, delay_minutes: 0 }], enabled: false });
    let queries = 0;
    const counted = new Proxy(db.sql, { apply: (target, self, args) => (queries++, Reflect.apply(target, self, args)) });
    const run = (rs: ReturnType<typeof result>[]) => evaluateResults({ sql: counted, rules: new RuleCache(db.sql, silentLogger), publicBaseUrl: "https://w.test" }, rs);
    const out = await run([result(o.orgId, mon, "down")]);
    expect(out).toEqual({ evaluated: 0, deliveries: 0, busEvents: [] });
    expect(queries).toBe(0);
    await db.sql`update alert_rules set enabled = true where id = ${rule}`;
    expect((await run([result(o.orgId, mon, "down")])).evaluated).toBe(1);
    expect(queries).toBeGreaterThan(0);
    expect(await decided(o.orgId)).toEqual(["alert@eu-west"]);
  });

  it("decides once for a redelivered result", async () => {
    const o = await alertingOrg(db.sql);
    const mon = await o.monitor();
    const ch = await o.webhook("http://127.0.0.1:9/x");
    await o.rule({ channels: [{ channel_id: ch, delay_minutes: 0 }], confirmation: { consecutive_failures: 2, confirmation_regions: null } });
    const down = result(o.orgId, mon, "down");
    await evaluate([down]);
    await evaluate([down]);
    expect(await decided(o.orgId)).toEqual([]);
    const [s] = await db.sql`select consecutive from alert_states where monitor_id = ${mon}`;
    expect(s!.consecutive).toBe(1);
  });

  it("fires certificate_changed on a new fingerprint and clears on the next check", async () => {
    const o = await alertingOrg(db.sql);
    const mon = await o.monitor();
    const ch = await o.webhook("http://127.0.0.1:9/x");
    await o.rule({ condition: { type: "certificate_changed" }, channels: [{ channel_id: ch, delay_minutes: 0 }] });
    const t = Date.now();
    await evaluate([result(o.orgId, mon, "up", { checked_at: t, data: { fingerprint_sha256: "AA" } })]);
    await evaluate([result(o.orgId, mon, "up", { checked_at: t + 1, data: { fingerprint_sha256: "AA" } })]);
    expect(await decided(o.orgId)).toEqual([]);
    await evaluate([result(o.orgId, mon, "up", { checked_at: t + 2, data: { fingerprint_sha256: "BB" } })]);
    await evaluate([result(o.orgId, mon, "up", { checked_at: t + 3, data: { fingerprint_sha256: "BB" } })]);
    expect(await decided(o.orgId)).toEqual(["alert@eu-west", "recovery@eu-west"]);
  });

  it("compares a new rule's first certificate with the previous stored check of the same monitor and region", async () => {
    const o = await alertingOrg(db.sql);
    const mon = await o.monitor([], "Checkout API", { regions: ["eu-west", "us-east"] });
    const t = Date.now() - 120_000;
    // Checks stored before the rule existed: eu-west served AA, us-east CC.
    await storeResults(db.sql, [
      makeResult(o.orgId, mon, new Date(t), "up", { location: "eu-west", data: { fingerprint_sha256: "AA" } }),
      makeResult(o.orgId, mon, new Date(t), "up", { location: "us-east", data: { fingerprint_sha256: "CC" } }),
    ]);
    const ch = await o.webhook("http://127.0.0.1:9/x");
    await o.rule({ condition: { type: "certificate_changed" }, channels: [{ channel_id: ch, delay_minutes: 0 }] });
    const next = { scheduled_at: t + 60_000, checked_at: t + 61_000 };
    await evaluate([
      result(o.orgId, mon, "up", { ...next, data: { fingerprint_sha256: "BB" } }),
      result(o.orgId, mon, "up", { ...next, location: "us-east", data: { fingerprint_sha256: "CC" } }),
    ]);
    expect(await decided(o.orgId)).toEqual(["alert@eu-west"]);
  });

  it("ignores disabled rules and rules of other scopes, and sees rule changes through the cache's notification", async () => {
    const o = await alertingOrg(db.sql);
    const mon = await o.monitor(["a"]);
    const ch = await o.webhook("http://127.0.0.1:9/x");
    const ruleId = await o.rule({ enabled: false, channels: [{ channel_id: ch, delay_minutes: 0 }] });
    await o.rule({ scope: { type: "monitor_group", tag: "b" }, channels: [{ channel_id: ch, delay_minutes: 0 }] });
    const cache = new RuleCache(db.sql, silentLogger);
    await cache.listen();
    try {
      await evaluate([result(o.orgId, mon, "down")], cache);
      expect(await decided(o.orgId)).toEqual([]);
      await db.sql`update alert_rules set enabled = true where id = ${ruleId}`;
      await Bun.sleep(200); // the NOTIFY reaches the cache
      await evaluate([result(o.orgId, mon, "down")], cache);
      expect(await decided(o.orgId)).toEqual(["alert@eu-west"]);
    } finally {
      await cache.close();
    }
  });

  it("monitoring_unavailable fires on unavailable results and nothing else reacts to them", async () => {
    const o = await alertingOrg(db.sql);
    const mon = await o.monitor();
    const ch = await o.webhook("http://127.0.0.1:9/x");
    await o.rule({ condition: { type: "monitoring_unavailable" }, channels: [{ channel_id: ch, delay_minutes: 0 }] });
    await o.rule({ condition: { type: "status_change", to: ["down"] }, channels: [{ channel_id: ch, delay_minutes: 0 }], confirmation: { consecutive_failures: 2, confirmation_regions: null } });
    const t = Date.now();
    await evaluate([result(o.orgId, mon, "down", { checked_at: t }), result(o.orgId, mon, "unavailable", { checked_at: t + 1 }), result(o.orgId, mon, "down", { checked_at: t + 2 })]);
    const kinds = await db.sql`select r.condition->>'type' as type, d.kind from alert_deliveries d join alert_rules r on r.id = d.rule_id where d.org_id = ${o.orgId} order by d.order_no`;
    expect(kinds.map((k) => `${k.type}:${k.kind}`)).toEqual(["monitoring_unavailable:alert", "monitoring_unavailable:recovery", "status_change:alert"]);
  });

  it("does not let a result stamped in the future (runner clock ahead) hide later results", async () => {
    const o = await alertingOrg(db.sql);
    const mon = await o.monitor();
    const ch = await o.webhook("http://127.0.0.1:9/x");
    await o.rule({ channels: [{ channel_id: ch, delay_minutes: 0 }], confirmation: { consecutive_failures: 2, confirmation_regions: null } });
    const ahead = Date.now() + 3_600_000;
    await evaluate([result(o.orgId, mon, "down", { checked_at: ahead })]);
    await Bun.sleep(5);
    await evaluate([result(o.orgId, mon, "down", { checked_at: ahead + 10_000 })]);
    expect(await decided(o.orgId)).toEqual(["alert@eu-west"]);
    const [s] = await db.sql`select last_result_at from alert_states where monitor_id = ${mon}`;
    expect(s!.last_result_at.getTime()).toBeLessThanOrEqual(Date.now() + MAX_CLOCK_AHEAD_MS);
  });
});
