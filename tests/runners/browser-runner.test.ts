import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from "bun:test";
import { runnerSubject } from "../../schemas/messages/check-messages.ts";
import { silentLogger } from "../../core/log.ts";
import { findArtifact } from "../../db/queries/check-artifacts.ts";
import { RunnerAgent } from "../../runner/agent.ts";
import type { BrowserPool } from "../../runner/checks/browser/browser-pool.ts";
import { html, startPageServer, testPool } from "../../runner/checks/browser/test-support.ts";
import { loadRunnerConfig } from "../../runner/config.ts";
import { executeClaimed } from "../../runner/execute.ts";
import { packArtifacts } from "../../runner/checks/shared/pack-artifacts.ts";
import { startIngest } from "../../alerting/ingest/ingest.ts";
import type { ConsumerHandle } from "../../core/bus/index.ts";
import { insertMonitors, until } from "../support/scheduling.ts";
import { collectResults, orgWithRunner, publishHttpJob, startTlsApi, type TlsApi } from "./support.ts";

setDefaultTimeout(60_000);

let api: TlsApi;
let pool: BrowserPool;
let site: ReturnType<typeof startPageServer>;
let ingest: ConsumerHandle;
beforeAll(async () => {
  api = await startTlsApi();
  // The API forwards a runner's screenshots in the result message; ingest (the alerting role) stores them.
  ingest = await startIngest({ sql: api.db.sql, bus: api.bus, log: silentLogger, maxWaitMs: 10 });
  pool = await testPool();
  site = startPageServer({ "/": () => html("<title>Status</title><p>All good</p>") });
});
afterAll(async () => {
  await ingest?.stop();
  await pool?.close();
  site?.stop();
  await api?.stop();
});

const browserJob = (over: { engine?: string; keyword?: string } = {}) => ({
  type: "browser_lite",
  config: { url: site.url("/"), ...(over.engine ? { engine: over.engine } : {}), ...(over.keyword ? { keyword: over.keyword } : {}) },
  timeout_ms: 10_000,
});

function startAgent(token: string, browsers: BrowserPool | null, setting: "none" | "chromium" | "all") {
  const config = loadRunnerConfig({ SERVICE_API_URL: api.url, SERVICE_TOKEN: token, ALLOW_PRIVATE_IPS: "true", POLL_INTERVAL_MS: "1000", BROWSERS: setting });
  const tlsFetch = ((input: string | URL | Request, init?: RequestInit) => fetch(input, { ...init, tls: { ca: api.caPem } } as RequestInit)) as typeof fetch;
  return new RunnerAgent({ config, log: silentLogger, fetch: tlsFetch, browsers });
}

