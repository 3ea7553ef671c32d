import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { storeResults } from "../../domain/results/ingest.ts";
import { oldestKept } from "../../domain/results/retention.ts";
import { makeResult } from "../../domain/results/test-fixtures.ts";
import type { CheckResultInput, ResultStatus } from "../../domain/results/types.ts";
import { client, makeOrg, startTestApi, type TestApi } from "../support/api.ts";

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ ALLOW_PRIVATE_IPS: "true" });
});
afterAll(() => api.stop());

const MIN = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

async function orgWithMonitor(plan = "business", type: "http" | "tcp" = "http") {
  const o = await makeOrg(api.sql, plan);
  const call = client(api.url, { key: o.api_key });
  const config = type === "http" ? { url: "http://127.0.0.1:9/" } : { host: "127.0.0.1", port: 9 };
  const res = await call("POST", "/api/v1/monitors", { name: "m", type, config, interval_seconds: plan === "free" ? 300 : 60 });
  expect(res.status).toBe(201);
  return { ...o, call, monitorId: res.body.id as string };
}

const result = (orgId: string, monitorId: string, at: number, status: ResultStatus, extra: Partial<CheckResultInput> = {}) =>
  makeResult(orgId, monitorId, new Date(at), status, extra);

const iso = (t: number) => new Date(t).toISOString();

describe("GET /monitors/:id/checks", () => {
  it("lists results newest first in the pagination envelope", async () => {
    const { call, org_id, monitorId } = await orgWithMonitor();
    const now = Date.now();
    await storeResults(api.sql, Array.from({ length: 5 }, (_, i) => result(org_id, monitorId, now - (5 - i) * MIN, "up", { duration_ms: i })));
    const page1 = await call("GET", `/api/v1/monitors/${monitorId}/checks?limit=2`);
    expect(page1.status).toBe(200);
    expect(page1.body.pagination).toEqual({ page: 1, limit: 2, total: 5, totalPages: 3, hasMore: true });
    expect(page1.body.data.map((r: { duration_ms: number }) => r.duration_ms)).toEqual([4, 3]);
    expect(page1.body.data[0]).toMatchObject({ monitor_id: monitorId, location: "eu", location_type: "region", status: "up", error: null, data: { status_code: 200 } });
    expect(page1.body.data[0].id).toMatch(/^chk_[0-9a-f]{32}$/);
    const page3 = await call("GET", `/api/v1/monitors/${monitorId}/checks?limit=2&page=3`);
    expect(page3.body.data.map((r: { duration_ms: number }) => r.duration_ms)).toEqual([0]);
    expect(page3.body.pagination.hasMore).toBe(false);
  });

  it("filters by status, location and time range, with a total that matches the filters", async () => {
    const { call, org_id, monitorId } = await orgWithMonitor();
    const base = Date.now() - 3 * DAY;
    const rows = Array.from({ length: 40 }, (_, i) =>
      result(org_id, monitorId, base + i * 7 * MIN, i % 4 === 0 ? "down" : "up", { location: i % 2 ? "run_abc" : "eu", location_type: i % 2 ? "runner" : "region", duration_ms: i }),
    );
    await storeResults(api.sql, rows);
    const down = await call("GET", `/api/v1/monitors/${monitorId}/checks?status=down&limit=100`);
    expect(down.body.data.map((r: { duration_ms: number }) => r.duration_ms)).toEqual([36, 32, 28, 24, 20, 16, 12, 8, 4, 0]);
    expect(down.body.pagination.total).toBe(10);
    const runner = await call("GET", `/api/v1/monitors/${monitorId}/checks?location=run_abc&limit=1`);
    expect(runner.body.pagination.total).toBe(20);
    expect(runner.body.data[0]).toMatchObject({ location: "run_abc", location_type: "runner", duration_ms: 39 });
    // From the 10th result (inclusive) to the 30th (exclusive): 20 results, crossing hour boundaries.
    const ranged = await call("GET", `/api/v1/monitors/${monitorId}/checks?from=${iso(base + 10 * 7 * MIN)}&to=${iso(base + 30 * 7 * MIN)}&status=up&limit=100`);
    const expected = Array.from({ length: 20 }, (_, k) => 29 - k).filter((i) => i % 4 !== 0);
    expect(ranged.body.data.map((r: { duration_ms: number }) => r.duration_ms)).toEqual(expected);
    expect(ranged.body.pagination.total).toBe(expected.length);
  });

  it("reads the whole retention window by default, not just the last days", async () => {
    const { call, org_id, monitorId } = await orgWithMonitor("free");
    const now = Date.now();
    await storeResults(api.sql, [
      result(org_id, monitorId, now - 20 * DAY, "up"),
      result(org_id, monitorId, now - 40 * DAY, "down"), // older than the free plan's 30 days
    ]);
    const res = await call("GET", `/api/v1/monitors/${monitorId}/checks`);
    expect(res.body.pagination.total).toBe(1);
    expect(res.body.data[0].scheduled_at).toBe(iso(now - 20 * DAY));
  });

  it("refuses a limit above 100, a bad status, a malformed time and an empty range", async () => {
    const { call, monitorId } = await orgWithMonitor();
    const tooMany = await call("GET", `/api/v1/monitors/${monitorId}/checks?limit=101`);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.code).toBe("VALIDATION_ERROR");
    expect((await call("GET", `/api/v1/monitors/${monitorId}/checks?status=sideways`)).status).toBe(400);
    expect((await call("GET", `/api/v1/monitors/${monitorId}/checks?from=yesterday`)).status).toBe(400);
    const backwards = await call("GET", `/api/v1/monitors/${monitorId}/checks?from=${iso(Date.now())}&to=${iso(Date.now() - HOUR)}`);
    expect(backwards.status).toBe(400);
    expect(backwards.body.details.issues[0].path).toBe("query.from");
  });
});

