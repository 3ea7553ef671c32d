import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { makeResult } from "../../domain/results/test-fixtures.ts";
import { storeResults } from "../../domain/results/ingest.ts";
import { client, makeOrg, startTestApi, type TestApi } from "../support/api.ts";

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ ALLOW_PRIVATE_IPS: "true" });
});
afterAll(() => api.stop());

async function orgWithMonitors(n: number) {
  const o = await makeOrg(api.sql, "business");
  const call = client(api.url, { key: o.api_key });
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await call("POST", "/api/v1/monitors", { name: `m${i}`, type: "http", config: { url: "http://127.0.0.1:9/" }, interval_seconds: 60 });
    ids.push(res.body.id);
  }
  return { ...o, call, ids };
}

describe("GET /monitors/uptime", () => {
  it("answers the 24 h uptime of several monitors in one call", async () => {
    const { call, ids, org_id } = await orgWithMonitors(2);
    const now = Date.now();
    await storeResults(api.sql, [
      makeResult(org_id, ids[0]!, new Date(now - 3600_000), "up"),
      makeResult(org_id, ids[0]!, new Date(now - 1800_000), "down"),
      makeResult(org_id, ids[1]!, new Date(now - 1800_000), "up"),
    ]);
    const res = await call("GET", `/api/v1/monitors/uptime?ids=${ids.join(",")}`);
    expect(res.status).toBe(200);
    expect(res.body.window).toBe("24h");
    expect(res.body.data.map((d: { monitor_id: string; uptime_pct: number | null }) => [d.monitor_id, d.uptime_pct])).toEqual([
      [ids[0], 50],
      [ids[1], 100],
    ]);
  });

  it("gives empty figures for another organisation's monitors", async () => {
    const a = await orgWithMonitors(1);
    await storeResults(api.sql, [makeResult(a.org_id, a.ids[0]!, new Date(Date.now() - 60_000), "up")]);
    const b = await orgWithMonitors(0);
    const res = await b.call("GET", `/api/v1/monitors/uptime?ids=${a.ids[0]}&window=7d`);
    expect(res.status).toBe(200);
    expect(res.body.data[0]).toMatchObject({ monitor_id: a.ids[0], uptime_pct: null, total: 0 });
  });

  it("refuses a request without ids", async () => {
    const { call } = await orgWithMonitors(0);
    const res = await call("GET", "/api/v1/monitors/uptime");
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_ERROR");
  });
});
