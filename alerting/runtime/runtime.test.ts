import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { Registry } from "prom-client";
import { type Bus, createMemoryBus } from "../../core/bus/index.ts";
import { resultSubject } from "../../schemas/messages/check-messages.ts";
import { silentLogger } from "../../core/log.ts";
import { createTestDatabase, type TestDatabase } from "../../tests/support/db.ts";
import { type HttpReceiver, startHttpReceiver } from "../channels/testing.ts";
import { createChannelContext } from "../channels/index.ts";
import { alertingOrg, result, testBox, testDispatcher, until } from "../testing/fixtures.ts";
import { type DispatcherDeps, runDueDeliveries, runDueTimers } from "./dispatcher.ts";
import { createAlertingMetrics } from "./metrics.ts";
import { RuleCache } from "./rule-cache.ts";
import { startAlerting } from "./start.ts";

let db: TestDatabase;
let bus: Bus;
let receiver: HttpReceiver;
let alerting: Awaited<ReturnType<typeof startAlerting>>;
const events: { type: string; data: { monitor_id: string } }[] = [];

const channelCtx = () => createChannelContext({ publicBaseUrl: "https://watchpost.test", allowPrivateAddresses: true, timeoutMs: 2000 });

beforeAll(async () => {
  db = await createTestDatabase();
  bus = createMemoryBus({ log: silentLogger });
  await bus.ensureTopology({ resultDurables: [{ name: "alerting" }] });
  bus.subscribeEvents("events.*", (e: { type: string; data: { monitor_id: string } }) => void events.push(e));
  receiver = await startHttpReceiver();
  alerting = await startAlerting({
    sql: db.sql,
    bus,
    box: testBox,
    log: silentLogger,
    channelCtx: channelCtx(),
    publicBaseUrl: "https://watchpost.test",
    options: { pollMs: 50, retryBaseMs: 20, retryMaxMs: 50, maxAttempts: 3 },
  });
}, 60_000);
afterAll(async () => {
  await alerting.stop();
  await bus.close();
  await receiver.close();
  await db.drop();
}, 60_000);

const received = (monitorId: string) => receiver.requests.filter((r) => r.json().monitor.id === monitorId).map((r) => r.json().kind as string);
const publish = (r: ReturnType<typeof result>) => bus.publishResult(resultSubject(r.org_id, r.monitor_id), r);

