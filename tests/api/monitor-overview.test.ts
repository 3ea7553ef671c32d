import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { makeResult } from "../../domain/results/test-fixtures.ts";
import { storeResults } from "../../domain/results/ingest.ts";
import { client, makeOrg, startTestApi, type TestApi } from "../support/api.ts";

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ ALLOW_PRIVATE_IPS: "true" });
});
afterAll(() => api.stop());

type Item = { monitor: { id: string; name: string; status: string; paused: boolean }; uptime_24h_pct: number | null; bar: { at: string; status: string; duration_ms: number | null; location: string }[] };

/** An organisation with one monitor in each state: up, down, timeout (counted as down), degraded, paused, pending (not monitored). */
async function orgInEveryState() {
  const o = await makeOrg(api.sql, "business");
  const call = client(api.url, { key: o.api_key });
  const ids: Record<string, string> = {};
  for (const name of ["up", "down", "timeout", "degraded", "paused", "pending"]) {
    const res = await call("POST", "/api/v1/monitors", { name, type: "http", config: { url: "http://127.0.0.1:9/" }, interval_seconds: 60 });
    expect(res.status).toBe(201);
    ids[name] = res.body.id;
  }
  for (const s of ["up", "down", "timeout", "degraded"]) await api.sql`update monitors set status = ${s} where id = ${ids[s]!}`;
  await api.sql`update monitors set status = 'up', paused = true where id = ${ids.paused!}`;
  return { ...o, call, ids };
}

describe("GET /monitors/overview", () => {
  it("counts every monitor by state and lists the worst first, each with 24 h uptime and its latest results oldest first", async () => {
    const { call, ids, org_id } = await orgInEveryState();
    const now = Date.now();
    // 70 results for "down" (only the newest `bars` come back), two for "up" (ingest sets each monitor's status from its latest).
    await storeResults(api.sql, [
      ...Array.from({ length: 70 }, (_, i) => makeResult(org_id, ids.down!, new Date(now - (70 - i) * 60_000), i < 35 ? "up" : "down", { duration_ms: i })),
      makeResult(org_id, ids.up!, new Date(now - 120_000), "degraded", { duration_ms: 900 }),
      makeResult(org_id, ids.up!, new Date(now - 60_000), "up", { duration_ms: 80 }),
    ]);
    const res = await call("GET", "/api/v1/monitors/overview?bars=30");
    expect(res.status).toBe(200);
    expect(res.body.counts).toEqual({ up: 1, down: 2, degraded: 1, paused: 1, not_monitored: 1, total: 6 });
    const data = res.body.data as Item[];
    expect(data.map((d) => d.monitor.name)).toEqual(["down", "timeout", "degraded", "pending", "up", "paused"]);
    const down = data[0]!;
    expect(down.bar).toHaveLength(30);
    expect(down.bar.map((b) => b.duration_ms)).toEqual(Array.from({ length: 30 }, (_, i) => 40 + i));
    expect(down.bar.every((b) => b.status === "down" && b.location === "eu")).toBe(true);
    expect(down.uptime_24h_pct).toBe(50);
    const up = data.find((d) => d.monitor.id === ids.up)!;
    expect(up.bar.map((b) => [b.status, b.duration_ms])).toEqual([["degraded", 900], ["up", 80]]);
    expect(up.bar[1]!.at).toBe(new Date(now - 60_000).toISOString());
    expect(data.find((d) => d.monitor.id === ids.pending)!).toMatchObject({ uptime_24h_pct: null, bar: [] });
    expect(res.body.pagination).toMatchObject({ page: 1, limit: 100, total: 6, hasMore: false });
  });

  it("filters by state (the counts stay those of the whole organisation) and pages", async () => {
    const { call } = await orgInEveryState();
    const down = await call("GET", "/api/v1/monitors/overview?state=down");
    expect((down.body.data as Item[]).map((d) => d.monitor.name)).toEqual(["down", "timeout"]);
    expect(down.body.counts.total).toBe(6);
    const notMonitored = await call("GET", "/api/v1/monitors/overview?state=not_monitored");
    expect((notMonitored.body.data as Item[]).map((d) => d.monitor.name)).toEqual(["pending"]);
    const paused = await call("GET", "/api/v1/monitors/overview?state=paused&search=PAU");
    expect((paused.body.data as Item[]).map((d) => d.monitor.name)).toEqual(["paused"]);
    const page2 = await call("GET", "/api/v1/monitors/overview?limit=4&page=2&sort=name");
    expect((page2.body.data as Item[]).map((d) => d.monitor.name)).toEqual(["timeout", "up"]);
    expect(page2.body.pagination).toMatchObject({ page: 2, limit: 4, total: 6, totalPages: 2, hasMore: false });
  });

  it("shows nothing of another organisation", async () => {
    const a = await orgInEveryState();
    await storeResults(api.sql, [makeResult(a.org_id, a.ids.up!, new Date(Date.now() - 60_000), "up")]);
    const b = await makeOrg(api.sql, "business");
    const res = await client(api.url, { key: b.api_key })("GET", "/api/v1/monitors/overview");
    expect(res.status).toBe(200);
    expect(res.body.counts).toEqual({ up: 0, down: 0, degraded: 0, paused: 0, not_monitored: 0, total: 0 });
    expect(res.body.data).toEqual([]);
  });

  it("refuses bad input with 400 VALIDATION_ERROR and anonymous callers with 401", async () => {
    const { call } = await orgInEveryState();
    for (const q of ["bars=29", "bars=91", "bars=x", "state=sideways", "limit=101", "page=0", "colour=red"]) {
      const res = await call("GET", `/api/v1/monitors/overview?${q}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: "VALIDATION_ERROR", error: expect.any(String), details: expect.any(Object) });
    }
    expect((await client(api.url)("GET", "/api/v1/monitors/overview")).status).toBe(401);
  });
});
