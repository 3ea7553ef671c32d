import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { makeOrg } from "../support/api.ts";
import { usageCounters } from "../../billing/usage.ts";
import { runnerSubject } from "../../schemas/messages/check-messages.ts";
import { caClient, collectResults, orgWithRunner, publishHttpJob, startTlsApi, type TlsApi } from "./support.ts";

let api: TlsApi;
const caFetch = (url: string, init: RequestInit = {}) => fetch(url, { ...init, tls: { ca: api.caPem } } as RequestInit);

beforeAll(async () => {
  api = await startTlsApi();
});
afterAll(() => api.stop());

describe("runners API", () => {
  it("creates a runner with a one-time rt_ token stored only as its SHA-256", async () => {
    const { runner, call } = await orgWithRunner(api);
    expect(runner.token).toMatch(/^rt_[A-Za-z0-9_-]{40,}$/);
    const [row] = await api.db.sql`select token_hash from runners where id = ${runner.id}`;
    expect(Buffer.from(row!.token_hash).toString("hex")).toBe(new Bun.CryptoHasher("sha256").update(runner.token).digest("hex"));
    const again = await call("GET", `/api/v1/runners/${runner.id}`);
    expect(again.status).toBe(200);
    expect(again.body.token).toBeUndefined();
    expect(again.body).toMatchObject({ name: "rack-1", location_label: "Berlin office", status: "offline", last_seen_at: null });
  });

  it("refuses a runner on the Free plan with ENTITLEMENT_REQUIRED runners", async () => {
    const org = await makeOrg(api.db.sql, "free");
    const res = await caClient(api, org.api_key)("POST", "/api/v1/runners", { name: "x" });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("ENTITLEMENT_REQUIRED");
    expect(res.body.details.entitlement).toBe("runners");
  });

  it("allows one runner on Starter and frees the slot on revoke", async () => {
    const org = await makeOrg(api.db.sql, "starter");
    const call = caClient(api, org.api_key);
    const first = await call("POST", "/api/v1/runners", { name: "a" });
    expect(first.status).toBe(201);
    expect((await call("POST", "/api/v1/runners", { name: "b" })).status).toBe(403);
    expect((await call("DELETE", `/api/v1/runners/${first.body.id}`)).status).toBe(204);
    expect((await call("POST", "/api/v1/runners", { name: "b" })).status).toBe(201);
  });

  it("validates the body: name required, unknown fields refused", async () => {
    const { call } = await orgWithRunner(api);
    expect((await call("POST", "/api/v1/runners", {})).body.code).toBe("VALIDATION_ERROR");
    expect((await call("POST", "/api/v1/runners", { name: "x", token: "rt_mine" })).status).toBe(400);
  });

  it("lists with the pagination envelope, renames, and hides other organisations' runners", async () => {
    const { call, runner } = await orgWithRunner(api);
    await call("POST", "/api/v1/runners", { name: "rack-2" });
    const list = await call("GET", "/api/v1/runners?limit=1&page=2");
    expect(list.status).toBe(200);
    expect(list.body.pagination).toEqual({ page: 2, limit: 1, total: 2, totalPages: 2, hasMore: false });
    expect(list.body.data[0].id).toBe(runner.id);
    const renamed = await call("PATCH", `/api/v1/runners/${runner.id}`, { name: "rack-9", location_label: null });
    expect(renamed.body).toMatchObject({ name: "rack-9", location_label: null });
    const other = await orgWithRunner(api);
    expect((await other.call("GET", `/api/v1/runners/${runner.id}`)).status).toBe(404);
    expect((await other.call("GET", `/api/v1/runners/${runner.id}/status`)).status).toBe(404);
    expect((await other.call("DELETE", `/api/v1/runners/${runner.id}`)).status).toBe(404);
  });

  it("lists each runner with what it last reported: region, version, checks in flight, and when it stopped", async () => {
    const { call, runner } = await orgWithRunner(api);
    const fresh = (await call("GET", "/api/v1/runners")).body.data[0];
    expect(fresh).toMatchObject({ id: runner.id, reported_name: null, region: null, version: null, in_flight: 0, stopped_at: null });
    await api.db.sql`
      update runners set reported_name = 'rack-1-host', region = 'lab-3', version = '9.9.9', in_flight = 4, heartbeat_interval_ms = 30000, last_seen_at = now()
      where id = ${runner.id}`;
    const row = (await call("GET", "/api/v1/runners")).body.data[0];
    expect(row).toMatchObject({ id: runner.id, status: "online", reported_name: "rack-1-host", region: "lab-3", version: "9.9.9", in_flight: 4, stopped_at: null });
  });

  it("renames with PATCH, refusing a bad name (400 with the error body), an unknown runner (404) and a caller without runners:write (403)", async () => {
    const { call, runner } = await orgWithRunner(api);
    const path = `/api/v1/runners/${runner.id}`;
    expect((await call("PATCH", path, { name: "rack-renamed" })).body).toMatchObject({ id: runner.id, name: "rack-renamed", location_label: "Berlin office" });
    for (const name of ["", "   ", "x".repeat(201)]) {
      const bad = await call("PATCH", path, { name });
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ code: "VALIDATION_ERROR", error: expect.any(String) });
      expect(JSON.stringify(bad.body.details)).toContain("body.name");
    }
    expect((await call("PATCH", path, { name: "   " })).body.details.issues).toEqual([{ path: "body.name", message: "Expected at least one visible character (not only spaces) and no control characters" }]);
    expect((await call("PATCH", path, { name: "ok", token: "rt_mine" })).status).toBe(400);
    const unknown = await call("PATCH", "/api/v1/runners/run_unknown", { name: "x" });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: "NOT_FOUND", error: expect.any(String) });
    const key = await call("POST", "/api/v1/api-keys", { name: "read runners", scopes: ["runners:read"] });
    expect(key.status).toBe(201);
    const reader = caClient(api, key.body.key);
    const refused = await reader("PATCH", path, { name: "stolen" });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: expect.any(String), error: expect.any(String) });
    expect((await call("GET", path)).body.name).toBe("rack-renamed");
  });

  it("shows in the runner's status when the scheduler keeps due checks back for it (over capacity), and not once it keeps up", async () => {
    const { call, runner } = await orgWithRunner(api);
    const path = `/api/v1/runners/${runner.id}/status`;
    expect((await call("GET", path)).body).toMatchObject({ overloaded: false, overloaded_since: null, schedule_lag_seconds: 0 });
    // What a scheduler leader writes every second while the runner's queue is over capacity (scheduler/admission.ts).
    await api.db.sql`
      insert into schedule_queue_state (queue, kind, location, released_through, overloaded_since, lag_seconds, waiting, updated_at)
      values (${`jobs.runner.${runner.id}`}, 'runner', ${runner.id}, now() - interval '30 seconds', now() - interval '1 minute', 12.5, 40, now())`;
    const over = await call("GET", path);
    expect(over.status).toBe(200);
    expect(over.body).toMatchObject({ overloaded: true, schedule_lag_seconds: 12.5 });
    expect(Date.now() - Date.parse(over.body.overloaded_since)).toBeGreaterThan(50_000);
    // A row no leader refreshed for 30 s says nothing.
    await api.db.sql`update schedule_queue_state set updated_at = now() - interval '5 minutes' where location = ${runner.id}`;
    expect((await call("GET", path)).body).toMatchObject({ overloaded: false, overloaded_since: null, schedule_lag_seconds: 0 });
    await api.db.sql`delete from schedule_queue_state where location = ${runner.id}`;
  });

  it("revoking puts the runner's claimed jobs back on its queue at once and records every queued job as unavailable", async () => {
    const { org, call, runner } = await orgWithRunner(api);
    const results = await collectResults(api.bus, org.org_id);
    const waiting = await publishHttpJob(api.bus, org.org_id, runner.id, "mon_x", "http://127.0.0.1:1/");
    const held = await publishHttpJob(api.bus, org.org_id, runner.id, "mon_y", "http://127.0.0.1:1/");
    // A claim the runner holds, with an ack deadline far away: only the revoke can bring it back.
    const claimed = await api.bus.fetchJobs(runnerSubject(runner.id), 1, 1000, { ackWaitMs: 600_000 });
    expect(claimed).toHaveLength(1);
    expect(await api.bus.pendingJobs(runnerSubject(runner.id))).toBe(2);
    expect((await call("DELETE", `/api/v1/runners/${runner.id}`)).status).toBe(204);
    expect(await api.bus.pendingJobs(runnerSubject(runner.id))).toBe(0);
    for (const job of [waiting, held]) {
      const r = await results.waitFor((x) => x.id === job.id, 5000);
      expect(r).toMatchObject({ status: "unavailable", location: runner.id, location_type: "runner", scheduled_at: job.due_at });
      expect(r.error).toContain("runner revoked");
    }
    const status = await call("GET", `/api/v1/runners/${runner.id}/status`);
    expect(status.body.status).toBe("revoked");
    expect((await call("DELETE", `/api/v1/runners/${runner.id}`)).status).toBe(204);
    await results.stop();
  });

  it("counts live runners in the runners usage counter", async () => {
    const { org, call, runner } = await orgWithRunner(api);
    await call("POST", "/api/v1/runners", { name: "second" });
    expect(await usageCounters.runners!(api.db.sql, org.org_id)).toBe(2);
    await call("DELETE", `/api/v1/runners/${runner.id}`);
    expect(await usageCounters.runners!(api.db.sql, org.org_id)).toBe(1);
  });

  it("answers an unknown runner token with 401 RUNNER_TOKEN_INVALID, not as an anonymous caller", async () => {
    const res = await caFetch(`${api.url}/api/v1/runner/session`, { method: "POST", headers: { authorization: "Bearer rt_unknown", "content-type": "application/json" }, body: "{}" });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { code: string }).code).toBe("RUNNER_TOKEN_INVALID");
  });

  it("documents the runner protocol under the OpenAPI tag runner", async () => {
    const doc = (await (await caFetch(`${api.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { tags?: string[] }>> };
    for (const p of ["/api/v1/runner/session", "/api/v1/runner/heartbeat", "/api/v1/runner/jobs/claim", "/api/v1/runner/results", "/api/v1/runner/jobs/release", "/api/v1/runner/session/end"]) {
      expect(doc.paths[p]?.post?.tags).toEqual(["runner"]);
    }
    expect(doc.paths["/api/v1/runners"]?.post?.tags).toEqual(["runners"]);
  });
});

describe("runner traffic over plain HTTP", () => {
  const session = (url: string, token: string, headers: Record<string, string> = {}) =>
    fetch(`${url}/api/v1/runner/session`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers },
      body: JSON.stringify({ version: "t", name: "t", region: "t", capabilities: { browsers: [], concurrency: 1 }, heartbeat_interval_ms: 5000, encrypted: false }),
    });

  it("is refused with RUNNER_HTTPS_REQUIRED when a trusted proxy says the client used plain HTTP", async () => {
    const plain = await startTlsApi({ tls: false, env: { TRUST_PROXY: "true" } });
    try {
      const { runner } = await orgWithRunner(plain);
      const res = await session(plain.url, runner.token, { "x-forwarded-proto": "http" });
      expect(res.status).toBe(403);
      expect(((await res.json()) as { code: string }).code).toBe("RUNNER_HTTPS_REQUIRED");
      expect((await session(plain.url, runner.token, { "x-forwarded-proto": "https" })).status).toBe(200);
    } finally {
      await plain.stop();
    }
  });

  it("is accepted on the local development listener (bound to loopback, reached from loopback)", async () => {
    const plain = await startTlsApi({ tls: false });
    try {
      const { runner } = await orgWithRunner(plain);
      const res = await session(plain.url, runner.token);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { encrypted: boolean }).encrypted).toBe(false);
    } finally {
      await plain.stop();
    }
  });
});