describe("self-hosted runner with browsers", () => {
  it("runs a browser job in its pool, sends the failure screenshot, and the API passes it to ingest, which stores it with the result", async () => {
    const { org, runner } = await orgWithRunner(api);
    const [monitor] = await insertMonitors(api.db.sql, org.org_id, [{ type: "browser_lite", config: { url: site.url("/") }, regions: [], runner_ids: [runner.id] }]);
    const results = await collectResults(api.bus, org.org_id);
    const agent = startAgent(runner.token, pool, "chromium");
    await agent.connect();
    const done = agent.run();
    const up = await publishHttpJob(api.bus, org.org_id, runner.id, monitor!, site.url("/"), browserJob({ keyword: "All good" }));
    const down = await publishHttpJob(api.bus, org.org_id, runner.id, monitor!, site.url("/"), { ...browserJob({ keyword: "Outage" }), due_at: up.due_at + 1, id: `${up.id}-2` });
    const ok = await results.waitFor((r) => r.id === up.id, 30_000);
    const failed = await results.waitFor((r) => r.id === down.id, 30_000);
    await agent.stop();
    await done;
    expect(ok).toMatchObject({ status: "up", location: runner.id, location_type: "runner", data: { engine: "chromium", title: "Status", screenshots: null } });
    expect(failed).toMatchObject({ status: "down", error: 'keyword not found in the rendered page: "Outage"', data: { screenshots: ["failure"] } });
    expect(failed.artifacts?.map((a) => a.name)).toEqual(["failure"]);
    await until(async () => (await api.db.sql`select 1 from check_results where job_id = ${down.id}`).length === 1, 5000, "the result stored");
    const [stored] = await api.db.sql<{ data: { screenshots: string[] } }[]>`select data from check_results where job_id = ${down.id}`;
    expect(stored!.data.screenshots).toEqual(["failure"]);
    const file = await findArtifact(api.db.sql, org.org_id, monitor!, down.id, "failure");
    expect(file?.content_type).toBe("image/jpeg");
    expect(file!.bytes[0]).toBe(0xff);
  });

  it("is only handed browser jobs for engines it reported; the API records the others unavailable", async () => {
    const { org, runner } = await orgWithRunner(api);
    const results = await collectResults(api.bus, org.org_id);
    // BROWSERS=chromium: a firefox job must not reach it.
    const agent = startAgent(runner.token, pool, "chromium");
    await agent.connect();
    const done = agent.run();
    const firefox = await publishHttpJob(api.bus, org.org_id, runner.id, "mon_ff", site.url("/"), browserJob({ engine: "firefox" }));
    const chromium = await publishHttpJob(api.bus, org.org_id, runner.id, "mon_cr", site.url("/"), browserJob());
    const refused = await results.waitFor((r) => r.id === firefox.id, 30_000);
    const ran = await results.waitFor((r) => r.id === chromium.id, 30_000);
    await agent.stop();
    await done;
    expect(refused).toMatchObject({ status: "unavailable", error: "runner has no firefox browser (its BROWSERS setting)", duration_ms: 0 });
    expect(ran.status).toBe("up");
    expect(await api.bus.pendingJobs(runnerSubject(runner.id))).toBe(0);
  });

  it("a runner with BROWSERS=none gets no browser job at all", async () => {
    const { org, runner } = await orgWithRunner(api);
    const results = await collectResults(api.bus, org.org_id);
    const agent = startAgent(runner.token, null, "none");
    await agent.connect();
    const done = agent.run();
    const job = await publishHttpJob(api.bus, org.org_id, runner.id, "mon_none", site.url("/"), browserJob());
    const r = await results.waitFor((x) => x.id === job.id, 30_000);
    await agent.stop();
    await done;
    expect(r).toMatchObject({ status: "unavailable", error: "runner has no chromium browser (its BROWSERS setting)" });
  });
});

describe("executing a claimed browser job", () => {
  const claimed = (over: { engine?: string; keyword?: string } = {}) => {
    const due = Date.now();
    return { id: "job_1", org_id: "org_1", monitor_id: "mon_1", location: "run_1", due_at: due, expires_at: due + 60_000, ...browserJob(over) };
  };

  it("refuses an engine the runner's pool lacks, and any browser job without a pool, as unavailable", async () => {
    const ff = await executeClaimed(claimed({ engine: "firefox" }), { allowPrivate: true, now: Date.now, check: { browsers: pool } });
    expect(ff).toMatchObject({ status: "unavailable", error: "this runner cannot run it: no firefox browser here (BROWSERS=chromium)" });
    const none = await executeClaimed(claimed(), { allowPrivate: true, now: Date.now });
    expect(none).toMatchObject({ status: "unavailable", error: "this runner cannot run it: no chromium browser here (BROWSERS=none)" });
  });

  it("packs screenshots as base64 within the per-result budget", async () => {
    const r = await executeClaimed(claimed({ keyword: "Outage" }), { allowPrivate: true, now: Date.now, check: { browsers: pool } });
    expect(r.status).toBe("down");
    expect(r.artifacts).toHaveLength(1);
    expect(Buffer.from(r.artifacts![0]!.data_base64, "base64")[0]).toBe(0xff);
    expect(r.data.screenshots).toEqual(["failure"]);
    const big = { name: "big", content_type: "image/jpeg" as const, data: new Uint8Array(300 * 1024) };
    expect(packArtifacts([big, { ...big, name: "second" }, { ...big, name: "small", data: new Uint8Array(10) }]).map((a) => a.name)).toEqual(["big", "small"]);
  });
});
