import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { activeWindowsFor } from "../../domain/maintenance/active.ts";
import { client, makeOrg, startTestApi, type TestApi } from "../support/api.ts";

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => {
  await api.stop();
});

async function org() {
  const o = await makeOrg(api.sql, "business");
  return { ...o, call: client(api.url, { key: o.api_key }) };
}

const inMinutes = (m: number) => new Date(Date.now() + m * 60_000).toISOString();
const PATH = "/api/v1/maintenance-windows";

describe("maintenance windows", () => {
  it("creates, reads, updates and deletes a one-off window", async () => {
    const { call } = await org();
    const created = await call("POST", PATH, { name: "DB upgrade", starts_at: inMinutes(-5), ends_at: inMinutes(55), tags: ["db"], pause_monitors: true });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "DB upgrade", kind: "once", state: "active", pause_monitors: true, suppress_alerts: true, tags: ["db"], timezone: "UTC" });
    expect(created.body.id).toStartWith("mw_");
    const id = created.body.id;
    expect((await call("GET", `${PATH}/${id}`)).body.name).toBe("DB upgrade");
    const patched = await call("PATCH", `${PATH}/${id}`, { starts_at: inMinutes(60), ends_at: inMinutes(120), description: "moved" });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ state: "upcoming", description: "moved", next_starts_at: expect.any(String) });
    expect((await call("DELETE", `${PATH}/${id}`)).status).toBe(204);
    expect((await call("GET", `${PATH}/${id}`)).status).toBe(404);
  });

  it("creates recurring windows from an RRULE or a cron expression in a time zone", async () => {
    const { call } = await org();
    const rrule = await call("POST", PATH, { name: "Sunday patching", rrule: "FREQ=WEEKLY;BYDAY=SU;BYHOUR=2;BYMINUTE=0", duration_minutes: 120, timezone: "Europe/Berlin" });
    expect(rrule.status).toBe(201);
    expect(rrule.body).toMatchObject({ kind: "rrule", duration_minutes: 120, timezone: "Europe/Berlin" });
    expect(rrule.body.starts_at).not.toBeNull();
    const next = new Date(rrule.body.next_starts_at ?? rrule.body.current_ends_at);
    expect(Number.isNaN(next.getTime())).toBe(false);
    const cron = await call("POST", PATH, { name: "Nightly backup", cron: "30 1 * * *", duration_minutes: 30, timezone: "America/New_York", suppress_alerts: true });
    expect(cron.status).toBe(201);
    expect(cron.body.kind).toBe("cron");
  });

  it("refuses impossible windows, naming the field", async () => {
    const { call } = await org();
    const cases: [Record<string, unknown>, string][] = [
      [{ name: "x", starts_at: inMinutes(10) }, "body.ends_at"],
      [{ name: "x", starts_at: inMinutes(10), ends_at: inMinutes(5) }, "body.ends_at"],
      [{ name: "x", rrule: "FREQ=DAILY" }, "body.duration_minutes"],
      [{ name: "x", rrule: "FREQ=SOMETIMES", duration_minutes: 5 }, "body.rrule"],
      [{ name: "x", cron: "61 * * * *", duration_minutes: 5 }, "body.cron"],
      [{ name: "x", cron: "0 * * * *", duration_minutes: 5, timezone: "Europe/Atlantis" }, "body.timezone"],
      [{ name: "x", rrule: "FREQ=DAILY", cron: "0 * * * *", duration_minutes: 5 }, "body.cron"],
      [{ name: "x", starts_at: inMinutes(1), ends_at: inMinutes(2), monitor_ids: ["mon_nope"] }, "body.monitor_ids"],
    ];
    for (const [body, path] of cases) {
      const res = await call("POST", PATH, body);
      expect([res.status, res.body.code, res.body.details?.issues?.[0]?.path]).toEqual([400, "VALIDATION_ERROR", path]);
    }
    expect((await call("POST", PATH, { name: "x", starts_at: inMinutes(1), ends_at: inMinutes(2), colour: "red" })).status).toBe(400);
  });

  it("lists windows newest first, paginated, filtered by active or upcoming", async () => {
    const { call } = await org();
    await call("POST", PATH, { name: "now", starts_at: inMinutes(-1), ends_at: inMinutes(30) });
    await call("POST", PATH, { name: "later", starts_at: inMinutes(60), ends_at: inMinutes(90) });
    await call("POST", PATH, { name: "past", starts_at: inMinutes(-90), ends_at: inMinutes(-60) });
    const all = await call("GET", `${PATH}?limit=2`);
    expect(all.body.pagination).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2, hasMore: true });
    expect(all.body.data.map((w: { name: string }) => w.name)).toEqual(["past", "later"]);
    expect((await call("GET", `${PATH}?state=active`)).body.data.map((w: { name: string }) => w.name)).toEqual(["now"]);
    expect((await call("GET", `${PATH}?state=upcoming`)).body.data.map((w: { name: string }) => w.name)).toEqual(["later"]);
    expect((await call("GET", `${PATH}?state=ended`)).body.data.map((w: { name: string }) => w.name)).toEqual(["past"]);
  });

  it("keeps each organisation's windows to itself and needs the monitors scopes", async () => {
    const a = await org();
    const b = await org();
    const w = await a.call("POST", PATH, { name: "mine", starts_at: inMinutes(1), ends_at: inMinutes(2) });
    expect((await b.call("GET", `${PATH}/${w.body.id}`)).status).toBe(404);
    expect((await b.call("PATCH", `${PATH}/${w.body.id}`, { name: "theirs" })).status).toBe(404);
    expect((await b.call("DELETE", `${PATH}/${w.body.id}`)).status).toBe(404);
    expect((await b.call("GET", PATH)).body.pagination.total).toBe(0);
    const key = await a.call("POST", "/api/v1/api-keys", { name: "ro", scopes: ["monitors:read"] });
    const readOnly = client(api.url, { key: key.body.key });
    expect((await readOnly("GET", PATH)).status).toBe(200);
    expect((await readOnly("POST", PATH, { name: "no", starts_at: inMinutes(1), ends_at: inMinutes(2) })).status).toBe(403);
  });

  it("tells alerting which windows cover a monitor at a moment (activeWindowsFor)", async () => {
    const { call, org_id } = await org();
    const mon = await call("POST", "/api/v1/monitors", { name: "m", type: "http", config: { url: "https://example.test/" }, tags: ["db"] });
    expect(mon.status).toBe(201);
    await call("POST", PATH, { name: "by tag", starts_at: inMinutes(-1), ends_at: inMinutes(30), tags: ["db"], suppress_alerts: true });
    await call("POST", PATH, { name: "by id, later", starts_at: inMinutes(60), ends_at: inMinutes(90), monitor_ids: [mon.body.id] });
    await call("POST", PATH, { name: "other tag", starts_at: inMinutes(-1), ends_at: inMinutes(30), tags: ["web"] });
    await call("POST", PATH, { name: "everything", cron: "* * * * *", duration_minutes: 1 });
    const now = await activeWindowsFor(api.sql, org_id, mon.body.id, ["db"], new Date());
    expect(now.map((w) => w.name).sort()).toEqual(["by tag", "everything"]);
    const later = await activeWindowsFor(api.sql, org_id, mon.body.id, ["db"], new Date(Date.now() + 70 * 60_000));
    expect(later.map((w) => w.name).sort()).toEqual(["by id, later", "everything"]);
  });

  it("keeps a config key: unique per organisation (409), kept across other changes, cleared with null", async () => {
    const a = await org();
    const b = await org();
    const body = { name: "DB upgrade", starts_at: inMinutes(60), ends_at: inMinutes(120) };
    const created = await a.call("POST", PATH, { ...body, key: "db-upgrade" });
    expect(created.status).toBe(201);
    expect(created.body.key).toBe("db-upgrade");
    expect((await a.call("POST", PATH, { ...body, key: "db-upgrade" })).status).toBe(409);
    const plain = await a.call("POST", PATH, body);
    expect(plain.body.key).toBeNull();
    expect((await a.call("PATCH", `${PATH}/${plain.body.id}`, { key: "db-upgrade" })).status).toBe(409);
    expect((await a.call("POST", PATH, { ...body, key: "Bad Key" })).status).toBe(400);
    expect((await a.call("POST", PATH, { ...body, key: "shop/db-upgrade" })).body.key).toBe("shop/db-upgrade");
    expect((await a.call("POST", PATH, { ...body, key: "a.b/db-upgrade" })).status).toBe(400);
    expect((await a.call("PATCH", `${PATH}/${created.body.id}`, { name: "Renamed" })).body).toMatchObject({ name: "Renamed", key: "db-upgrade" });
    expect((await a.call("PATCH", `${PATH}/${created.body.id}`, { key: null })).body.key).toBeNull();
    expect((await b.call("POST", PATH, { ...body, key: "db-upgrade" })).status).toBe(201);
  });

  it("still edits a window after a monitor it names was deleted, and refuses only monitors the edit adds", async () => {
    const { call } = await org();
    const mon = async (name: string) => (await call("POST", "/api/v1/monitors", { name, type: "http", config: { url: "https://shop.example" } })).body.id as string;
    const [gone, kept] = [await mon("Old shop"), await mon("Shop")];
    const created = await call("POST", PATH, { name: "DB upgrade", starts_at: inMinutes(60), ends_at: inMinutes(120), monitor_ids: [gone, kept] });
    expect(created.status).toBe(201);
    expect((await call("DELETE", `/api/v1/monitors/${gone}`)).status).toBe(204);
    const renamed = await call("PATCH", `${PATH}/${created.body.id}`, { name: "DB upgrade, moved", ends_at: inMinutes(150) });
    expect([renamed.status, renamed.body.name]).toEqual([200, "DB upgrade, moved"]);
    // Still covers nothing but `kept`: the stale id does not widen the window to every monitor.
    expect(renamed.body.monitor_ids).toEqual([gone, kept]);
    const added = await call("PATCH", `${PATH}/${created.body.id}`, { monitor_ids: [kept, "mon_nope"] });
    expect([added.status, added.body.details?.issues]).toEqual([400, [{ path: "body.monitor_ids", message: "Unknown monitor(s): mon_nope" }]]);
  });
});
