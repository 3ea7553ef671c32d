import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { client, makeOrg, startTestApi, type TestApi } from "../../../tests/support/api.ts";

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
}, 60_000);
afterAll(async () => {
  await api.stop();
}, 60_000);

describe("GET /monitors/{id}/maintenance-spans", () => {
  it("lists the occurrences of the windows covering the monitor, recurring ones expanded", async () => {
    const o = await makeOrg(api.sql, "pro");
    const call = client(api.url, { key: o.api_key });
    const mon = (await call("POST", "/api/v1/monitors", { name: "Shop", type: "http", config: { url: "https://shop.example" }, tags: ["shop"] })).body.id;
    const other = (await call("POST", "/api/v1/monitors", { name: "Blog", type: "http", config: { url: "https://blog.example" } })).body.id;
    const win = async (body: Record<string, unknown>) => {
      const r = await call("POST", "/api/v1/maintenance-windows", body);
      expect(r.status).toBe(201);
      return r.body.id as string;
    };
    const once = await win({ name: "Database upgrade", starts_at: "2026-03-02T10:00:00Z", ends_at: "2026-03-02T11:30:00Z", monitor_ids: [mon], suppress_alerts: true });
    const nightly = await win({ name: "Nightly deploy", rrule: "FREQ=DAILY;BYHOUR=2;BYMINUTE=0", starts_at: "2026-01-01T02:00:00Z", duration_minutes: 30, tags: ["shop"], pause_monitors: true, suppress_alerts: false });
    await win({ name: "Blog only", starts_at: "2026-03-02T09:00:00Z", ends_at: "2026-03-02T09:30:00Z", monitor_ids: [other] });

    const r = await call("GET", `/api/v1/monitors/${mon}/maintenance-spans?from=2026-03-01T00:00:00Z&to=2026-03-03T00:00:00Z`);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual([
      { window_id: nightly, name: "Nightly deploy", starts_at: "2026-03-01T02:00:00.000Z", ends_at: "2026-03-01T02:30:00.000Z", pause_monitors: true, suppress_alerts: false },
      { window_id: nightly, name: "Nightly deploy", starts_at: "2026-03-02T02:00:00.000Z", ends_at: "2026-03-02T02:30:00.000Z", pause_monitors: true, suppress_alerts: false },
      { window_id: once, name: "Database upgrade", starts_at: "2026-03-02T10:00:00.000Z", ends_at: "2026-03-02T11:30:00.000Z", pause_monitors: false, suppress_alerts: true },
    ]);
    // An occurrence that began before `from` and overlaps it is listed.
    const overlap = await call("GET", `/api/v1/monitors/${mon}/maintenance-spans?from=2026-03-02T11:00:00Z&to=2026-03-02T12:00:00Z`);
    expect(overlap.body.data.map((s: { name: string }) => s.name)).toEqual(["Database upgrade"]);
  });

  it("refuses a backwards or too long range with 400 and an unknown monitor with 404", async () => {
    const o = await makeOrg(api.sql, "pro");
    const call = client(api.url, { key: o.api_key });
    const mon = (await call("POST", "/api/v1/monitors", { name: "Shop", type: "http", config: { url: "https://shop.example" } })).body.id;
    const back = await call("GET", `/api/v1/monitors/${mon}/maintenance-spans?from=2026-03-02T00:00:00Z&to=2026-03-01T00:00:00Z`);
    expect(back.status).toBe(400);
    expect(back.body).toMatchObject({ code: "VALIDATION_ERROR", details: { issues: [{ path: "query.to" }] } });
    expect((await call("GET", `/api/v1/monitors/${mon}/maintenance-spans?from=2020-01-01T00:00:00Z&to=2026-01-01T00:00:00Z`)).status).toBe(400);
    expect((await call("GET", `/api/v1/monitors/${mon}/maintenance-spans?from=yesterday`)).status).toBe(400);
    expect((await call("GET", "/api/v1/monitors/mon_nope/maintenance-spans")).status).toBe(404);
    expect((await call("GET", `/api/v1/monitors/${mon}/maintenance-spans`)).body).toEqual({ data: [] });
  });
});
