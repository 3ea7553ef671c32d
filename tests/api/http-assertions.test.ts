import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { client, makeOrg, startTestApi, type TestApi } from "../support/api.ts";

/** Response assertions of HTTP monitors through the API: validated on save, run by run-now, outcomes stored in the result's data. */
let api: TestApi;
let target: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  api = await startTestApi({ ALLOW_PRIVATE_IPS: "true" });
  target = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (req) => {
      const path = new URL(req.url).pathname;
      if (path === "/health") return Response.json({ status: "ok", db: { latency_ms: 12 }, queues: ["mail", "checks"] }, { headers: { "x-build": "2026.11.3" } });
      if (path === "/broken") return Response.json({ status: "degraded", db: null, queues: [] });
      return new Response("not found", { status: 404 });
    },
  });
});
afterAll(async () => {
  target.stop(true);
  await api.stop();
});

const url = (path: string) => `http://127.0.0.1:${target.port}${path}`;

async function org() {
  const o = await makeOrg(api.sql, "business");
  return client(api.url, { key: o.api_key });
}

const healthAssertions = [
  { source: "status_code", operator: "equals", target: 200 },
  { source: "response_time", operator: "less_than", target: 5000 },
  { source: "header", property: "X-Build", operator: "matches", target: "^2026\\." },
  { source: "body", operator: "not_contains", target: "exception" },
  { source: "json", property: "$.status", operator: "equals", target: "ok" },
  { source: "json", property: "$.db.latency_ms", operator: "less_than", target: 100, severity: "degraded" },
  { source: "json", property: "$.queues", operator: "contains", target: "mail" },
  { source: "json", property: "$.db", operator: "not_empty" },
];

