import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { startIngest } from "../../alerting/ingest/ingest.ts";
import type { ConsumerHandle } from "../../core/bus/index.ts";
import { silentLogger } from "../../core/log.ts";
import { BEFORE_ANYTHING } from "../../core/process/blind-time.ts";
import { sweepHeartbeats } from "../../domain/monitors/heartbeat.ts";
import { startHousekeeping } from "../../scheduler/housekeeping.ts";
import { Value } from "@sinclair/typebox/value";
import { heartbeatDataSchema } from "../../runner/checks/heartbeat/heartbeat-schema.ts";
import { client, makeOrg, startTestApi, type TestApi } from "../support/api.ts";

let api: TestApi;
let ingest: ConsumerHandle;
beforeAll(async () => {
  api = await startTestApi();
  ingest = await startIngest({ sql: api.sql, bus: api.bus, log: silentLogger, maxWaitMs: 10 });
});
afterAll(async () => {
  await ingest.stop();
  await api.stop();
});

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 3000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > deadline) return v;
    await Bun.sleep(20);
  }
}

/** A heartbeat monitor expecting a ping every 60 s with 30 s of grace, pinged once (at `p`, ms). */
async function pingedOnce() {
  const o = await makeOrg(api.sql, "business");
  const call = client(api.url, { key: o.api_key });
  const { body: m } = await call("POST", "/api/v1/monitors", { name: "cron", type: "heartbeat", config: { period_seconds: 60, grace_seconds: 30 } });
  await fetch(m.heartbeat_url);
  const p = ((await api.sql`select last_ping_at from monitors where id = ${m.id}`)[0]!.last_ping_at as Date).getTime();
  return { call, m, p };
}

