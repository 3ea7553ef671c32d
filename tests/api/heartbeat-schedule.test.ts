import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { startIngest } from "../../alerting/ingest/ingest.ts";
import type { ConsumerHandle } from "../../core/bus/index.ts";
import { silentLogger } from "../../core/log.ts";
import { sweepHeartbeats } from "../../domain/monitors/heartbeat.ts";
import { heartbeatDataSchema, PING_BODY_LIMIT } from "../../runner/checks/heartbeat/heartbeat-schema.ts";
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

async function heartbeat(config: Record<string, unknown>) {
  const o = await makeOrg(api.sql, "business");
  const call = client(api.url, { key: o.api_key });
  const res = await call("POST", "/api/v1/monitors", { name: "nightly job", type: "heartbeat", config });
  return { call, res, m: res.body };
}

/** The checks of the 30 days before `to`: with a `from`, the fixed 2026 dates below stay readable once they are older than the retention window. */
const checks = (call: ReturnType<typeof client>, id: string, to = new Date(Date.now() + 60_000)) =>
  call("GET", `/api/v1/monitors/${id}/checks?from=${new Date(to.getTime() - 30 * 86_400_000).toISOString()}&to=${to.toISOString()}`).then((r) => r.body.data as Record<string, any>[]);

describe("heartbeat monitors on a cron schedule", () => {
  it("takes a schedule with a time zone and a grace time, and shows them back", async () => {
    const { res } = await heartbeat({ schedule: "0 3 * * *", timezone: "Europe/Berlin", grace_seconds: 900 });
    expect(res.status).toBe(201);
    expect(res.body.config).toEqual({ schedule: "0 3 * * *", timezone: "Europe/Berlin", grace_seconds: 900 });
  });

  it("refuses an unknown time zone with 400 VALIDATION_ERROR naming it", async () => {
    const { res } = await heartbeat({ schedule: "0 3 * * *", timezone: "Europe/Atlantis" });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_ERROR");
    expect(res.body.details.issues ?? res.body.details).toContainEqual(expect.objectContaining({ path: "body.config.timezone", message: expect.stringContaining('"Europe/Atlantis"') }));
  });

  it("refuses a bad cron expression, both or neither of period and schedule, with the error body", async () => {
    for (const [config, path] of [
      [{ schedule: "0 3 * *" }, "body.config.schedule"],
      [{ schedule: "0 0 3 * * * 2027" }, "body.config.schedule"],
      [{ schedule: "0 3 * * *", period_seconds: 3600 }, "body.config"],
      [{ grace_seconds: 60 }, "body.config"],
      [{ period_seconds: 3600, timezone: "UTC" }, "body.config.timezone"],
    ] as const) {
      const { res } = await heartbeat(config);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: expect.any(String), code: "VALIDATION_ERROR" });
      expect(JSON.stringify(res.body.details)).toContain(`"path":"${path}"`);
    }
  });

  it("refuses a schedule sent by PATCH the same way and re-plans the deadline after a good one", async () => {
    const { call, m } = await heartbeat({ period_seconds: 3600 });
    const bad = await call("PATCH", `/api/v1/monitors/${m.id}`, { config: { schedule: "99 * * * *" } });
    expect(bad.status).toBe(400);
    await sweepHeartbeats(api.sql, api.bus);
    const before = (await api.sql`select heartbeat_due_at from monitors where id = ${m.id}`)[0]!.heartbeat_due_at as Date;
    expect(before.getTime()).toBe(new Date(m.created_at).getTime() + 3600_000 + 300_000);
    expect((await call("PATCH", `/api/v1/monitors/${m.id}`, { config: { schedule: "*/5 * * * *", grace_seconds: 60 } })).status).toBe(200);
    expect((await api.sql`select heartbeat_due_at from monitors where id = ${m.id}`)[0]!.heartbeat_due_at).toBeNull();
    await sweepHeartbeats(api.sql, api.bus);
    const after = (await api.sql`select heartbeat_due_at from monitors where id = ${m.id}`)[0]!.heartbeat_due_at as Date;
    expect(after.getTime() % 300_000).toBe(60_000); // a five-minute mark plus one minute of grace
  });

  it("records a down result per missed scheduled run across the Berlin spring change, and the ping moves the deadline", async () => {
    const { call, m } = await heartbeat({ schedule: "0 9 * * *", timezone: "Europe/Berlin", grace_seconds: 600 });
    // The job pinged on 2026-03-27 at 09:01 CET; it then missed the 28th (CET) and the 29th (CEST).
    await api.sql`update monitors set last_ping_at = '2026-03-27T08:01:00Z', heartbeat_due_at = null where id = ${m.id}`;
    const now = new Date("2026-03-29T12:00:00Z");
    expect(await sweepHeartbeats(api.sql, api.bus, now)).toBe(2);
    expect(await sweepHeartbeats(api.sql, api.bus, now)).toBe(0);
    const results = await until(() => checks(call, m.id, now), (r) => r.length === 2);
    expect(results.map((r) => [r.status, r.scheduled_at, r.data.signal])).toEqual([
      ["down", "2026-03-29T07:10:00.000Z", "missed"],
      ["down", "2026-03-28T08:10:00.000Z", "missed"],
    ]);
    for (const r of results) expect(Value.Check(heartbeatDataSchema, r.data)).toBe(true);
    const due = (await api.sql`select heartbeat_due_at from monitors where id = ${m.id}`)[0]!.heartbeat_due_at as Date;
    expect(due.toISOString()).toBe("2026-03-30T07:10:00.000Z");
    // A real ping now: the next deadline is tomorrow's 09:00 Berlin time plus the grace.
    expect((await fetch(m.heartbeat_url)).status).toBe(200);
    const next = (await api.sql`select heartbeat_due_at from monitors where id = ${m.id}`)[0]!.heartbeat_due_at as Date;
    expect(next.getTime()).toBeGreaterThan(Date.now());
    expect(new Intl.DateTimeFormat("en-GB", { timeZone: "Europe/Berlin", hour: "2-digit", minute: "2-digit" }).format(next)).toBe("09:10");
  });

  it("follows New York's autumn change: an hourly job missed through the repeated hour is down once per real hour", async () => {
    const { call, m } = await heartbeat({ schedule: "0 * * * *", timezone: "America/New_York", grace_seconds: 300 });
    await api.sql`update monitors set last_ping_at = '2026-11-01T04:30:00Z', heartbeat_due_at = null where id = ${m.id}`;
    expect(await sweepHeartbeats(api.sql, api.bus, new Date("2026-11-01T07:30:00Z"))).toBe(3);
    const results = await until(() => checks(call, m.id, new Date("2026-11-02T00:00:00Z")), (r) => r.length === 3);
    expect(results.map((r) => r.scheduled_at).sort()).toEqual(["2026-11-01T05:05:00.000Z", "2026-11-01T06:05:00.000Z", "2026-11-01T07:05:00.000Z"]);
  });

  it("records a run whose window Watchpost could not see as unavailable, and the next night's miss as down", async () => {
    const { call, m } = await heartbeat({ schedule: "0 3 * * *", grace_seconds: 3600 });
    // Pinged on the 1st at 03:02. On the 2nd the sweeper could not read the database from 02:55 to 03:10: a ping
    // refused then would have met the 04:00 deadline. The 3rd's 03:00 run was seen whole: its miss is down.
    await api.sql`update monitors set last_ping_at = '2026-06-01T03:02:00Z', heartbeat_due_at = null where id = ${m.id}`;
    const now = new Date("2026-06-03T04:30:00Z");
    const ago = (iso: string) => (now.getTime() - Date.parse(iso)) / 1000;
    await sweepHeartbeats(api.sql, api.bus, now, { gaps: [{ fromAgoS: ago("2026-06-02T02:55:00Z"), toAgoS: ago("2026-06-02T03:10:00Z") }] });
    const results = await until(() => checks(call, m.id, now), (r) => r.length === 2);
    expect(results.map((r) => [r.status, r.scheduled_at, r.data.signal])).toEqual([
      ["down", "2026-06-03T04:00:00.000Z", "missed"],
      ["unavailable", "2026-06-02T04:00:00.000Z", "missed"],
    ]);
    for (const r of results) expect(Value.Check(heartbeatDataSchema, r.data)).toBe(true);
  });
});