describe("GET /monitors/:id/checks/:checkId", () => {
  it("answers one result by its id or by its job id, and 404 for another monitor's result", async () => {
    const { call, org_id, monitorId } = await orgWithMonitor();
    const other = (await call("POST", "/api/v1/monitors", { name: "other", type: "http", config: { url: "http://127.0.0.1:9/" }, interval_seconds: 60 })).body.id;
    const stored = result(org_id, monitorId, Date.now() - MIN, "down", { error: "connection refused", data: { status_code: null, ip: "127.0.0.1" } });
    await storeResults(api.sql, [stored]);
    const [listed] = (await call("GET", `/api/v1/monitors/${monitorId}/checks`)).body.data;
    const byId = await call("GET", `/api/v1/monitors/${monitorId}/checks/${listed.id}`);
    expect(byId.status).toBe(200);
    expect(byId.body).toEqual(listed);
    expect(byId.body).toMatchObject({ job_id: stored.job_id, status: "down", error: "connection refused", data: { status_code: null, ip: "127.0.0.1" } });
    expect((await call("GET", `/api/v1/monitors/${monitorId}/checks/${stored.job_id}`)).body.id).toBe(listed.id);
    expect((await call("GET", `/api/v1/monitors/${other}/checks/${listed.id}`)).status).toBe(404);
    const missing = await call("GET", `/api/v1/monitors/${monitorId}/checks/chk_${"0".repeat(32)}`);
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe("NOT_FOUND");
  });
});

