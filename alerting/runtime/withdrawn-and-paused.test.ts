import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { type Bus, createMemoryBus } from "../../core/bus/index.ts";
import { resultSubject } from "../../schemas/messages/check-messages.ts";
import { silentLogger } from "../../core/log.ts";
import { createTestDatabase, type TestDatabase } from "../../tests/support/db.ts";
import { type HttpReceiver, startHttpReceiver } from "../channels/testing.ts";
import { createChannelContext } from "../channels/index.ts";
import { alertingOrg, result, testBox, testDispatcher, until } from "../testing/fixtures.ts";
import { bulkMonitors, setMonitorPaused } from "../../domain/monitors/service.ts";
import { setSuspended } from "../../db/queries/billing-suspensions.ts";
import { runDueTimers } from "./dispatcher.ts";
import { startAlerting } from "./start.ts";

/**
 * Alerts that nothing can recover: at a location the monitor no longer checks from, and while the monitor is paused.
 * The alerting role, PostgreSQL, the memory bus and a loopback webhook receiver.
 */
let db: TestDatabase;
let bus: Bus;
let receiver: HttpReceiver;
let alerting: Awaited<ReturnType<typeof startAlerting>>;
const events: { type: string; data: { monitor_id: string; region: string } }[] = [];

const channelCtx = () => createChannelContext({ publicBaseUrl: "https://watchpost.test", allowPrivateAddresses: true, timeoutMs: 2000 });

beforeAll(async () => {
  db = await createTestDatabase();
  bus = createMemoryBus({ log: silentLogger });
  await bus.ensureTopology({ resultDurables: [{ name: "alerting" }] });
  bus.subscribeEvents("events.*", (e: { type: string; data: { monitor_id: string; region: string } }) => void events.push(e));
  receiver = await startHttpReceiver();
  alerting = await startAlerting({
    sql: db.sql,
    bus,
    box: testBox,
    log: silentLogger,
    channelCtx: channelCtx(),
    publicBaseUrl: "https://watchpost.test",
    options: { pollMs: 50, retryBaseMs: 20, retryMaxMs: 50, maxAttempts: 3, withdrawnEveryMs: 100 },
  });
}, 60_000);
afterAll(async () => {
  await alerting.stop();
  await bus.close();
  await receiver.close();
  await db.drop();
}, 60_000);

const deliveries = (monitorId: string) => receiver.requests.map((r) => r.json()).filter((b) => b.monitor.id === monitorId);
const publish = (r: ReturnType<typeof result>) => bus.publishResult(resultSubject(r.org_id, r.monitor_id), r);
const firing = async (monitorId: string) => (await db.sql`select region from alert_states where monitor_id = ${monitorId} and firing order by region`).map((r) => r.region);
const actorOf = (orgId: string) => ({ orgId, userId: "u", identity: {} as never, ip: "127.0.0.1" });