describe("heartbeat start and fail signals with bodies", () => {
  it("measures the run from /start to the success ping and shows it as the result's duration", async () => {
    const { call, m } = await heartbeat({ period_seconds: 3600 });
    const started = await fetch(`${m.heartbeat_url}/start`, { method: "POST", body: "backup of db1 starting" });
    expect(await started.json()).toEqual({ ok: true, monitor_id: m.id, recorded: true });
    expect(await checks(call, m.id)).toHaveLength(0); // a start records no result of its own
    await Bun.sleep(250);
    expect((await fetch(m.heartbeat_url, { method: "POST", body: "copied 42 files" })).status).toBe(200);
    const [r] = await until(() => checks(call, m.id), (r) => r.length === 1);
    expect(r!.status).toBe("up");
    expect(r!.duration_ms).toBeGreaterThanOrEqual(250);
    expect(r!.data).toMatchObject({ signal: "success", body: "copied 42 files", body_truncated: false, start_body: "backup of db1 starting" });
    expect(r!.data.run_duration_ms).toBe(r!.duration_ms);
    expect(Value.Check(heartbeatDataSchema, r!.data)).toBe(true);
    const monitor = await until(() => call("GET", `/api/v1/monitors/${m.id}`), (x) => x.body.last_duration_ms != null);
    expect(monitor.body.last_duration_ms).toBe(r!.duration_ms);
  });

  it("makes the monitor down at once on /fail, with the body's first line as the error", async () => {
    const { call, m } = await heartbeat({ schedule: "*/10 * * * *", grace_seconds: 60 });
    await fetch(`${m.heartbeat_url}/start`);
    const res = await fetch(`${m.heartbeat_url}/fail`, { method: "POST", body: "\npg_dump: error: connection refused\nexit 1\n" });
    expect(res.status).toBe(200);
    const monitor = await until(() => call("GET", `/api/v1/monitors/${m.id}`), (x) => x.body.status === "down");
    expect(monitor.body.status).toBe("down");
    const [r] = await checks(call, m.id);
    expect(r!.error).toBe("the job reported a failure: pg_dump: error: connection refused");
    expect(r!.data).toMatchObject({ signal: "fail", body: "\npg_dump: error: connection refused\nexit 1\n", start_body: null });
    expect(r!.data.run_duration_ms).toBeGreaterThanOrEqual(0);
    // GET /fail without a body still fails, with a plain message.
    await fetch(`${m.heartbeat_url}/fail`);
    const all = await until(() => checks(call, m.id), (x) => x.length === 2);
    expect(all.map((x) => x.error)).toContain("the job reported a failure");
  });

  it("takes the job's exit status as the signal: 0 is up, any other is down with the status in the error", async () => {
    const { call, m } = await heartbeat({ period_seconds: 3600 });
    await fetch(`${m.heartbeat_url}/start`);
    expect(await (await fetch(`${m.heartbeat_url}/0`)).json()).toEqual({ ok: true, monitor_id: m.id, recorded: true });
    const [up] = await until(() => checks(call, m.id), (x) => x.length === 1);
    expect(up!.status).toBe("up");
    expect(up!.data).toMatchObject({ signal: "success", exit_status: 0 });
    expect(up!.data.run_duration_ms).toBeGreaterThanOrEqual(0);
    expect(Value.Check(heartbeatDataSchema, up!.data)).toBe(true);

    expect((await fetch(`${m.heartbeat_url}/3`, { method: "POST", body: "rsync: disk full\nmore\n" })).status).toBe(200);
    const monitor = await until(() => call("GET", `/api/v1/monitors/${m.id}`), (x) => x.body.status === "down");
    expect(monitor.body.status).toBe("down");
    await fetch(`${m.heartbeat_url}/255?t=1`);
    const all = await until(() => checks(call, m.id), (x) => x.length === 3);
    const byStatus = new Map(all.map((r) => [r.data.exit_status, r]));
    expect(byStatus.get(3)).toMatchObject({ status: "down", error: "the job exited with status 3: rsync: disk full", data: { signal: "fail", body: "rsync: disk full\nmore\n" } });
    expect(byStatus.get(255)).toMatchObject({ status: "down", error: "the job exited with status 255", data: { signal: "fail" } });
    // A success or fail ping by name says no exit status.
    await fetch(m.heartbeat_url);
    const named = await until(() => checks(call, m.id), (x) => x.length === 4);
    expect(named.filter((r) => r.data.exit_status === null)).toHaveLength(1);
  });

  it("reads a result stored before exit_status existed with the field present as null, in the list, by id and in the export", async () => {
    const { call, m } = await heartbeat({ period_seconds: 3600 });
    await fetch(m.heartbeat_url);
    const [stored] = await until(() => checks(call, m.id), (x) => x.length === 1);
    await api.sql`update check_results set data = data - 'exit_status' where monitor_id = ${m.id}`;
    const [listed] = await checks(call, m.id);
    expect(listed!.data).toHaveProperty("exit_status", null);
    expect(Value.Check(heartbeatDataSchema, listed!.data)).toBe(true);
    expect((await call("GET", `/api/v1/monitors/${m.id}/checks/${stored!.id}`)).body.data).toHaveProperty("exit_status", null);
    const exported = await call("GET", `/api/v1/monitors/${m.id}/checks/export?format=json&from=${new Date(Date.now() - 3600_000).toISOString()}`);
    expect(exported.body[0].data).toHaveProperty("exit_status", null);
  });

  it("refuses an exit status that is not a whole number from 0 to 255 with the error body, and an unknown token with 404", async () => {
    const { call, m } = await heartbeat({ period_seconds: 3600 });
    for (const bad of ["256", "-1", "1.5", "07x", "999999999999", "ok"]) {
      const res = await fetch(`${m.heartbeat_url}/${bad}`, { method: "POST", body: "x" });
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body).toMatchObject({ error: expect.any(String), code: "VALIDATION_ERROR" });
      expect(body.details.issues).toEqual([{ path: "params.exit_status", message: expect.stringContaining("a whole number from 0 to 255") }]);
    }
    expect(await checks(call, m.id)).toHaveLength(0);
    const unknown = await fetch(`${api.url}/api/v1/heartbeat/hb_${"x".repeat(32)}/0`);
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).code).toBe("NOT_FOUND");
    await call("POST", `/api/v1/monitors/${m.id}/pause`);
    expect(await (await fetch(`${m.heartbeat_url}/1`)).json()).toMatchObject({ recorded: false });
  });

  it("keeps the first 10 KB of a large body as text and says it was cut", async () => {
    const { call, m } = await heartbeat({ period_seconds: 3600 });
    const big = "é".repeat(PING_BODY_LIMIT); // 2 bytes each: cut in the middle of the text
    expect((await fetch(m.heartbeat_url, { method: "POST", body: `${big}\u0000tail` })).status).toBe(200);
    const [r] = await until(() => checks(call, m.id), (x) => x.length === 1);
    expect(r!.data.body_truncated).toBe(true);
    expect(r!.data.body).toBe("é".repeat(PING_BODY_LIMIT / 2));
    expect(new TextEncoder().encode(r!.data.body).length).toBeLessThanOrEqual(PING_BODY_LIMIT);
  });

  it("keeps markup in a body as text (the dashboard escapes it)", async () => {
    const { call, m } = await heartbeat({ period_seconds: 3600 });
    await fetch(m.heartbeat_url, { method: "POST", headers: { "content-type": "text/html" }, body: "<script>alert(1)</script>\u0000" });
    const [r] = await until(() => checks(call, m.id), (x) => x.length === 1);
    expect(r!.data.body).toBe("<script>alert(1)</script>");
  });

  it("answers 404 with the error body for a wrong token on /start and /fail, and records nothing while paused", async () => {
    for (const path of ["start", "fail"]) {
      const res = await fetch(`${api.url}/api/v1/heartbeat/hb_${"x".repeat(32)}/${path}`, { method: "POST", body: "x" });
      expect(res.status).toBe(404);
      expect((await res.json()).code).toBe("NOT_FOUND");
    }
    const { call, m } = await heartbeat({ period_seconds: 3600 });
    await call("POST", `/api/v1/monitors/${m.id}/pause`);
    expect(await (await fetch(`${m.heartbeat_url}/fail`)).json()).toMatchObject({ recorded: false });
    await Bun.sleep(100);
    expect(await checks(call, m.id)).toHaveLength(0);
  });
});