describe("GET /monitors/:id/checks/export", () => {
  it("streams CSV oldest first with the type's data fields as columns", async () => {
    const { org_id, monitorId, api_key } = await orgWithMonitor();
    const base = Date.now() - 2 * HOUR;
    await storeResults(api.sql, [
      result(org_id, monitorId, base, "up", { duration_ms: 12, data: { status_code: 200, ttfb_ms: 4 } }),
      result(org_id, monitorId, base + MIN, "down", { error: '=HYPERLINK("http://evil")', data: { status_code: 500, final_url: "http://x/a,b" } }),
      result(org_id, monitorId, base - 3 * DAY, "up"),
    ]);
    const res = await fetch(`${api.url}/api/v1/monitors/${monitorId}/checks/export?from=${iso(base - HOUR)}`, { headers: { authorization: `Bearer ${api_key}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/csv");
    expect(res.headers.get("content-disposition")).toMatch(new RegExp(`^attachment; filename="${monitorId}-checks-\\d{8}T\\d{6}Z-\\d{8}T\\d{6}Z\\.csv"$`));
    const lines = (await res.text()).trimEnd().split("\n");
    expect(lines[0]).toBe(
      "id,scheduled_at,checked_at,status,duration_ms,location,location_type,error,job_id,data.status_code,data.dns_ms,data.connect_ms,data.tls_ms,data.ttfb_ms,data.response_time,data.body_bytes,data.final_url,data.redirects,data.ip,data.assertions,data.assertions_failed,data",
    );
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(`,${iso(base)},${iso(base + 1000)},up,12,eu,region,,`);
    expect(lines[1]).toContain(',200,,,,4,,,,,,,,"{""ttfb_ms"":4,""status_code"":200}"'); // jsonb orders keys
    expect(lines[2]).toContain(`,down,100,eu,region,"'=HYPERLINK(""http://evil"")",`);
    expect(lines[2]).toContain(',500,,,,,,,"http://x/a,b",,,');
  });

  it("exports JSON: the same objects as the list, oldest first, filtered", async () => {
    const { call, org_id, monitorId } = await orgWithMonitor();
    const base = Date.now() - HOUR;
    await storeResults(api.sql, Array.from({ length: 6 }, (_, i) => result(org_id, monitorId, base + i * MIN, i % 2 ? "timeout" : "up")));
    const res = await call("GET", `/api/v1/monitors/${monitorId}/checks/export?format=json&status=up`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("application/json");
    const listed = (await call("GET", `/api/v1/monitors/${monitorId}/checks?status=up`)).body.data;
    expect(res.body).toEqual([...listed].reverse());
    expect(res.body).toHaveLength(3);
    const empty = await call("GET", `/api/v1/monitors/${monitorId}/checks/export?format=json&from=${iso(base - 2 * DAY)}&to=${iso(base - DAY)}`);
    expect(empty.body).toEqual([]);
  });

  it("exports more rows than one cursor batch, every row once", async () => {
    const { call, org_id, monitorId } = await orgWithMonitor();
    const base = Date.now() - 3 * DAY;
    await storeResults(api.sql, Array.from({ length: 2500 }, (_, i) => result(org_id, monitorId, base + i * MIN, "up", { duration_ms: i })));
    const res = await call("GET", `/api/v1/monitors/${monitorId}/checks/export?format=json`);
    expect(res.body.map((r: { duration_ms: number }) => r.duration_ms)).toEqual(Array.from({ length: 2500 }, (_, i) => i));
    const csv = await call("GET", `/api/v1/monitors/${monitorId}/checks/export`);
    expect((csv.body as string).trimEnd().split("\n")).toHaveLength(2501);
  });

  it("ends the database cursor when the client goes away mid-export", async () => {
    const { org_id, monitorId, api_key } = await orgWithMonitor();
    const base = Date.now() - 5 * DAY;
    // Enough rows that the export cannot be done (all in socket buffers) before the first read: it must hold its cursor.
    await storeResults(api.sql, Array.from({ length: 12_000 }, (_, i) => result(org_id, monitorId, base + i * 30_000, "up")));
    const cursors = async () =>
      (await api.sql`
        select state from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid() and query like '%order by scheduled_at, check_result_id(%' and query like ${`%check_results%`}`).map((r) => r.state as string);
    const abort = new AbortController();
    const res = await fetch(`${api.url}/api/v1/monitors/${monitorId}/checks/export?format=json`, { headers: { authorization: `Bearer ${api_key}` }, signal: abort.signal });
    const reader = res.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    expect(await cursors()).toContain("active"); // the export holds its cursor between batches
    abort.abort();
    const deadline = Date.now() + 5000;
    while ((await cursors()).includes("active") && Date.now() < deadline) await Bun.sleep(20);
    expect(await cursors()).not.toContain("active");
  }, 20_000);

  it("refuses an unknown format", async () => {
    const { call, monitorId } = await orgWithMonitor();
    expect((await call("GET", `/api/v1/monitors/${monitorId}/checks/export?format=xml`)).status).toBe(400);
  });
});

describe("GET /monitors/:id/uptime", () => {
  it("answers the four windows and a custom range, overall and per location, by the uptime rule", async () => {
    const { call, org_id, monitorId } = await orgWithMonitor();
    const now = Date.now();
    await storeResults(api.sql, [
      // Last 24 h in eu: up, degraded (counts up), down, timeout (counts down), unavailable (left out).
      result(org_id, monitorId, now - 5 * HOUR, "up"),
      result(org_id, monitorId, now - 4 * HOUR, "degraded"),
      result(org_id, monitorId, now - 3 * HOUR, "down"),
      result(org_id, monitorId, now - 2 * HOUR, "timeout"),
      result(org_id, monitorId, now - 1 * HOUR, "unavailable"),
      // On a runner, 3 days ago: up twice.
      result(org_id, monitorId, now - 3 * DAY, "up", { location: "run_x", location_type: "runner" }),
      result(org_id, monitorId, now - 3 * DAY + MIN, "up", { location: "run_x", location_type: "runner" }),
      // 60 days ago, down.
      result(org_id, monitorId, now - 60 * DAY, "down"),
    ]);
    const res = await call("GET", `/api/v1/monitors/${monitorId}/uptime?from=${iso(now - 4 * DAY)}&to=${iso(now - 2 * DAY)}`);
    expect(res.status).toBe(200);
    const w = res.body.windows;
    expect(w["24h"]).toMatchObject({ uptime_pct: 50, total: 5, up: 1, degraded: 1, down: 1, timeout: 1, unavailable: 1, downtime_seconds_estimate: 120 });
    expect(w["24h"].locations).toEqual([{ location: "eu", location_type: "region", uptime_pct: 50, total: 5, up: 1, down: 1, degraded: 1, timeout: 1, unavailable: 1, downtime_seconds_estimate: 120 }]);
    expect(w["7d"]).toMatchObject({ uptime_pct: (4 / 6) * 100, total: 7 });
    expect(w["7d"].locations.map((l: { location: string; location_type: string; uptime_pct: number }) => [l.location, l.location_type, l.uptime_pct])).toEqual([
      ["eu", "region", 50],
      ["run_x", "runner", 100],
    ]);
    expect(w["30d"].total).toBe(7);
    expect(w["90d"]).toMatchObject({ total: 8, down: 2, uptime_pct: (4 / 7) * 100 });
    expect(new Date(w["90d"].to).getTime() - new Date(w["90d"].from).getTime()).toBe(90 * DAY);
    expect(res.body.range).toMatchObject({ from: iso(now - 4 * DAY), to: iso(now - 2 * DAY), uptime_pct: 100, total: 2, up: 2 });
    expect(res.body.range.locations).toHaveLength(1);
  });

  it("answers null uptime for a monitor without results and no range unless asked", async () => {
    const { call, monitorId } = await orgWithMonitor();
    const res = await call("GET", `/api/v1/monitors/${monitorId}/uptime`);
    expect(res.body.windows["24h"]).toMatchObject({ uptime_pct: null, total: 0, locations: [] });
    expect(res.body.range).toBeNull();
  });

  it("refuses `to` without `from`", async () => {
    const { call, monitorId } = await orgWithMonitor();
    const res = await call("GET", `/api/v1/monitors/${monitorId}/uptime?to=${iso(Date.now())}`);
    expect(res.status).toBe(400);
    expect(res.body.details.issues[0].path).toBe("query.from");
  });
});

describe("GET /monitors/:id/aggregates", () => {
  it("answers hourly buckets with count, uptime and response-time figures, every bucket present", async () => {
    const { call, org_id, monitorId } = await orgWithMonitor();
    const hour = Math.floor(Date.now() / HOUR) * HOUR - 5 * HOUR;
    const durations = [10, 20, 30, 40, 1000];
    await storeResults(api.sql, [
      ...durations.map((d, i) => result(org_id, monitorId, hour + i * MIN, i === 4 ? "timeout" : "up", { duration_ms: d })),
      result(org_id, monitorId, hour + 10 * MIN, "unavailable", { duration_ms: 0 }),
      result(org_id, monitorId, hour + 2 * HOUR, "down", { duration_ms: 7, location: "us" }),
    ]);
    const res = await call("GET", `/api/v1/monitors/${monitorId}/aggregates?bucket=hour&from=${iso(hour)}&to=${iso(hour + 3 * HOUR)}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ monitor_id: monitorId, bucket: "hour", from: iso(hour), to: iso(hour + 3 * HOUR), location: null });
    expect(res.body.data).toHaveLength(3);
    const [first, empty, third] = res.body.data;
    expect(first).toMatchObject({ start: iso(hour), checks: 5, unavailable: 1, uptime_pct: 80, avg_ms: 220, max_ms: 1000 });
    expect(first.p50_ms).toBeGreaterThanOrEqual(25);
    expect(first.p50_ms).toBeLessThan(40);
    expect(first.p95_ms).toBeGreaterThan(800);
    expect(first.p95_ms).toBeLessThanOrEqual(1000);
    expect(first.p99_ms).toBeGreaterThanOrEqual(first.p95_ms);
    expect(empty).toEqual({ start: iso(hour + HOUR), checks: 0, unavailable: 0, uptime_pct: null, avg_ms: null, p50_ms: null, p95_ms: null, p99_ms: null, max_ms: null });
    expect(third).toMatchObject({ checks: 1, uptime_pct: 0, max_ms: 7 });
    const eu = await call("GET", `/api/v1/monitors/${monitorId}/aggregates?bucket=hour&from=${iso(hour)}&to=${iso(hour + 3 * HOUR)}&location=eu`);
    expect(eu.body.location).toBe("eu");
    expect(eu.body.data[2].checks).toBe(0);
  });

  it("answers daily buckets, 30 days by default, and hourly ones for the last 24 h by default", async () => {
    const { call, org_id, monitorId } = await orgWithMonitor();
    // 01:00 UTC two days ago: the two results share a day bucket whatever the time of the run.
    const twoDaysAgo = Math.floor((Date.now() - 2 * DAY) / DAY) * DAY + HOUR;
    await storeResults(api.sql, [result(org_id, monitorId, twoDaysAgo, "up"), result(org_id, monitorId, twoDaysAgo + MIN, "down")]);
    const days = await call("GET", `/api/v1/monitors/${monitorId}/aggregates?bucket=day`);
    expect(days.body.data).toHaveLength(31);
    expect(days.body.data.reduce((n: number, b: { checks: number }) => n + b.checks, 0)).toBe(2);
    expect(days.body.data.find((b: { checks: number }) => b.checks > 0).uptime_pct).toBe(50);
    const hours = await call("GET", `/api/v1/monitors/${monitorId}/aggregates`);
    expect(hours.body.bucket).toBe("hour");
    expect(hours.body.data.length).toBeGreaterThanOrEqual(24);
    expect(hours.body.data.length).toBeLessThanOrEqual(25);
    expect((await call("GET", `/api/v1/monitors/${monitorId}/aggregates?bucket=week`)).status).toBe(400);
  });
});

describe("access to results", () => {
  it("answers 404 for another organisation's monitor on every results route", async () => {
    const a = await orgWithMonitor();
    const b = await orgWithMonitor();
    await storeResults(api.sql, [result(a.org_id, a.monitorId, Date.now() - MIN, "up")]);
    const [r] = (await a.call("GET", `/api/v1/monitors/${a.monitorId}/checks`)).body.data;
    for (const path of ["checks", `checks/${r.id}`, "checks/export", "uptime", "aggregates"]) {
      const res = await b.call("GET", `/api/v1/monitors/${a.monitorId}/${path}`);
      expect([path, res.status, res.body.code]).toEqual([path, 404, "NOT_FOUND"]);
    }
    expect((await b.call("GET", `/api/v1/monitors/mon_nope/checks`)).status).toBe(404);
  });

  it("needs monitors:read", async () => {
    const { call, monitorId } = await orgWithMonitor();
    const alertsOnly = client(api.url, { key: (await call("POST", "/api/v1/api-keys", { name: "alerts", scopes: ["alerts:read"] })).body.key });
    const readOnly = client(api.url, { key: (await call("POST", "/api/v1/api-keys", { name: "ro", scopes: ["monitors:read"] })).body.key });
    for (const path of [`/monitors/${monitorId}/checks`, `/monitors/${monitorId}/checks/export`, `/monitors/${monitorId}/uptime`, `/monitors/${monitorId}/aggregates`, "/retention"]) {
      const denied = await alertsOnly("GET", `/api/v1${path}`);
      expect([path, denied.status, denied.body.code]).toEqual([path, 403, "PERMISSION_DENIED"]);
      expect([path, (await readOnly("GET", `/api/v1${path}`)).status]).toEqual([path, 200]);
    }
  });
});

describe("GET /retention", () => {
  it("answers the plan's retention and the oldest instant kept", async () => {
    const free = await orgWithMonitor("free");
    const res = await free.call("GET", "/api/v1/retention");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ retention_days: 30, oldest_kept: oldestKept(new Date(), 30).toISOString() });
    expect((await (await orgWithMonitor("business")).call("GET", "/api/v1/retention")).body.retention_days).toBe(730);
  });
});
