import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { client, makeOrg, signUp, startTestApi, type TestApi } from "../support/api.ts";

let api: TestApi;
let selfHosted: TestApi;

beforeAll(async () => {
  api = await startTestApi({ ALLOW_PRIVATE_IPS: "true", REGIONS: "local,eu-west" });
  // Sign-up opened (self-hosted closes it by default): one test signs a user up for a session.
  selfHosted = await startTestApi({ BILLING: "off", ALLOW_PRIVATE_IPS: "true", SIGNUP_OPEN: "true" });
});
afterAll(async () => {
  await api.stop();
  await selfHosted.stop();
});

const http = (i: number, extra: Record<string, unknown> = {}) => ({ name: `bulk ${i}`, type: "http", config: { url: `http://127.0.0.1:9/${i}` }, ...extra });

async function org(plan = "business") {
  const o = await makeOrg(api.sql, plan);
  return { ...o, call: client(api.url, { key: o.api_key }) };
}

describe("POST /monitors/bulk", () => {
  it("creates every monitor in one request, in the order sent, each as POST /monitors would", async () => {
    const { call } = await org();
    const res = await call("POST", "/api/v1/monitors/bulk", {
      monitors: [http(0, { tags: ["api"] }), { name: "db", type: "tcp", config: { host: "127.0.0.1", port: 5432 }, regions: ["eu-west"] }, { name: "cron", type: "heartbeat", config: { period_seconds: 3600 } }],
    });
    expect(res.status).toBe(201);
    expect(res.body.data.map((m: any) => [m.name, m.type, m.status])).toEqual([
      ["bulk 0", "http", "pending"],
      ["db", "tcp", "pending"],
      ["cron", "heartbeat", "pending"],
    ]);
    expect(res.body.data[0]).toMatchObject({ tags: ["api"], regions: ["local"], interval_seconds: 300 });
    expect(res.body.data[1].regions).toEqual(["eu-west"]);
    // The heartbeat got its own ping URL, as a single create gives it.
    expect(res.body.data[2].heartbeat_url).toMatch(/\/heartbeat\/hb_/);
    const one = await call("GET", `/api/v1/monitors/${res.body.data[1].id}`);
    expect(one.body).toEqual(res.body.data[1]);
    expect((await call("GET", "/api/v1/monitors")).body.pagination.total).toBe(3);
  });

  it("refuses the whole batch when any item is wrong, naming each problem by its index, and stores nothing", async () => {
    const { call } = await org();
    const res = await call("POST", "/api/v1/monitors/bulk", {
      monitors: [http(0), http(1, { config: { url: "http://user:pw@127.0.0.1/" } }), http(2), http(3, { regions: ["mars-1"] }), http(4, { timeout_ms: 61_000, interval_seconds: 60 })],
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_ERROR");
    const paths = res.body.details.issues.map((i: { path: string }) => i.path);
    expect(paths.some((p: string) => p.startsWith("body.monitors[1]"))).toBe(true);
    expect(paths).toContain("body.monitors[3].regions");
    expect(paths).toContain("body.monitors[4].timeout_ms");
    expect(paths.some((p: string) => /monitors(\[0\]|\.0\b)/.test(p))).toBe(false);
    expect((await call("GET", "/api/v1/monitors")).body.pagination.total).toBe(0);
  });

  it("refuses an empty batch and one over 1,000 with 400, and a schema error inside an item with its path", async () => {
    const { call } = await org();
    expect((await call("POST", "/api/v1/monitors/bulk", { monitors: [] })).status).toBe(400);
    const big = await call("POST", "/api/v1/monitors/bulk", { monitors: Array.from({ length: 1001 }, (_, i) => http(i)) });
    expect(big.status).toBe(400);
    expect(big.body.code).toBe("VALIDATION_ERROR");
    const typeless = await call("POST", "/api/v1/monitors/bulk", { monitors: [http(0), { name: "x", config: {} }] });
    expect(typeless.status).toBe(400);
    expect(JSON.stringify(typeless.body.details.issues)).toContain("monitors");
    expect((await call("GET", "/api/v1/monitors")).body.pagination.total).toBe(0);
  });

  it("checks the plan's quota for the batch as a whole: all or none", async () => {
    const { call } = await org("free"); // 20 monitors
    for (let i = 0; i < 15; i++) expect((await call("POST", "/api/v1/monitors", http(i))).status).toBe(201);
    const over = await call("POST", "/api/v1/monitors/bulk", { monitors: Array.from({ length: 6 }, (_, i) => http(100 + i)) });
    expect(over.status).toBe(403);
    expect(over.body).toMatchObject({ code: "ENTITLEMENT_REQUIRED", details: { entitlement: "monitors", limit: 20, used: 15 } });
    expect((await call("GET", "/api/v1/monitors")).body.pagination.total).toBe(15);
    const fits = await call("POST", "/api/v1/monitors/bulk", { monitors: Array.from({ length: 5 }, (_, i) => http(200 + i)) });
    expect(fits.status).toBe(201);
    expect((await call("GET", "/api/v1/monitors")).body.pagination.total).toBe(20);
  });

  it("counts fast-interval slots across the batch (a real-time monitor holds a fast slot too)", async () => {
    const { call } = await org("business");
    const ent = (await call("GET", "/api/v1/entitlements")).body;
    const fast = ent.limits.monitors_fast as number;
    const res = await call("POST", "/api/v1/monitors/bulk", { monitors: Array.from({ length: fast + 1 }, (_, i) => http(i, { interval_seconds: 60, timeout_ms: 10_000 })) });
    expect(res.status).toBe(403);
    expect(res.body.details.entitlement).toBe("monitors_fast");
    expect((await call("GET", "/api/v1/monitors")).body.pagination.total).toBe(0);
  });

  it("needs monitors:write", async () => {
    const o = await makeOrg(api.sql, "business");
    const anonymous = await client(api.url)("POST", "/api/v1/monitors/bulk", { monitors: [http(0)] });
    expect(anonymous.status).toBe(401);
    const key = await client(api.url, { key: o.api_key })("POST", "/api/v1/api-keys", { name: "ro", scopes: ["monitors:read"] });
    const ro = await client(api.url, { key: key.body.key })("POST", "/api/v1/monitors/bulk", { monitors: [http(0)] });
    expect(ro.status).toBe(403);
  });

  it("self-hosted (nothing bills): 1,000 monitors in one request, and creating stays as fast with thousands stored", async () => {
    const user = await signUp(selfHosted.url);
    const started = performance.now();
    for (let b = 0; b < 3; b++) {
      const res = await user.call("POST", "/api/v1/monitors/bulk", { monitors: Array.from({ length: 1000 }, (_, i) => http(b * 1000 + i, { interval_seconds: 20, timeout_ms: 5000 })) });
      expect(res.status).toBe(201);
      expect(res.body.data).toHaveLength(1000);
    }
    expect(performance.now() - started).toBeLessThan(30_000);
    expect((await user.call("GET", "/api/v1/monitors?limit=1")).body.pagination.total).toBe(3000);
    expect((await user.call("POST", "/api/v1/monitors", http(5000, { interval_seconds: 10, timeout_ms: 5000 }))).status).toBe(201);
  }, 60_000);
});
