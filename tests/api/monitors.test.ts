import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { startIngest } from "../../alerting/ingest/ingest.ts";
import type { ConsumerHandle } from "../../core/bus/index.ts";
import { silentLogger } from "../../core/log.ts";
import { signClaim, reportResults } from "../../domain/runners/jobs.ts";
import type { CheckJobMessage } from "../../schemas/messages/check-messages.ts";
import { client, makeOrg, startTestApi, type TestApi } from "../support/api.ts";
import { until } from "../support/scheduling.ts";

let api: TestApi;
let target: ReturnType<typeof Bun.serve>;
let ingest: ConsumerHandle;

beforeAll(async () => {
  // A worker answers run-now for "local" only: eu-west has none connected.
  api = await startTestApi({ ALLOW_PRIVATE_IPS: "true", REGIONS: "local,eu-west" }, undefined, undefined, { workerRegions: ["local"] });
  ingest = await startIngest({ sql: api.sql, bus: api.bus, log: silentLogger, maxWaitMs: 10 });
  target = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (req) => new Response(new URL(req.url).pathname === "/ok" ? "all good" : "nope", { status: new URL(req.url).pathname === "/ok" ? 200 : 500 }) });
});
afterAll(async () => {
  target.stop(true);
  await ingest.stop();
  await api.stop();
});

const http = (path = "/ok") => ({ url: `http://127.0.0.1:${target.port}${path}` });

async function org(plan = "business") {
  const o = await makeOrg(api.sql, plan);
  return { ...o, call: client(api.url, { key: o.api_key }) };
}

