import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from "bun:test";
import { startIngest } from "../../alerting/ingest/ingest.ts";
import type { ConsumerHandle } from "../../core/bus/index.ts";
import { silentLogger } from "../../core/log.ts";
import { flowPalette } from "../../api/routes/flow-plugins/flow-palette.ts";
import type { BrowserPool } from "../../runner/checks/browser/browser-pool.ts";
import { html, startPageServer, testPool } from "../../runner/checks/browser/test-support.ts";
import { client, makeOrg, startTestApi, type TestApi } from "../support/api.ts";
import { until } from "../support/scheduling.ts";

setDefaultTimeout(60_000);

let api: TestApi;
let ingest: ConsumerHandle;
let pool: BrowserPool;
let site: ReturnType<typeof startPageServer>;
const passwords: string[] = [];

beforeAll(async () => {
  api = await startTestApi({ ALLOW_PRIVATE_IPS: "true" });
  ingest = await startIngest({ sql: api.sql, bus: api.bus, log: silentLogger, maxWaitMs: 10 });
  site = startPageServer({
    "/": () => html("<title>Store</title><h1>Open for business</h1><button id='buy'>Buy</button>"),
    "/login": () => html("<title>Login</title><form method='post' action='/session'><input id='pw' name='pw' type='password'><button id='go'>Go</button></form>"),
    "/session": async (req) => {
      const pw = new URLSearchParams(await req.text()).get("pw");
      passwords.push(pw ?? "");
      return pw === "correct horse" ? html("<title>Welcome</title><p>Signed in</p>") : html("<title>Login</title><p>Wrong password</p>", { status: 401 });
    },
  });
  pool = await testPool();
});
afterAll(async () => {
  await pool?.close();
  site?.stop();
  await ingest?.stop();
  await api?.stop();
});

async function org(plan = "unlimited") {
  const o = await makeOrg(api.sql, plan);
  return { ...o, call: client(api.url, { key: o.api_key }) };
}

describe("GET /plugins/flow/components", () => {
  it("lists every flow step type with its fields, generated from the validator's schema", async () => {
    const { call } = await org();
    const res = await call("GET", "/api/v1/plugins/flow/components?limit=100");
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(JSON.parse(JSON.stringify(flowPalette())));
    expect(res.body.pagination).toMatchObject({ page: 1, limit: 100, total: 18, hasMore: false });
    const fill = res.body.data.find((c: { action: string }) => c.action === "fill");
    expect(fill.fields.map((f: { name: string }) => f.name)).toEqual(["selector", "value", "secret", "name", "timeout_ms"]);
    expect(fill.fields[0]).toMatchObject({ name: "selector", type: "string", required: true, min_length: 1, max_length: 1024 });
    expect(fill.fields[4]).toMatchObject({ name: "timeout_ms", type: "integer", required: false, minimum: 100, maximum: 120000, default: 10000 });
    const page = await call("GET", "/api/v1/plugins/flow/components?limit=5&page=2");
    expect(page.body.data.map((c: { action: string }) => c.action)).toEqual(flowPalette().slice(5, 10).map((c) => c.action));
  });

  it("needs a caller who may read monitors", async () => {
    const res = await client(api.url)("GET", "/api/v1/plugins/flow/components");
    expect(res.status).toBe(401);
  });
});