describe("http assertions through the API", () => {
  it("stores assertions, runs them on run-now and keeps each outcome in the result's data", async () => {
    const call = await org();
    const created = await call("POST", "/api/v1/monitors", { name: "health", type: "http", config: { url: url("/health"), assertions: healthAssertions } });
    expect(created.status).toBe(201);
    // The default severity is filled in on save.
    expect(created.body.config.assertions).toEqual(healthAssertions.map((a) => ({ severity: "down", ...a })));

    const run = await call("POST", `/api/v1/monitors/${created.body.id}/run`);
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ status: "up", recorded: true, data: { assertions_failed: 0, status_code: 200 } });
    const stored = await call("GET", `/api/v1/monitors/${created.body.id}/checks/${run.body.id}`);
    expect(stored.status).toBe(200);
    const outcomes = stored.body.data.assertions as Array<Record<string, unknown>>;
    expect(outcomes).toHaveLength(healthAssertions.length);
    expect(outcomes.every((o) => o.passed === true)).toBe(true);
    expect(outcomes[4]).toEqual({ index: 5, source: "json", property: "$.status", operator: "equals", target: "ok", actual: "ok", passed: true, severity: "down" });
    expect(outcomes[2]).toMatchObject({ source: "header", property: "X-Build", actual: "2026.11.3" });
  });

  it("makes the check down naming the failed assertion, or degraded when only a degraded one failed", async () => {
    const call = await org();
    const down = await call("POST", "/api/v1/monitors", { name: "broken", type: "http", config: { url: url("/broken"), assertions: healthAssertions } });
    const ran = await call("POST", `/api/v1/monitors/${down.body.id}/run`);
    expect(ran.body.status).toBe("down");
    expect(ran.body.error).toBe(
      '5 assertions failed: #3 header X-Build matches "^2026\\\\."; #5 json $.status equals "ok" (got "degraded"); #6 json $.db.latency_ms less than 100; #7 json $.queues contains "mail" (got "[]"); #8 json $.db not empty (got "null")',
    );
    expect(ran.body.data.assertions_failed).toBe(5);
    expect(ran.body.data.assertions.map((o: { passed: boolean }) => o.passed)).toEqual([true, true, false, true, false, false, false, false]);

    const slow = await call("POST", "/api/v1/monitors", {
      name: "slow db",
      type: "http",
      config: { url: url("/health"), assertions: [{ source: "json", property: "$.db.latency_ms", operator: "less_than", target: 5, severity: "degraded" }] },
    });
    const degraded = await call("POST", `/api/v1/monitors/${slow.body.id}/run`);
    expect(degraded.body).toMatchObject({ status: "degraded", error: 'assertion failed: #1 json $.db.latency_ms less than 5 (got 12)' });
  });

  it("expects a 404 when a status_code assertion says so, and keeps expected_status working without one", async () => {
    const call = await org();
    const gone = await call("POST", "/api/v1/monitors", { name: "gone", type: "http", config: { url: url("/old-page"), assertions: [{ source: "status_code", operator: "equals", target: 404 }] } });
    expect((await call("POST", `/api/v1/monitors/${gone.body.id}/run`)).body.status).toBe("up");
    const old = await call("POST", "/api/v1/monitors", { name: "old", type: "http", config: { url: url("/old-page"), expected_status: [404] } });
    expect((await call("POST", `/api/v1/monitors/${old.body.id}/run`)).body).toMatchObject({ status: "up", data: { assertions: null } });
  });

  it("runs assertions on keyword monitors too", async () => {
    const call = await org();
    const kw = await call("POST", "/api/v1/monitors", { name: "kw", type: "keyword", config: { url: url("/health"), keyword: "queues", assertions: [{ source: "json", property: "$.queues[0]", operator: "equals", target: "checks" }] } });
    expect(kw.status).toBe(201);
    const ran = await call("POST", `/api/v1/monitors/${kw.body.id}/run`);
    expect(ran.body).toMatchObject({ status: "down", error: 'assertion failed: #1 json $.queues[0] equals "checks" (got "mail")', data: { keyword_found: true } });
  });

  it("refuses bad assertions on create and update with a 400 naming each one", async () => {
    const call = await org();
    const create = (assertions: unknown[]) => call("POST", "/api/v1/monitors", { name: "bad", type: "http", config: { url: url("/health"), assertions } });
    const cases: Array<[unknown, string, string]> = [
      [{ source: "body", operator: "matches", target: "(unclosed" }, "body.config.assertions.0.target", "not a valid regular expression (RE2 syntax): missing closing ): `(unclosed`"],
      [{ source: "json", property: "$.items[", operator: "exists" }, "body.config.assertions.0.property", "not a valid JSONPath expression (RFC 9535): "],
      [{ source: "status_code", operator: "matches", target: "2.." }, "body.config.assertions.0.operator", "operator matches does not apply to status_code; use one of: equals, not_equals, greater_than, less_than"],
      [{ source: "body", operator: "resembles", target: "x" }, "body.config.assertions.0.operator", "Expected one of: equals, not_equals, greater_than"],
      [{ source: "cookie", operator: "exists" }, "body.config.assertions.0.source", "Expected one of: status_code, response_time, header, body, json"],
      [{ source: "header", operator: "exists" }, "body.config.assertions.0.property", "a header assertion needs property"],
      [{ source: "body", operator: "contains", target: "x", severity: "fatal" }, "body.config.assertions.0.severity", "Expected one of: down, degraded"],
    ];
    for (const [assertion, path, message] of cases) {
      const res = await create([assertion]);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("VALIDATION_ERROR");
      const issue = (res.body.details.issues as Array<{ path: string; message: string }>).find((i) => i.path === path);
      expect(issue?.message ?? JSON.stringify(res.body)).toStartWith(message);
    }

    const ok = await create([{ source: "body", operator: "contains", target: "ok" }]);
    expect(ok.status).toBe(201);
    const patched = await call("PATCH", `/api/v1/monitors/${ok.body.id}`, { config: { ...ok.body.config, assertions: [{ source: "body", operator: "contains", target: "ok" }, { source: "body", operator: "matches", target: "a{2,1}" }] } });
    expect(patched.status).toBe(400);
    expect(patched.body.details.issues[0].path).toBe("body.config.assertions.1.target");
    expect(patched.body.error).toContain("assertions.1.target");
  });
});