describe("monitors", () => {
  it("creates an http monitor with defaults filled in", async () => {
    const { call } = await org();
    const res = await call("POST", "/api/v1/monitors", { name: "Home", type: "http", config: http() });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: "Home", type: "http", interval_seconds: 300, timeout_ms: 30000, regions: ["local"], runner_ids: [], tags: [], paused: false, status: "pending" });
    expect(res.body.config).toMatchObject({ url: http().url, method: "GET", follow_redirects: true });
    expect(res.body.id).toStartWith("mon_");
  });

  it("creates one monitor of every check type", async () => {
    const { call } = await org();
    const configs: Record<string, unknown> = {
      http: http(),
      keyword: { ...http(), keyword: "good" },
      ssl: { host: "example.test" },
      tcp: { host: "127.0.0.1", port: 5432 },
      dns: { name: "example.test", record_type: "A" },
      ping: { host: "127.0.0.1" },
      domain: { domain: "example.com" },
      heartbeat: { period_seconds: 60 },
      browser_lite: { url: "https://example.test/" },
      browser_flow: { url: "https://example.test/", steps: [{ action: "navigate", url: "https://example.test/" }] },
    };
    for (const [type, config] of Object.entries(configs)) {
      const res = await call("POST", "/api/v1/monitors", { name: type, type, config, interval_seconds: 60 });
      expect([type, res.status, res.body.code ?? ""]).toEqual([type, 201, ""]);
    }
  });

  it("refuses a config that does not fit its type, naming the field", async () => {
    const { call } = await org();
    const res = await call("POST", "/api/v1/monitors", { name: "x", type: "tcp", config: { host: "127.0.0.1", port: 70000 } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_ERROR");
    expect(res.body.details.issues[0].path).toBe("body.config.port");
  });

  it("refuses unknown fields, unknown regions and a timeout longer than the interval", async () => {
    const { call } = await org();
    expect((await call("POST", "/api/v1/monitors", { name: "x", type: "http", config: http(), colour: "red" })).status).toBe(400);
    const region = await call("POST", "/api/v1/monitors", { name: "x", type: "http", config: http(), regions: ["mars"] });
    expect(region.status).toBe(400);
    expect(region.body.details.issues[0].path).toBe("body.regions");
    const timeout = await call("POST", "/api/v1/monitors", { name: "x", type: "http", config: http(), interval_seconds: 60, timeout_ms: 61000 });
    expect(timeout.status).toBe(400);
  });

  it("refuses an interval below the plan minimum with ENTITLEMENT_REQUIRED", async () => {
    const { call } = await org("free");
    const res = await call("POST", "/api/v1/monitors", { name: "x", type: "http", config: http(), interval_seconds: 60 });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: "ENTITLEMENT_REQUIRED", details: { entitlement: "min_interval_seconds", minimum: 300 } });
  });

  it("refuses the monitor past the plan's quota", async () => {
    const { call } = await org("free");
    for (let i = 0; i < 20; i++) expect((await call("POST", "/api/v1/monitors", { name: `m${i}`, type: "http", config: http() })).status).toBe(201);
    const res = await call("POST", "/api/v1/monitors", { name: "one too many", type: "http", config: http() });
    expect(res.status).toBe(403);
    expect(res.body.details.entitlement).toBe("monitors");
    const lite = await call("POST", "/api/v1/monitors", { name: "lite", type: "browser_lite", config: { url: "https://example.test/" } });
    expect(lite.body.details.entitlement).toBe("lite_browser");
  });

  it("lists with filters and pagination", async () => {
    const { call } = await org();
    await call("POST", "/api/v1/monitors", { name: "Alpha API", type: "http", config: http(), tags: ["api"] });
    await call("POST", "/api/v1/monitors", { name: "Beta db", type: "tcp", config: { host: "127.0.0.1", port: 5432 }, tags: ["db"], paused: true });
    await call("POST", "/api/v1/monitors", { name: "Gamma API", type: "http", config: http(), tags: ["api", "edge"] });
    expect((await call("GET", "/api/v1/monitors")).body.pagination).toMatchObject({ total: 3, page: 1, limit: 20, hasMore: false });
    expect((await call("GET", "/api/v1/monitors?type=tcp")).body.data.map((m: any) => m.name)).toEqual(["Beta db"]);
    expect((await call("GET", "/api/v1/monitors?tag=api")).body.data.map((m: any) => m.name)).toEqual(["Gamma API", "Alpha API"]);
    expect((await call("GET", "/api/v1/monitors?paused=true")).body.data.map((m: any) => m.name)).toEqual(["Beta db"]);
    expect((await call("GET", "/api/v1/monitors?search=api")).body.pagination.total).toBe(2);
    expect((await call("GET", "/api/v1/monitors?status=pending&limit=1&page=2")).body).toMatchObject({ pagination: { total: 3, totalPages: 3, hasMore: true } });
    expect((await call("GET", "/api/v1/monitors?search=%25")).body.pagination.total).toBe(0);
  });

  it("sorts worst status first, by name or by slowest last check across pages", async () => {
    const { call } = await org();
    const ids: Record<string, string> = {};
    for (const name of ["delta", "Alpha", "charlie", "bravo", "echo"]) ids[name] = (await call("POST", "/api/v1/monitors", { name, type: "http", config: http() })).body.id;
    const set = async (name: string, status: string, ms: number | null, paused = false) => {
      await api.sql`update monitors set status = ${status}, paused = ${paused} where id = ${ids[name]!}`;
      if (ms !== null) {
        await api.sql`insert into monitor_state (monitor_id, status, last_checked_at, last_duration_ms) values (${ids[name]!}, ${status}, now(), ${ms})`;
      }
    };
    await set("delta", "up", 120);
    await set("Alpha", "down", null);
    await set("charlie", "degraded", 900);
    await set("bravo", "down", 15, true);
    await set("echo", "timeout", 30);
    const names = async (q: string) => {
      const a = (await call("GET", `/api/v1/monitors?${q}&limit=2&page=1`)).body.data;
      const b = (await call("GET", `/api/v1/monitors?${q}&limit=2&page=2`)).body.data;
      const c = (await call("GET", `/api/v1/monitors?${q}&limit=2&page=3`)).body.data;
      return [...a, ...b, ...c].map((m: any) => m.name);
    };
    expect(await names("sort=status")).toEqual(["Alpha", "echo", "charlie", "delta", "bravo"]);
    expect(await names("sort=name")).toEqual(["Alpha", "bravo", "charlie", "delta", "echo"]);
    expect(await names("sort=response_time")).toEqual(["charlie", "delta", "echo", "bravo", "Alpha"]);
    expect(await names("sort=created")).toEqual(["echo", "bravo", "charlie", "Alpha", "delta"]);
    expect((await call("GET", "/api/v1/monitors?sort=uptime")).status).toBe(400);
  });

  it("keeps a stored secret when the placeholder is sent back and never returns it", async () => {
    const { call } = await org();
    const created = await call("POST", "/api/v1/monitors", { name: "auth", type: "http", config: { ...http(), auth: { type: "basic", username: "u", password: "hunter2-secret" } } });
    expect(created.body.config.auth).toEqual({ type: "basic", username: "u", password: "••••••••" });
    const [row] = await api.sql`select config, secrets_enc from monitors where id = ${created.body.id}`;
    expect(JSON.stringify(row)).not.toContain("hunter2-secret");
    const patched = await call("PATCH", `/api/v1/monitors/${created.body.id}`, { name: "renamed", config: created.body.config });
    expect(patched.status).toBe(200);
    const [after] = await api.sql`select secrets_enc from monitors where id = ${created.body.id}`;
    expect(api.server.deps.box.decrypt(after!.secrets_enc)).toContain("hunter2-secret");
  });

  it("updates, pauses, resumes and deletes", async () => {
    const { call } = await org();
    const { body: m } = await call("POST", "/api/v1/monitors", { name: "m", type: "http", config: http() });
    const patched = await call("PATCH", `/api/v1/monitors/${m.id}`, { interval_seconds: 120, tags: ["a", "a", "b"] });
    expect(patched.body).toMatchObject({ interval_seconds: 120, tags: ["a", "b"] });
    // A tag is at most 64 characters, but the CLI's key tag of a project's longest key is longer.
    const keyTag = `wp-key:${"p".repeat(24)}/k${"x".repeat(56)}`;
    expect((await call("PATCH", `/api/v1/monitors/${m.id}`, { tags: [keyTag] })).body.tags).toEqual([keyTag]);
    expect((await call("GET", `/api/v1/monitors?tag=${encodeURIComponent(keyTag)}`)).body.data.map((x: { id: string }) => x.id)).toEqual([m.id]);
    expect((await call("PATCH", `/api/v1/monitors/${m.id}`, { tags: ["x".repeat(65)] })).status).toBe(400);
    expect((await call("PATCH", `/api/v1/monitors/${m.id}`, { tags: [`wp-key:${"x".repeat(58)}`] })).status).toBe(400);
    expect((await call("PATCH", `/api/v1/monitors/${m.id}`, { tags: ["a", "b"] })).status).toBe(200);
    expect((await call("POST", `/api/v1/monitors/${m.id}/pause`)).body.paused).toBe(true);
    expect((await call("POST", `/api/v1/monitors/${m.id}/pause`)).body.paused).toBe(true);
    expect((await call("POST", `/api/v1/monitors/${m.id}/resume`)).body.paused).toBe(false);
    expect((await call("DELETE", `/api/v1/monitors/${m.id}`)).status).toBe(204);
    expect((await call("GET", `/api/v1/monitors/${m.id}`)).status).toBe(404);
  });

  it("pauses and deletes in bulk by ids and by tag, never touching another organisation", async () => {
    const a = await org();
    const b = await org();
    const mk = async (o: typeof a, name: string, tags: string[]) => (await o.call("POST", "/api/v1/monitors", { name, type: "http", config: http(), tags })).body.id as string;
    const a1 = await mk(a, "a1", ["x"]);
    const a2 = await mk(a, "a2", ["x"]);
    const a3 = await mk(a, "a3", []);
    const b1 = await mk(b, "b1", ["x"]);
    const byTag = await a.call("POST", "/api/v1/monitors/bulk/pause", { tag: "x" });
    expect(byTag.body).toMatchObject({ matched: 2, affected: 2 });
    const byIds = await a.call("POST", "/api/v1/monitors/bulk/resume", { ids: [a1, b1] });
    expect(byIds.body).toMatchObject({ matched: 1, affected: 1, ids: [a1] });
    expect((await b.call("GET", `/api/v1/monitors/${b1}`)).body.paused).toBe(false);
    expect((await a.call("POST", "/api/v1/monitors/bulk/delete", { ids: [a2, a3, b1] })).body.affected).toBe(2);
    expect((await b.call("GET", `/api/v1/monitors/${b1}`)).status).toBe(200);
    expect((await a.call("POST", "/api/v1/monitors/bulk/pause", {})).status).toBe(400);
  });

  it("answers 404 for another organisation's monitor and 403 to a viewer's write", async () => {
    const a = await org();
    const b = await org();
    const { body: m } = await a.call("POST", "/api/v1/monitors", { name: "m", type: "http", config: http() });
    expect((await b.call("GET", `/api/v1/monitors/${m.id}`)).status).toBe(404);
    expect((await b.call("PATCH", `/api/v1/monitors/${m.id}`, { name: "stolen" })).status).toBe(404);
    expect((await b.call("DELETE", `/api/v1/monitors/${m.id}`)).status).toBe(404);
    const readOnly = await a.call("POST", "/api/v1/api-keys", { name: "ro", scopes: ["monitors:read"] });
    const ro = client(api.url, { key: readOnly.body.key });
    expect((await ro("GET", "/api/v1/monitors")).status).toBe(200);
    const denied = await ro("POST", "/api/v1/monitors", { name: "m", type: "http", config: http() });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe("PERMISSION_DENIED");
  });

  it("runs a check now against a loopback target and returns the result", async () => {
    const { call } = await org();
    const { body: up } = await call("POST", "/api/v1/monitors", { name: "up", type: "keyword", config: { ...http(), keyword: "good" } });
    const ran = await call("POST", `/api/v1/monitors/${up.id}/run`);
    expect(ran.status).toBe(200);
    expect(ran.body).toMatchObject({ status: "up", location: "local", data: { status_code: 200, keyword_found: true } });
    const { body: down } = await call("POST", "/api/v1/monitors", { name: "down", type: "http", config: http("/fail") });
    expect((await call("POST", `/api/v1/monitors/${down.id}/run`)).body).toMatchObject({ status: "down", data: { status_code: 500 } });
    const { body: hb } = await call("POST", "/api/v1/monitors", { name: "hb", type: "heartbeat", config: { period_seconds: 60 } });
    expect(hb.heartbeat_url).toContain("/api/v1/heartbeat/hb_");
    expect(hb.regions).toEqual([]);
    expect((await call("POST", `/api/v1/monitors/${hb.id}/run`)).status).toBe(409);
  });

  it("records a run-now result like a scheduled check, but not for a paused monitor", async () => {
    const { call } = await org();
    const { body: m } = await call("POST", "/api/v1/monitors", { name: "fixed", type: "http", config: http() });
    expect((await call("POST", `/api/v1/monitors/${m.id}/run`)).body).toMatchObject({ status: "up", recorded: true });
    await until(async () => (await call("GET", `/api/v1/monitors/${m.id}`)).body.status === "up", 5000, "status up");
    const [{ n }] = await api.sql`select count(*)::int as n from check_results where monitor_id = ${m.id}`;
    expect(n).toBe(1);
    await call("POST", `/api/v1/monitors/${m.id}/pause`);
    expect((await call("POST", `/api/v1/monitors/${m.id}/run`)).body).toMatchObject({ status: "up", recorded: false });
    await Bun.sleep(200);
    const [{ n: after }] = await api.sql`select count(*)::int as n from check_results where monitor_id = ${m.id}`;
    expect(after).toBe(1);
  });

  it("lists a run-now result in the monitor's checks as soon as the run answers (read-your-writes)", async () => {
    const { call } = await org();
    const { body: m } = await call("POST", "/api/v1/monitors", { name: "ryw", type: "http", config: http() });
    for (let i = 0; i < 3; i++) {
      const run = await call("POST", `/api/v1/monitors/${m.id}/run`);
      expect(run.body).toMatchObject({ status: "up", recorded: true });
      const checks = await call("GET", `/api/v1/monitors/${m.id}/checks`);
      expect(checks.body.pagination.total).toBe(i + 1);
      expect(checks.body.data[0]).toMatchObject({ id: run.body.id, status: "up", checked_at: run.body.checked_at, duration_ms: run.body.duration_ms });
      expect((await call("GET", `/api/v1/monitors/${m.id}`)).body).toMatchObject({ status: "up", last_checked_at: run.body.checked_at });
      expect((await call("GET", `/api/v1/monitors/${m.id}/checks/${run.body.id}`)).body).toMatchObject({ id: run.body.id, status: "up" });
    }
    // Ingest then receives the same results from the bus and stores none of them twice.
    await Bun.sleep(300);
    expect((await call("GET", `/api/v1/monitors/${m.id}/checks`)).body.pagination.total).toBe(3);
  });

  it("answers 503 no_worker when no worker of the monitor's region is connected", async () => {
    const { call } = await org();
    const { body: m } = await call("POST", "/api/v1/monitors", { name: "far", type: "http", config: http(), regions: ["eu-west"] });
    const res = await call("POST", `/api/v1/monitors/${m.id}/run`);
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("5");
    expect(res.body).toMatchObject({ code: "SERVICE_UNAVAILABLE", details: { reason: "no_worker", location: "eu-west" } });
    expect(res.body.error).toContain("No worker of region eu-west is connected");
    const [{ n }] = await api.sql`select count(*)::int as n from check_results where monitor_id = ${m.id}`;
    expect(n).toBe(0);
  });

  it("answers 503 timeout when the worker does not answer in time", async () => {
    const { call } = await org();
    const { body: m } = await call("POST", "/api/v1/monitors", { name: "slow", type: "http", config: http(), regions: ["eu-west"], timeout_ms: 1000 });
    // A worker of eu-west that takes the request and never answers within the check's timeout plus the grace.
    const stuck = await api.bus.serve("rpc.run-now.region.eu-west", { queue: "run-now.eu-west" }, () => new Promise(() => {}));
    try {
      const started = Date.now();
      const res = await call("POST", `/api/v1/monitors/${m.id}/run`);
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ code: "SERVICE_UNAVAILABLE", details: { reason: "timeout", location: "eu-west" } });
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    } finally {
      await stuck.stop();
    }
  }, 20_000);

  it("runs now on the monitor's assigned runner while it is online, and stores its result before answering", async () => {
    const { call, org_id } = await org();
    const { body: runner } = await call("POST", "/api/v1/runners", { name: "basement" });
    const { body: m } = await call("POST", "/api/v1/monitors", { name: "inside", type: "http", config: http(), regions: [], runner_ids: [runner.id] });
    expect(m.runner_ids).toEqual([runner.id]);
    // Never heartbeated: offline, so nothing is sent to it.
    const offline = await call("POST", `/api/v1/monitors/${m.id}/run`);
    expect(offline.status).toBe(503);
    expect(offline.body).toMatchObject({ code: "SERVICE_UNAVAILABLE", details: { reason: "runner_offline", runner_id: runner.id } });
    await api.sql`update runners set last_seen_at = now() where id = ${runner.id}`;
    const running = call("POST", `/api/v1/monitors/${m.id}/run`);
    // The runner claims the job from its queue and reports it through the API, as over the runner protocol.
    let jobs: { data: CheckJobMessage; token: string }[] = [];
    for (let i = 0; i < 50 && jobs.length === 0; i++) jobs = await api.bus.fetchJobs<CheckJobMessage>(`jobs.runner.${runner.id}`, 1, 1000);
    expect(jobs).toHaveLength(1);
    const job = jobs[0]!.data;
    expect(job).toMatchObject({ monitor_id: m.id, org_id, location: runner.id, location_type: "runner", type: "http" });
    expect(job.id).toStartWith(`run.${m.id}.`);
    const box = api.server.deps.box;
    const claim = signClaim(box, { t: jobs[0]!.token, r: runner.id, o: org_id, m: m.id, j: job.id, d: job.due_at });
    const caller = { id: runner.id, orgId: org_id, tokenHash: Buffer.alloc(0), suspended: false };
    const checkedAt = Date.now();
    await reportResults({ sql: api.sql, bus: api.bus, box, log: silentLogger }, caller, { results: [{ claim, status: "up", checked_at: checkedAt, duration_ms: 7, error: null, data: { status_code: 200 } }] });
    const res = await running;
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "up", location: runner.id, recorded: true, duration_ms: 7, checked_at: new Date(checkedAt).toISOString(), data: { status_code: 200 } });
    expect((await call("GET", `/api/v1/monitors/${m.id}/checks/${res.body.id}`)).body).toMatchObject({ id: res.body.id, status: "up", location: runner.id });
  }, 30_000);

  it("groups monitors by tag with counts and the worst status", async () => {
    const { call } = await org();
    const { body: m1 } = await call("POST", "/api/v1/monitors", { name: "m1", type: "http", config: http(), tags: ["web"] });
    await call("POST", "/api/v1/monitors", { name: "m2", type: "http", config: http(), tags: ["web"] });
    await api.sql`update monitors set status = 'down' where id = ${m1.id}`;
    const groups = await call("GET", "/api/v1/monitor-groups");
    expect(groups.body.data).toEqual([{ tag: "web", status: "down", monitors: 2, counts: { up: 0, down: 1, degraded: 0, timeout: 0, pending: 1, paused: 0 } }]);
    expect((await call("PATCH", "/api/v1/monitor-groups/web", { tag: "site" })).body.tag).toBe("site");
    expect((await call("GET", "/api/v1/monitors?tag=site")).body.pagination.total).toBe(2);
    expect((await call("DELETE", "/api/v1/monitor-groups/site")).status).toBe(204);
    expect((await call("GET", "/api/v1/monitor-groups/site")).status).toBe(404);
  });
});