describe("an alert at a location the monitor no longer checks from", () => {
  it("closes once the region is taken off, telling the channel that heard of it why, and a late result from there changes nothing", async () => {
    const o = await alertingOrg(db.sql);
    const mon = await o.monitor([], "Checkout API", { regions: ["eu-west", "us-east"] });
    const ch = await o.webhook(`${receiver.url}/withdrawn`);
    await o.rule({ channels: [{ channel_id: ch, delay_minutes: 0 }], notifications: { on_recovery: true, recurring: true, recurring_interval_minutes: 10 } });
    await publish(result(o.orgId, mon, "down", { location: "us-east" }));
    await until(() => deliveries(mon).length === 1, 5000, "alert");
    expect(await firing(mon)).toEqual(["us-east"]);

    await db.sql`update monitors set regions = '{eu-west}' where id = ${mon}`;
    await until(() => deliveries(mon).length === 2, 5000, "closing notice");
    const closing = deliveries(mon)[1]!;
    expect(closing).toMatchObject({ kind: "recovery", region: "us-east", region_name: "us-east", closed: "location_removed" });
    expect(deliveries(mon)[0]!.closed).toBeUndefined();
    expect(await firing(mon)).toEqual([]);
    const [state] = await db.sql`select next_due_at, consecutive from alert_states where monitor_id = ${mon}`;
    expect(state).toMatchObject({ next_due_at: null, consecutive: 0 });
    expect(events.filter((e) => e.data?.monitor_id === mon).map((e) => e.type)).toEqual(["alert.fired", "alert.recovered"]);
    const notes = await db.sql`select title, body from notifications where org_id = ${o.orgId} order by created_at`;
    expect(notes.map((n) => n.title)).toEqual(["Alert: Checkout API", "Closed: Checkout API"]);
    expect(notes[1]!.body).toBe("Down: closed, the monitor no longer checks from us-east");

    // A check that was in flight from us-east when it was taken off arrives late: it opens nothing.
    await publish(result(o.orgId, mon, "down", { location: "us-east" }));
    await publish(result(o.orgId, mon, "up", { location: "eu-west" }));
    await Bun.sleep(400);
    expect(deliveries(mon)).toHaveLength(2);
    expect(await firing(mon)).toEqual([]);
  });

  it("names a runner by its name, and closes the `none` alert of a monitor that has somewhere to run again", async () => {
    const o = await alertingOrg(db.sql);
    const runnerId = `run_${crypto.randomUUID().replaceAll("-", "")}`;
    await db.sql`insert into runners (id, org_id, name, token_hash) values (${runnerId}, ${o.orgId}, 'office-lan', ${Buffer.from(runnerId)})`;
    const mon = await o.monitor([], "Intranet", { regions: [], runnerIds: [runnerId] });
    const ch = await o.webhook(`${receiver.url}/runner`);
    await o.rule({ condition: { type: "monitoring_unavailable" }, channels: [{ channel_id: ch, delay_minutes: 0 }] });
    await publish(result(o.orgId, mon, "unavailable", { location: runnerId, location_type: "runner" }));
    await until(() => deliveries(mon).length === 1, 5000, "alert");
    expect(deliveries(mon)[0]).toMatchObject({ kind: "alert", region: runnerId, region_name: "runner office-lan" });

    // The runner is revoked and taken off the monitor; its queued jobs are recorded unavailable there, then `none` fires.
    await db.sql`update monitors set runner_ids = '{}' where id = ${mon}`;
    await publish(result(o.orgId, mon, "unavailable", { location: runnerId, location_type: "runner" }));
    await publish(result(o.orgId, mon, "unavailable", { location: "none" }));
    await until(() => deliveries(mon).length === 3, 5000, "closing notice and the none alert");
    const kinds = deliveries(mon).map((d) => `${d.kind} ${d.region_name}${d.closed ? ` ${d.closed}` : ""}`);
    expect(kinds.sort()).toEqual(["alert nowhere (no region or runner)", "alert runner office-lan", "recovery runner office-lan location_removed"]);
    expect(await firing(mon)).toEqual(["none"]);

    // Given a region again: the `none` alert closes too.
    await db.sql`update monitors set regions = '{eu-west}' where id = ${mon}`;
    await until(() => deliveries(mon).length === 4, 5000, "the none alert closed");
    expect(deliveries(mon)[3]).toMatchObject({ kind: "recovery", region: "none", closed: "location_removed" });
    expect(await firing(mon)).toEqual([]);
  });
});