describe("alerting runtime (PostgreSQL, memory bus, loopback webhook)", () => {
  it("delivers an alert and then its recovery, records history, in-app notifications and live events", async () => {
    const o = await alertingOrg(db.sql);
    const mon = await o.monitor();
    const ch = await o.webhook(`${receiver.url}/a`);
    const ruleId = await o.rule({ channels: [{ channel_id: ch, delay_minutes: 0 }] });
    await publish(result(o.orgId, mon, "up"));
    await publish(result(o.orgId, mon, "down"));
    await until(() => received(mon).length === 1, 5000, "alert");
    await publish(result(o.orgId, mon, "up"));
    await until(() => received(mon).length === 2, 5000, "recovery");
    expect(received(mon)).toEqual(["alert", "recovery"]);
    const delivery = receiver.requests.find((r) => r.json().monitor.id === mon)!;
    expect(delivery.headers.get("webhook-id")).toMatch(new RegExp(`^${ruleId}:${mon}:eu-west:1:${ch}:alert:1$`));
    expect(delivery.json().links).toEqual({ monitor: `https://watchpost.test/monitors/${mon}`, acknowledge: "https://watchpost.test/alerts" });
    const recovery = receiver.requests.filter((r) => r.json().monitor.id === mon)[1]!;
    expect(recovery.json().links).toEqual({ monitor: `https://watchpost.test/monitors/${mon}` });
    const history = await until(async () => {
      const h = await db.sql`select kind, status from alert_history where org_id = ${o.orgId} order by created_at`;
      return h.length === 2 && h;
    });
    expect(history.map((h) => `${h.kind}:${h.status}`)).toEqual(["alert:sent", "recovery:sent"]);
    const notes = await db.sql`select type from notifications where org_id = ${o.orgId} order by created_at`;
    expect(notes.map((n) => n.type)).toEqual(["alert.fired", "alert.recovered"]);
    expect(events.filter((e) => e.data?.monitor_id === mon).map((e) => e.type)).toEqual(["alert.fired", "alert.recovered"]);
  });

  it("renders the channel's message template into real alert and recovery deliveries, in its time zone", async () => {
    const o = await alertingOrg(db.sql);
    const mon = await o.monitor([], "Shop <prod>");
    const ch = await o.webhook(`${receiver.url}/templated`);
    const template = { title: "{{kind_label}}: {{monitor.name}}", body: "{{rule.name}} in {{region}} at {{time}}{{#links.acknowledge}} ack: {{links.acknowledge}}{{/links.acknowledge}}" };
    await db.sql`update alert_channels set message_template = ${db.sql.json(template)}, timezone = 'Asia/Tokyo' where id = ${ch}`;
    await o.rule({ channels: [{ channel_id: ch, delay_minutes: 0 }] });
    await publish(result(o.orgId, mon, "down"));
    await until(() => received(mon).length === 1, 5000, "alert");
    await publish(result(o.orgId, mon, "up"));
    await until(() => received(mon).length === 2, 5000, "recovery");
    const [alert, recovery] = receiver.requests.filter((r) => r.json().monitor.id === mon).map((r) => r.json().message);
    expect(alert.title).toBe("Triggered: Shop <prod>");
    expect(alert.body).toMatch(/^Down in eu-west at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d GMT\+9 ack: https:\/\/watchpost\.test\/alerts$/);
    expect(recovery).toEqual({ title: "Resolved: Shop <prod>", body: expect.stringMatching(/^Down in eu-west at .+ GMT\+9$/) });
  });

  it("waits for consecutive_failures and counts each region apart", async () => {
    const o = await alertingOrg(db.sql);
    const mon = await o.monitor([], "Checkout API", { regions: ["eu-west", "us-east"] });
    const ch = await o.webhook(`${receiver.url}/b`);
    await o.rule({ channels: [{ channel_id: ch, delay_minutes: 0 }], confirmation: { consecutive_failures: 2, confirmation_regions: null } });
    await publish(result(o.orgId, mon, "down", { location: "eu-west" }));
    await publish(result(o.orgId, mon, "down", { location: "us-east" }));
    await Bun.sleep(300);
    expect(received(mon)).toEqual([]);
    await publish(result(o.orgId, mon, "down", { location: "us-east" }));
    await until(() => received(mon).length === 1);
    await Bun.sleep(200);
    expect(receiver.requests.filter((r) => r.json().monitor.id === mon).map((r) => r.json().region)).toEqual(["us-east"]);
  });

  it("matches a monitor tagged after the rule was made", async () => {
    const o = await alertingOrg(db.sql);
    const mon = await o.monitor([]);
    const ch = await o.webhook(`${receiver.url}/c`);
    await o.rule({ scope: { type: "monitor_group", tag: "prod" }, channels: [{ channel_id: ch, delay_minutes: 0 }] });
    await publish(result(o.orgId, mon, "down"));
    await Bun.sleep(300);
    expect(received(mon)).toEqual([]);
    await db.sql`update monitors set tags = '{prod}' where id = ${mon}`;
    await publish(result(o.orgId, mon, "up"));
    await publish(result(o.orgId, mon, "down"));
    await until(() => received(mon).length === 1);
  });

  it("retries a failed delivery with backoff and records every attempt", async () => {
    const o = await alertingOrg(db.sql);
    const mon = await o.monitor();
    const ch = await o.webhook(`${receiver.url}/d`);
    await o.rule({ channels: [{ channel_id: ch, delay_minutes: 0 }] });
    receiver.failNext("retryable");
    await publish(result(o.orgId, mon, "down"));
    const h = await until(async () => {
      const rows = await db.sql`select attempt, status, http_status from alert_history where org_id = ${o.orgId} order by attempt`;
      return rows.length === 2 && rows;
    });
    expect(h.map((x) => `${x.attempt}:${x.status}:${x.http_status}`)).toEqual(["1:retrying:500", "2:sent:200"]);
  });

  it("marks a permanent failure failed and says so in the in-app feed", async () => {
    const o = await alertingOrg(db.sql);
    const mon = await o.monitor();
    const ch = await o.webhook(`${receiver.url}/e`);
    await o.rule({ channels: [{ channel_id: ch, delay_minutes: 0 }] });
    receiver.failNext("permanent");
    await publish(result(o.orgId, mon, "down"));
    await until(async () => (await db.sql`select 1 from alert_deliveries where org_id = ${o.orgId} and status = 'failed'`).length === 1);
    const [h] = await db.sql`select status, error from alert_history where org_id = ${o.orgId}`;
    expect(h!.status).toBe("failed");
    expect(h!.error).toContain("400");
    const notes = await db.sql`select type from notifications where org_id = ${o.orgId} order by created_at`;
    expect(notes.map((n) => n.type)).toContain("delivery.failed");
  });

  it("sends a delayed channel when its delay elapses, and reminders to every bound channel", async () => {
    const o = await alertingOrg(db.sql);
    const mon = await o.monitor();
    const now = await o.webhook(`${receiver.url}/now`);
    const later = await o.webhook(`${receiver.url}/later`);
    await o.rule({
      channels: [{ channel_id: now, delay_minutes: 0 }, { channel_id: later, delay_minutes: 5 }],
      notifications: { on_recovery: true, recurring: true, recurring_interval_minutes: 10 },
    });
    const failing = result(o.orgId, mon, "down");
    await publish(failing);
    await until(() => received(mon).length === 1);
    const deps = testDispatcher(db.sql, channelCtx());
    // Pretend the clock moved on: the timers come due.
    expect((await runDueTimers(deps, failing.checked_at + 4 * 60_000)).applied).toBe(0);
    expect((await runDueTimers(deps, failing.checked_at + 5 * 60_000)).applied).toBe(1);
    expect((await runDueTimers(deps, failing.checked_at + 5 * 60_000)).applied).toBe(0);
    await runDueTimers(deps, failing.checked_at + 10 * 60_000);
    await runDueDeliveries(deps);
    await until(() => received(mon).length === 4);
    const got = receiver.requests.filter((r) => r.json().monitor.id === mon).map((r) => `${r.path} ${r.json().kind}`);
    expect(got.sort()).toEqual(["/later escalation", "/later reminder", "/now alert", "/now reminder"]);
  });

  it("stops escalations and reminders when acknowledged, and the pending delayed channel never fires", async () => {
    const o = await alertingOrg(db.sql);
    const mon = await o.monitor();
    const now = await o.webhook(`${receiver.url}/ack-now`);
    const later = await o.webhook(`${receiver.url}/ack-later`);
    const ruleId = await o.rule({
      channels: [{ channel_id: now, delay_minutes: 0 }, { channel_id: later, delay_minutes: 5 }],
      notifications: { on_recovery: false, recurring: true, recurring_interval_minutes: 10 },
    });
    const failing = result(o.orgId, mon, "down");
    await publish(failing);
    await until(() => received(mon).length === 1);
    const { acknowledgeAlert } = await import("../service/acknowledge.ts");
    const actor = { orgId: o.orgId, userId: "u", identity: {} as never, ip: "127.0.0.1" };
    await acknowledgeAlert({ sql: db.sql, actor, bus, publicBaseUrl: "https://watchpost.test" }, ruleId, { monitor_id: mon });
    const [state] = await db.sql`select acknowledged, next_due_at from alert_states where monitor_id = ${mon}`;
    expect(state).toMatchObject({ acknowledged: true, next_due_at: null });
    await Bun.sleep(300);
    expect(received(mon)).toEqual(["alert"]);
    expect(events.filter((e) => e.data?.monitor_id === mon).map((e) => e.type)).toEqual(["alert.fired", "alert.acknowledged"]);
  });

  it("sends nothing inside a suppressing maintenance window, then the withheld alert once when it ends", async () => {
    const o = await alertingOrg(db.sql);
    const mon = await o.monitor(["shop"]);
    const ch = await o.webhook(`${receiver.url}/mw`);
    await o.rule({ channels: [{ channel_id: ch, delay_minutes: 0 }] });
    await db.sql`insert into maintenance_windows (id, org_id, name, starts_at, ends_at, tags, suppress_alerts)
                 values (${`mw_${mon}`}, ${o.orgId}, 'deploy', now() - interval '1 minute', now() + interval '30 seconds', '{shop}', true)`;
    const failing = result(o.orgId, mon, "down");
    await publish(failing);
    await until(async () => (await db.sql`select 1 from alert_states where monitor_id = ${mon} and firing`).length === 1);
    await Bun.sleep(300);
    expect(received(mon)).toEqual([]);
    // The alert waits for the window's end, not a minute at a time.
    const [state] = await db.sql`select s.next_due_at, w.ends_at from alert_states s, maintenance_windows w where s.monitor_id = ${mon} and w.id = ${`mw_${mon}`}`;
    expect(state!.next_due_at.getTime()).toBe(state!.ends_at.getTime());
    const deps = testDispatcher(db.sql, channelCtx());
    // Still inside the window: held. After it: sent once.
    await runDueTimers(deps, failing.checked_at + 20_000);
    await runDueTimers(deps, state!.ends_at.getTime());
    await runDueTimers(deps, failing.checked_at + 200_000);
    await until(() => received(mon).length === 1);
    await Bun.sleep(200);
    expect(received(mon)).toEqual(["alert"]);
  });

  it("delivers one alert's notifications to a channel in decision order, never a recovery before its alert", async () => {
    const o = await alertingOrg(db.sql);
    const mon = await o.monitor();
    const ch = await o.webhook(`${receiver.url}/order`);
    await o.rule({ channels: [{ channel_id: ch, delay_minutes: 0 }] });
    await alerting.stop();
    try {
      const { evaluateResults } = await import("./evaluate.ts");
      const down = result(o.orgId, mon, "down");
      await evaluateResults({ sql: db.sql, rules: new RuleCache(db.sql, silentLogger), publicBaseUrl: "x" }, [
        down,
        result(o.orgId, mon, "up", { checked_at: down.checked_at + 1 }),
      ]);
      const deps = testDispatcher(db.sql, channelCtx());
      expect(await runDueDeliveries(deps)).toBe(1);
      expect(await runDueDeliveries(deps)).toBe(1);
      expect(received(mon)).toEqual(["alert", "recovery"]);
    } finally {
      alerting = await startAlerting({ sql: db.sql, bus, box: testBox, log: silentLogger, channelCtx: channelCtx(), publicBaseUrl: "https://watchpost.test", options: { pollMs: 50 } });
    }
  });

  it("sends each delivery once when two dispatchers race for it", async () => {
    const o = await alertingOrg(db.sql);
    const mon = await o.monitor();
    const chs = await Promise.all([1, 2, 3, 4, 5].map((i) => o.webhook(`${receiver.url}/race${i}`)));
    await alerting.stop();
    const deps = (): DispatcherDeps => ({
      sql: db.sql,
      box: testBox,
      log: silentLogger,
      rules: new RuleCache(db.sql, silentLogger),
      channelCtx: channelCtx(),
      publicBaseUrl: "https://watchpost.test",
      leaseMs: 10_000,
      maxAttempts: 3,
      retryBaseMs: 10,
      retryMaxMs: 10,
    });
    await o.rule({ channels: chs.map((c) => ({ channel_id: c, delay_minutes: 0 })) });
    const { evaluateResults } = await import("./evaluate.ts");
    await evaluateResults({ sql: db.sql, rules: new RuleCache(db.sql, silentLogger), publicBaseUrl: "x" }, [result(o.orgId, mon, "down")]);
    const [a, b] = await Promise.all([runDueDeliveries(deps()), runDueDeliveries(deps())]);
    expect(a + b).toBe(5);
    expect(received(mon)).toHaveLength(5);
    alerting = await startAlerting({ sql: db.sql, bus, box: testBox, log: silentLogger, channelCtx: channelCtx(), publicBaseUrl: "https://watchpost.test", options: { pollMs: 50 } });
  });

  it("records a sent delivery once the database is back from an outage, rather than sending it again when the lease runs out", async () => {
    const o = await alertingOrg(db.sql);
    const mon = await o.monitor();
    const ch = await o.webhook(`${receiver.url}/outage`);
    await alerting.stop();
    try {
      await o.rule({ channels: [{ channel_id: ch, delay_minutes: 0 }] });
      const { evaluateResults } = await import("./evaluate.ts");
      await evaluateResults({ sql: db.sql, rules: new RuleCache(db.sql, silentLogger), publicBaseUrl: "x" }, [result(o.orgId, mon, "down")]);
      // The database goes away just after the send: the first two attempts to record it fail.
      let failures = 2;
      const flaky = new Proxy(db.sql, {
        get(target, prop, receiver) {
          if (prop === "begin" && failures > 0) {
            failures--;
            return () => Promise.reject(Object.assign(new Error("write CONNECTION_CLOSED 127.0.0.1:5432"), { code: "CONNECTION_CLOSED" }));
          }
          return Reflect.get(target, prop, receiver);
        },
      });
      const registry = new Registry();
      const deps: DispatcherDeps = {
        sql: flaky,
        box: testBox,
        log: silentLogger,
        rules: new RuleCache(db.sql, silentLogger),
        channelCtx: channelCtx(),
        publicBaseUrl: "https://watchpost.test",
        leaseMs: 3000,
        maxAttempts: 3,
        retryBaseMs: 10,
        retryMaxMs: 10,
        metrics: createAlertingMetrics(registry),
      };
      expect(await runDueDeliveries(deps)).toBe(1);
      expect(failures).toBe(0);
      const [row] = await db.sql`select status from alert_deliveries where org_id = ${o.orgId}`;
      expect(row!.status).toBe("sent");
      await Bun.sleep(3100);
      expect(await runDueDeliveries(deps)).toBe(0);
      expect(received(mon)).toEqual(["alert"]);
      expect(await registry.getSingleMetricAsString("watchpost_alerting_deliveries_total")).toContain('watchpost_alerting_deliveries_total{kind="alert",outcome="sent"} 1');
    } finally {
      alerting = await startAlerting({ sql: db.sql, bus, box: testBox, log: silentLogger, channelCtx: channelCtx(), publicBaseUrl: "https://watchpost.test", options: { pollMs: 50 } });
    }
  });
});