describe("browser monitors through the API", () => {
  it("validates flow steps against the palette's schema, with the path of the bad step", async () => {
    const { call } = await org();
    const bad = await call("POST", "/api/v1/monitors", { name: "Checkout", type: "browser_flow", config: { url: site.url("/"), steps: [{ action: "click", selector: "#buy" }, { action: "run_script", code: "fetch('/x')" }] } });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("VALIDATION_ERROR");
    expect(bad.body.details.issues.some((i: { path: string }) => i.path.startsWith("body.config.steps.1"))).toBe(true);
    const ok = await call("POST", "/api/v1/monitors", { name: "Checkout", type: "browser_flow", interval_seconds: 300, config: { url: site.url("/"), steps: [{ action: "click", selector: "#buy" }] } });
    expect(ok.status).toBe(201);
    expect(ok.body.config).toMatchObject({ engine: "chromium", screenshot_on_failure: true, steps: [{ action: "click", selector: "#buy" }] });
  });

  it("answers run-now of a browser monitor with 503 no_worker when no worker of its region has a browser of its engine", async () => {
    const { call } = await org();
    const m = await call("POST", "/api/v1/monitors", { name: "Home", type: "browser_lite", config: { url: site.url("/") } });
    expect(m.status).toBe(201);
    const res = await call("POST", `/api/v1/monitors/${m.body.id}/run`);
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("5");
    expect(res.body).toMatchObject({ code: "SERVICE_UNAVAILABLE", details: { reason: "no_worker", location: "local", engine: "chromium" } });
    expect(res.body.error).toContain("No worker of region local with a chromium browser");
  });

  it("has a recorded run-now's screenshot readable as soon as it answers, before ingest stores the published copy", async () => {
    await api.worker!.setBrowsers(pool);
    // No ingest: only the API's own recording of the run stores anything.
    await ingest.stop();
    try {
      const { call, api_key } = await org();
      const m = await call("POST", "/api/v1/monitors", { name: "Closed", type: "browser_lite", config: { url: site.url("/"), keyword: "Closed today" } });
      const run = await call("POST", `/api/v1/monitors/${m.body.id}/run`);
      expect(run.status).toBe(200);
      expect(run.body).toMatchObject({ status: "down", recorded: true, data: { screenshots: ["failure"] } });
      const shot = await fetch(`${api.url}/api/v1/monitors/${m.body.id}/checks/${run.body.id}/screenshot`, { headers: { authorization: `Bearer ${api_key}` } });
      expect(shot.status).toBe(200);
      expect(shot.headers.get("content-type")).toBe("image/jpeg");
    } finally {
      await api.worker!.setBrowsers(null);
      ingest = await startIngest({ sql: api.sql, bus: api.bus, log: silentLogger, maxWaitMs: 10 });
    }
  });

  it("runs a browser monitor now on its region's worker with browsers, records it, and serves the failure screenshot from the result", async () => {
    await api.worker!.setBrowsers(pool);
    try {
      const { call, api_key } = await org();
      const m = await call("POST", "/api/v1/monitors", { name: "Store", type: "browser_lite", config: { url: site.url("/"), keyword: "Closed today" } });
      const run = await call("POST", `/api/v1/monitors/${m.body.id}/run`);
      expect(run.status).toBe(200);
      expect(run.body).toMatchObject({ status: "down", error: 'keyword not found in the rendered page: "Closed today"', recorded: true, data: { engine: "chromium", title: "Store", screenshots: ["failure"] } });
      let checks: any;
      await until(async () => (checks = await call("GET", `/api/v1/monitors/${m.body.id}/checks`)).body.data.length === 1);
      const check = checks.body.data[0];
      expect(check.data.screenshots).toEqual(["failure"]);
      for (const id of [check.id, check.job_id]) {
        const shot = await fetch(`${api.url}/api/v1/monitors/${m.body.id}/checks/${id}/screenshot`, { headers: { authorization: `Bearer ${api_key}` } });
        expect(shot.status).toBe(200);
        expect(shot.headers.get("content-type")).toBe("image/jpeg");
        const bytes = new Uint8Array(await shot.arrayBuffer());
        expect([bytes[0], bytes[1]]).toEqual([0xff, 0xd8]);
      }
      const named = await call("GET", `/api/v1/monitors/${m.body.id}/checks/${check.id}/screenshot?name=nope`);
      expect(named.status).toBe(404);
      expect(named.body.code).toBe("NOT_FOUND");

      // Another organisation sees neither the result nor its screenshot.
      const other = await org();
      expect((await other.call("GET", `/api/v1/monitors/${m.body.id}/checks/${check.id}/screenshot`)).status).toBe(404);

      const passing = await call("POST", "/api/v1/monitors", { name: "Store ok", type: "browser_lite", config: { url: site.url("/"), keyword: "Open for business" } });
      const ok = await call("POST", `/api/v1/monitors/${passing.body.id}/run`);
      expect(ok.body).toMatchObject({ status: "up", data: { screenshots: null } });
      const okChecks = await until(async () => (await call("GET", `/api/v1/monitors/${passing.body.id}/checks`)).body.data.length === 1).then(() => call("GET", `/api/v1/monitors/${passing.body.id}/checks`));
      expect((await call("GET", `/api/v1/monitors/${passing.body.id}/checks/${okChecks.body.data[0].id}/screenshot`)).status).toBe(404);
    } finally {
      await api.worker!.setBrowsers(null);
    }
  });
  it("keeps a flow step's secret value encrypted: shown as a placeholder, kept on edit, typed for real by the check", async () => {
    await api.worker!.setBrowsers(pool);
    try {
      const { call } = await org();
      const steps = [
        { action: "fill", selector: "#pw", value: "correct horse", secret: true },
        { action: "click", selector: "#go" },
        { action: "assert_text", text: "Signed in", timeout_ms: 2000 },
      ];
      const m = await call("POST", "/api/v1/monitors", { name: "Login", type: "browser_flow", config: { url: site.url("/login"), steps } });
      expect(m.status).toBe(201);
      expect(m.body.config.steps[0]).toMatchObject({ action: "fill", value: "••••••••", secret: true });
      expect(JSON.stringify(m.body)).not.toContain("correct horse");
      const [row] = await api.sql<{ config: unknown }[]>`select config from monitors where id = ${m.body.id}`;
      expect(JSON.stringify(row!.config)).not.toContain("correct horse");
      // Sending the placeholder back (an edit of another field) keeps the stored secret.
      const edited = await call("PATCH", `/api/v1/monitors/${m.body.id}`, { config: { url: site.url("/login"), steps: m.body.config.steps } });
      expect(edited.status).toBe(200);
      const run = await call("POST", `/api/v1/monitors/${m.body.id}/run`);
      expect(run.body).toMatchObject({ status: "up", data: { steps_passed: 3, title: "Welcome" } });
      expect(passwords.at(-1)).toBe("correct horse");
    } finally {
      await api.worker!.setBrowsers(null);
    }
  });
});