describe("an alert of a paused monitor", () => {
  it("sends no reminder or escalation while paused, and counts none of the pause after a resume", async () => {
    const o = await alertingOrg(db.sql);
    const mon = await o.monitor();
    const now = await o.webhook(`${receiver.url}/paused-now`);
    const later = await o.webhook(`${receiver.url}/paused-later`);
    await o.rule({
      channels: [{ channel_id: now, delay_minutes: 0 }, { channel_id: later, delay_minutes: 5 }],
      notifications: { on_recovery: true, recurring: true, recurring_interval_minutes: 10 },
    });
    const failing = result(o.orgId, mon, "down");
    await publish(failing);
    await until(() => deliveries(mon).length === 1, 5000, "alert");

    await setMonitorPaused({ sql: db.sql, actor: actorOf(o.orgId) }, mon, true);
    const [paused] = await db.sql`select paused_at from monitors where id = ${mon}`;
    expect(paused!.paused_at).toBeInstanceOf(Date);
    // The dispatcher's clock is simulated below: the pause began two minutes after the alert.
    const T0 = failing.checked_at;
    const MIN = 60_000;
    await db.sql`update monitors set paused_at = ${new Date(T0 + 2 * MIN)} where id = ${mon}`;
    // The escalation's and the reminder's times pass while it is paused: nothing goes out, and no tick is left asked for.
    const deps = testDispatcher(db.sql, channelCtx());
    await runDueTimers(deps, T0 + 5 * MIN);
    await runDueTimers(deps, T0 + 10 * MIN);
    const [held] = await db.sql`select firing, next_due_at from alert_states where monitor_id = ${mon}`;
    expect(held).toMatchObject({ firing: true, next_due_at: null });
    await Bun.sleep(200);
    expect(deliveries(mon).map((d) => d.kind)).toEqual(["alert"]);

    // Resumed: its firing alert asks for a tick at once, and the escalation is five minutes of alert time from its start.
    const { ids } = await bulkMonitors({ sql: db.sql, actor: actorOf(o.orgId) }, "resume", { ids: [mon] });
    expect(ids).toEqual([mon]);
    const [woken] = await db.sql`select m.paused, m.resumed_at, s.next_due_at from monitors m join alert_states s on s.monitor_id = m.id where m.id = ${mon}`;
    expect(woken).toMatchObject({ paused: false, resumed_at: expect.any(Date), next_due_at: expect.any(Date) });
    // In the simulated clock the pause lasted until minute 30: two minutes of alert time before it, three after.
    await db.sql`update monitors set resumed_at = ${new Date(T0 + 30 * MIN)} where id = ${mon}`;
    await db.sql`update alert_states set next_due_at = ${new Date(T0 + 30 * MIN)} where monitor_id = ${mon}`;
    await runDueTimers(deps, T0 + 30 * MIN);
    const [rearmed] = await db.sql`select next_due_at from alert_states where monitor_id = ${mon}`;
    expect(rearmed!.next_due_at.getTime()).toBe(T0 + 33 * MIN);
    await runDueTimers(deps, T0 + 33 * MIN);
    await until(() => deliveries(mon).length === 2, 5000, "the escalation");
    expect(receiver.requests.filter((r) => r.json().monitor.id === mon).map((r) => `${r.path} ${r.json().kind}`)).toEqual(["/paused-now alert", "/paused-later escalation"]);
    const [next] = await db.sql`select next_due_at from alert_states where monitor_id = ${mon}`;
    expect(next!.next_due_at.getTime()).toBe(T0 + 38 * MIN);
  });
});

describe("an alert of a monitor suspended over quota", () => {
  it("holds its reminders as a pause does, and takes them up once the monitor is checked again", async () => {
    const o = await alertingOrg(db.sql);
    const mon = await o.monitor();
    const ch = await o.webhook(`${receiver.url}/suspended`);
    await o.rule({ channels: [{ channel_id: ch, delay_minutes: 0 }], notifications: { on_recovery: true, recurring: true, recurring_interval_minutes: 10 } });
    const failing = result(o.orgId, mon, "down");
    await publish(failing);
    await until(() => deliveries(mon).length === 1, 5000, "alert");

    await setSuspended(db.sql, "monitors", o.orgId, [mon], true);
    const [stopped] = await db.sql`select paused_at from monitors where id = ${mon}`;
    expect(stopped!.paused_at).toBeInstanceOf(Date);
    const deps = testDispatcher(db.sql, channelCtx());
    await runDueTimers(deps, failing.checked_at + 10 * 60_000);
    const [held] = await db.sql`select firing, next_due_at from alert_states where monitor_id = ${mon}`;
    expect(held).toMatchObject({ firing: true, next_due_at: null });
    await Bun.sleep(200);
    expect(deliveries(mon).map((d) => d.kind)).toEqual(["alert"]);

    await setSuspended(db.sql, "monitors", o.orgId, [mon], false);
    const [woken] = await db.sql`select m.resumed_at, s.next_due_at from monitors m join alert_states s on s.monitor_id = m.id where m.id = ${mon}`;
    expect(woken).toMatchObject({ resumed_at: expect.any(Date), next_due_at: expect.any(Date) });
  });
});