describe("heartbeat monitors", () => {
  it("records an up result for a GET or POST ping, with the token as the only credential", async () => {
    const o = await makeOrg(api.sql, "business");
    const call = client(api.url, { key: o.api_key });
    const { body: m } = await call("POST", "/api/v1/monitors", { name: "nightly backup", type: "heartbeat", config: { period_seconds: 3600, grace_seconds: 600 } });
    const get = await fetch(m.heartbeat_url);
    expect(get.status).toBe(200);
    expect(await get.json()).toEqual({ ok: true, monitor_id: m.id, recorded: true });
    const monitor = await until(() => call("GET", `/api/v1/monitors/${m.id}`), (r) => r.body.status === "up");
    expect(monitor.body.status).toBe("up");
    await Bun.sleep(5);
    expect((await fetch(m.heartbeat_url, { method: "POST", body: "job output" })).status).toBe(200);
    const rows = await until(() => api.sql`select status, location from check_results where monitor_id = ${m.id}`, (r) => r.length === 2);
    expect(rows.map((r) => r.status)).toEqual(["up", "up"]);
  });

  it("records pings whose URL carries a query string (a cache buster, a run id, the job's exit code), as cron jobs send them", async () => {
    const o = await makeOrg(api.sql, "business");
    const call = client(api.url, { key: o.api_key });
    const { body: m } = await call("POST", "/api/v1/monitors", { name: "with query", type: "heartbeat", config: { period_seconds: 3600, grace_seconds: 600 } });
    const start = await fetch(`${m.heartbeat_url}/start?rid=4f1c&host=db-1`);
    expect(start.status).toBe(200);
    const ok = await fetch(`${m.heartbeat_url}?t=1795990000&exit=0`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ ok: true, monitor_id: m.id, recorded: true });
    const fail = await fetch(`${m.heartbeat_url}/fail?exit=2`, { method: "POST", body: "disk full" });
    expect(fail.status).toBe(200);
    const rows = await until(() => api.sql`select status from check_results where monitor_id = ${m.id} order by checked_at`, (r) => r.length === 2);
    expect(rows.map((r) => r.status)).toEqual(["up", "down"]);
  });

  it("answers 404 with the error body to a wrong or malformed token", async () => {
    for (const token of ["hb_" + "x".repeat(32), "nope"]) {
      const res = await fetch(`${api.url}/api/v1/heartbeat/${token}`);
      expect(res.status).toBe(404);
      expect((await res.json()).code).toBe("NOT_FOUND");
    }
  });

  it("records one down result per missed period after the grace time, once even when swept twice", async () => {
    const o = await makeOrg(api.sql, "business");
    const call = client(api.url, { key: o.api_key });
    const { body: m } = await call("POST", "/api/v1/monitors", { name: "cron", type: "heartbeat", config: { period_seconds: 60, grace_seconds: 30 } });
    await fetch(m.heartbeat_url);
    const pinged = (await api.sql`select last_ping_at from monitors where id = ${m.id}`)[0]!.last_ping_at as Date;
    const later = new Date(pinged.getTime() + 60_000 + 30_000 + 60_000 + 1000); // two deadlines passed
    expect(await sweepHeartbeats(api.sql, api.bus, later)).toBe(2);
    await sweepHeartbeats(api.sql, api.bus, later);
    const rows = await until(
      () => api.sql`select status, error from check_results where monitor_id = ${m.id} order by scheduled_at`,
      (r) => r.length === 3,
    );
    await Bun.sleep(100);
    expect((await api.sql`select count(*)::int as n from check_results where monitor_id = ${m.id}`)[0]!.n).toBe(3);
    expect(rows.map((r) => r.status)).toEqual(["up", "down", "down"]);
    expect(rows[1]!.error).toContain("no ping since");
    const results = (await call("GET", `/api/v1/monitors/${m.id}/checks?to=${new Date(later.getTime() + 60_000).toISOString()}`)).body.data;
    expect(results.map((r: { location: string }) => r.location)).toEqual(["heartbeat", "heartbeat", "heartbeat"]);
    for (const r of results) expect(Value.Check(heartbeatDataSchema, r.data)).toBe(true);
    expect(results[0].data.last_ping_at).toBe(pinged.toISOString());
    const monitor = await until(() => call("GET", `/api/v1/monitors/${m.id}`), (r) => r.body.status === "down");
    expect(monitor.body.status).toBe("down");
  });

  it("records a deadline a ping refused while Watchpost was down or its database unreachable would have met as unavailable, not down", async () => {
    const { call, m, p } = await pingedOnce();
    // Deadlines at p+90, p+150 and p+210 s; a ping at x sets the next one to x+90 s. The sweeper could not read the
    // database from p+80 to p+95 s: a ping then would have met the first two, not the third.
    const later = p + 211_000;
    const ago = (at: number) => (later - at) / 1000;
    // (The sweep also records other tests' monitors' misses: only this monitor's rows are read.)
    await sweepHeartbeats(api.sql, api.bus, new Date(later), { gaps: [{ fromAgoS: ago(p + 80_000), toAgoS: ago(p + 95_000) }] });
    const rows = await until(
      () => api.sql`select status, error from check_results where monitor_id = ${m.id} order by scheduled_at`,
      (r) => r.length === 4,
    );
    expect(rows.map((r) => r.status)).toEqual(["up", "unavailable", "unavailable", "down"]);
    expect(rows[1]!.error).toStartWith("Watchpost could not receive pings for part of this run's window");
    expect(rows[1]!.error).toContain("no ping since");
    expect(rows[3]!.error).toStartWith("no ping since");
    const results = (await call("GET", `/api/v1/monitors/${m.id}/checks?to=${new Date(later + 60_000).toISOString()}`)).body.data;
    for (const r of results) expect(Value.Check(heartbeatDataSchema, r.data)).toBe(true);
  });

  it("after a restart, records as unavailable the deadlines a ping refused while it was down would have met", async () => {
    const { call, m, p } = await pingedOnce();
    // The all-in-one was down until p+100 s: the job's pings before then were refused.
    const later = p + 211_000;
    await sweepHeartbeats(api.sql, api.bus, new Date(later), { gaps: [{ fromAgoS: BEFORE_ANYTHING, toAgoS: (later - p - 100_000) / 1000 }] });
    const rows = await until(() => api.sql`select status from check_results where monitor_id = ${m.id} order by scheduled_at`, (r) => r.length === 4);
    expect(rows.map((r) => r.status)).toEqual(["up", "unavailable", "unavailable", "down"]);
  });

  it("is swept by the scheduler's housekeeping without anybody calling the sweep", async () => {
    const o = await makeOrg(api.sql, "business");
    const call = client(api.url, { key: o.api_key });
    const { body: m } = await call("POST", "/api/v1/monitors", { name: "silent cron", type: "heartbeat", config: { period_seconds: 60, grace_seconds: 30 } });
    const created = new Date(m.created_at).getTime();
    // The scheduler was running before the monitor was created, and saw its whole first window.
    let at = created - 1_000;
    const housekeeping = startHousekeeping(api.sql, api.bus, silentLogger, { heartbeatSweepMs: 20, now: () => new Date(at) });
    at = created + 91_000;
    try {
      const monitor = await until(() => call("GET", `/api/v1/monitors/${m.id}`), (r) => r.body.status === "down");
      expect(monitor.body.status).toBe("down");
    } finally {
      await housekeeping.stop();
    }
  });

  it("is limited per monitor and per sending host, not by the anonymous per-IP budget (a host runs many jobs)", async () => {
    // Its own client address (through TRUST_PROXY), so other tests' unauthenticated calls do not count.
    const limited = await startTestApi({ RATE_LIMIT_PER_IP: "3", RATE_LIMIT_PER_HEARTBEAT: "3", RATE_LIMIT_PINGS_PER_IP: "10", TRUST_PROXY: "true" }, api.db, api.bus);
    const from = { "x-forwarded-for": `203.0.113.${1 + Math.floor(Math.random() * 250)}` };
    try {
      const left = 60_000 - (Date.now() % 60_000);
      if (left < 5000) await Bun.sleep(left + 50); // every ping in one fixed window
      const o = await makeOrg(api.sql, "business");
      const call = client(api.url, { key: o.api_key });
      const urls: string[] = [];
      for (const name of ["backup", "report", "sync"]) {
        const { body: m } = await call("POST", "/api/v1/monitors", { name, type: "heartbeat", config: { period_seconds: 60 } });
        urls.push(m.heartbeat_url.replace(api.url, limited.url));
      }
      // Three jobs of one host, start and success each: more than the anonymous budget of 3, all taken.
      const statuses: number[] = [];
      for (const url of urls) for (const path of ["/start", ""]) statuses.push((await fetch(`${url}${path}`, { method: "POST", headers: from })).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
      // One monitor pinged past its own limit.
      statuses.length = 0;
      for (let i = 0; i < 2; i++) statuses.push((await fetch(urls[0]!, { headers: from })).status);
      expect(statuses).toEqual([200, 429]);
      const refused = await fetch(urls[0]!, { headers: from });
      expect(refused.headers.get("retry-after")).not.toBeNull();
      expect((await refused.json()).code).toBe("RATE_LIMIT_EXCEEDED");
      // The host's ceiling across its monitors (10 a minute here: 6 + 2 + 1 taken so far, refused ones included).
      expect((await fetch(urls[1]!, { headers: from })).status).toBe(200);
      expect((await fetch(urls[2]!, { headers: from })).status).toBe(429);
    } finally {
      await limited.stop();
    }
  });

  it("accepts but does not record pings of a paused monitor", async () => {
    const o = await makeOrg(api.sql, "business");
    const call = client(api.url, { key: o.api_key });
    const { body: m } = await call("POST", "/api/v1/monitors", { name: "paused", type: "heartbeat", config: { period_seconds: 60 }, paused: true });
    expect(await (await fetch(m.heartbeat_url)).json()).toMatchObject({ recorded: false });
  });

  it("does not record the runs missed while paused as down when it is resumed", async () => {
    // Pinged ten minutes ago, then paused for the ten minutes: resuming starts a fresh wait for the next ping.
    const { call, m, p } = await pingedOnce();
    const tenMinutesAgo = new Date(p - 600_000);
    await api.sql`update monitors set last_ping_at = ${tenMinutesAgo}, heartbeat_due_at = ${new Date(p - 600_000 + 90_000)} where id = ${m.id}`;
    expect((await call("POST", `/api/v1/monitors/${m.id}/pause`)).status).toBe(200);
    expect(await sweepHeartbeats(api.sql, api.bus, new Date())).toBe(0);
    expect((await call("POST", `/api/v1/monitors/${m.id}/resume`)).status).toBe(200);
    expect(await sweepHeartbeats(api.sql, api.bus, new Date())).toBe(0);
    // One period and the grace after the resume, a missing ping is down again.
    expect(await sweepHeartbeats(api.sql, api.bus, new Date(Date.now() + 91_000))).toBe(1);
  });

  it("does not record the runs missed while paused when resumed in bulk", async () => {
    const { call, m, p } = await pingedOnce();
    await api.sql`update monitors set last_ping_at = ${new Date(p - 600_000)}, heartbeat_due_at = ${new Date(p - 600_000 + 90_000)}, paused = true where id = ${m.id}`;
    expect((await call("POST", "/api/v1/monitors/bulk/resume", { ids: [m.id] })).body).toMatchObject({ affected: 1 });
    expect(await sweepHeartbeats(api.sql, api.bus, new Date())).toBe(0);
  });

  it("does not record the runs missed while paused when a PATCH resumes it", async () => {
    const { call, m, p } = await pingedOnce();
    await api.sql`update monitors set last_ping_at = ${new Date(p - 600_000)}, heartbeat_due_at = ${new Date(p - 600_000 + 90_000)}, paused = true where id = ${m.id}`;
    expect((await call("PATCH", `/api/v1/monitors/${m.id}`, { paused: false })).status).toBe(200);
    expect(await sweepHeartbeats(api.sql, api.bus, new Date())).toBe(0);
  });
});
