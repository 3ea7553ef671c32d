import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { runnerSubject } from "../../schemas/messages/check-messages.ts";
import { silentLogger } from "../../core/log.ts";
import { sweepStaleRunnerQueues } from "../../domain/runners/queue.ts";
import { newX25519 } from "../../core/crypto/session-seal.ts";
import { collectResults, orgWithRunner, publishHttpJob, spawnRunner, startTarget, startTlsApi, type TlsApi } from "./support.ts";

let api: TlsApi;
let target: ReturnType<typeof startTarget>;
beforeAll(async () => {
  api = await startTlsApi({ jobAckWaitMs: 2000 });
  target = startTarget(30_000);
});
afterAll(async () => {
  await target.stop();
  await api.stop();
});

/** The env contract of a runner reaching the test API: its token, and the test CA through NODE_EXTRA_CA_CERTS. */
const runnerEnv = (token: string, extra: Record<string, string> = {}) => ({
  SERVICE_API_URL: api.url,
  SERVICE_TOKEN: token,
  RUNNER_NAME: "proc-runner",
  RUNNER_REGION: "lab-1",
  POLL_INTERVAL_MS: "1000",
  HEARTBEAT_INTERVAL_MS: "5000",
  CONCURRENCY: "4",
  ALLOW_PRIVATE_IPS: "true",
  NODE_EXTRA_CA_CERTS: api.caFile,
  ...extra,
});

describe("runner process", () => {
  it("runs a monitor's job from jobs.runner.<id> and its result arrives on RESULTS; SIGTERM exits 0", async () => {
    const { org, runner, call } = await orgWithRunner(api);
    const monitor = await call("POST", "/api/v1/monitors", { name: "via runner", type: "http", config: { url: `${target.url}/ok` }, runner_ids: [runner.id], interval_seconds: 300 });
    expect(monitor.status).toBe(201);
    const results = await collectResults(api.bus);
    const proc = spawnRunner(runnerEnv(runner.token));
    await proc.waitForOutput("runner connected");
    const job = await publishHttpJob(api.bus, org.org_id, runner.id, monitor.body.id, `${target.url}/ok`);
    const r = await results.waitFor((x) => x.id === job.id);
    expect(r).toMatchObject({ status: "up", location: runner.id, location_type: "runner", monitor_id: monitor.body.id });
    const status = await call("GET", `/api/v1/runners/${runner.id}/status`);
    expect(status.body).toMatchObject({ status: "online", reported_name: "proc-runner", region: "lab-1", encrypted: true, capabilities: { browsers: [], concurrency: 4 } });
    proc.proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
    await results.stop();
  }, 30_000);

  it("opens a new session when the API lost its session, and keeps working", async () => {
    const { org, runner } = await orgWithRunner(api);
    const results = await collectResults(api.bus, org.org_id);
    const proc = spawnRunner(runnerEnv(runner.token));
    await proc.waitForOutput("runner connected");
    await api.db.sql`delete from runner_sessions where runner_id = ${runner.id}`;
    const job = await publishHttpJob(api.bus, org.org_id, runner.id, "mon_s", `${target.url}/ok`);
    expect((await results.waitFor((x) => x.id === job.id)).status).toBe("up");
    expect(proc.output()).toContain("session renewed");
    proc.proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
    await results.stop();
  }, 30_000);

  it("revoked mid-run: its claimed check goes back and is recorded unavailable, and it exits on 401 without retrying", async () => {
    const { org, runner, call } = await orgWithRunner(api);
    const results = await collectResults(api.bus, org.org_id);
    const proc = spawnRunner(runnerEnv(runner.token));
    await proc.waitForOutput("runner connected");
    const job = await publishHttpJob(api.bus, org.org_id, runner.id, "mon_rv", `${target.url}/slow/revoke`, { timeout_ms: 30_000 });
    for (let i = 0; i < 200 && !target.hits.includes("/slow/revoke"); i++) await Bun.sleep(25);
    expect(target.hits).toContain("/slow/revoke");
    expect((await call("DELETE", `/api/v1/runners/${runner.id}`)).status).toBe(204);
    const r = await results.waitFor((x) => x.id === job.id, 5000);
    expect(r).toMatchObject({ status: "unavailable", location: runner.id });
    expect(r.error).toContain("runner revoked");
    expect(await proc.exited).toBe(2);
    expect(proc.output()).toContain("RUNNER_TOKEN_INVALID");
    expect(proc.output().match(/exiting without retry/g)).toHaveLength(1);
    // The runner's late report of that check was refused: the only result is the unavailable one.
    expect(results.seen.filter((x) => x.id === job.id)).toHaveLength(1);
    await results.stop();
  }, 30_000);

  it("after SIGKILL it shows offline after three missed heartbeats, and its claimed job comes back and is recorded unavailable", async () => {
    const { org, runner, call } = await orgWithRunner(api);
    const results = await collectResults(api.bus, org.org_id);
    const proc = spawnRunner(runnerEnv(runner.token));
    await proc.waitForOutput("runner connected");
    const job = await publishHttpJob(api.bus, org.org_id, runner.id, "mon_k", `${target.url}/slow`, { timeout_ms: 30_000 });
    // The check is running once the target sees it: the job is claimed.
    for (let i = 0; i < 200 && !target.hits.includes("/slow"); i++) await Bun.sleep(25);
    expect(target.hits).toContain("/slow");
    proc.proc.kill("SIGKILL");
    await proc.exited;
    // While it still counts as online, the leader's sweep leaves its queue alone.
    await sweepStaleRunnerQueues(api.db.sql, api.bus, silentLogger);
    expect(await api.bus.pendingJobs(runnerSubject(runner.id))).toBe(1);
    // Offline = no heartbeat within 3 × 5 s.
    const end = Date.now() + 25_000;
    let status = "online";
    while (status === "online" && Date.now() < end) {
      await Bun.sleep(500);
      status = (await call("GET", `/api/v1/runners/${runner.id}/status`)).body.status;
    }
    expect(status).toBe("offline");
    // The claim was never acked: past its ack deadline the job is back on the runner's queue, and
    // since no other runner may take it the sweep records it as monitoring_unavailable.
    expect(await sweepStaleRunnerQueues(api.db.sql, api.bus, silentLogger)).toBeGreaterThanOrEqual(1);
    const r = await results.waitFor((x) => x.id === job.id, 5000);
    expect(r).toMatchObject({ status: "unavailable", location: runner.id, location_type: "runner" });
    expect(r.error).toContain("runner offline");
    expect(await api.bus.pendingJobs(runnerSubject(runner.id))).toBe(0);
    await results.stop();
  }, 60_000);
});

describe("runner shutdown on SIGTERM", () => {
  it("stops claiming, lets a running check finish and reports it, then exits 0", async () => {
    const { org, runner } = await orgWithRunner(api);
    const results = await collectResults(api.bus, org.org_id);
    const proc = spawnRunner(runnerEnv(runner.token));
    await proc.waitForOutput("runner connected");
    const job = await publishHttpJob(api.bus, org.org_id, runner.id, "mon_t", `${target.url}/sleep/1500`);
    for (let i = 0; i < 200 && !target.hits.includes("/sleep/1500"); i++) await Bun.sleep(25);
    proc.proc.kill("SIGTERM");
    await publishHttpJob(api.bus, org.org_id, runner.id, "mon_t2", `${target.url}/ok`);
    expect(await proc.exited).toBe(0);
    expect((await results.waitFor((x) => x.id === job.id, 2000)).status).toBe("up");
    // The job published after SIGTERM was not claimed.
    expect(results.seen.some((x) => x.monitor_id === "mon_t2")).toBe(false);
    expect(await api.bus.pendingJobs(runnerSubject(runner.id))).toBe(1);
    await results.stop();
  }, 30_000);

  it("hands back a check that outlasts the grace period, so it is redelivered at once", async () => {
    const slowApi = await startTlsApi({ jobAckWaitMs: 60_000 });
    try {
      const { org, runner } = await orgWithRunner(slowApi);
      const proc = spawnRunner({ ...runnerEnv(runner.token), SERVICE_API_URL: slowApi.url, NODE_EXTRA_CA_CERTS: slowApi.caFile });
      await proc.waitForOutput("runner connected");
      await publishHttpJob(slowApi.bus, org.org_id, runner.id, "mon_h", `${target.url}/sleep/20000`, { timeout_ms: 25_000 });
      for (let i = 0; i < 200 && !target.hits.includes("/sleep/20000"); i++) await Bun.sleep(25);
      expect(target.hits).toContain("/sleep/20000");
      proc.proc.kill("SIGTERM");
      expect(await proc.exited).toBe(0);
      expect(proc.output()).toContain('"handedBack":1');
      const again = await slowApi.bus.fetchJobs(runnerSubject(runner.id), 1, 1000);
      expect(again).toHaveLength(1);
      expect(again[0]!.deliveryCount).toBe(2);
    } finally {
      await slowApi.stop();
    }
  }, 40_000);
});

describe("runner start-up refusals", () => {
  const base = { SERVICE_API_URL: "https://127.0.0.1:9/", SERVICE_TOKEN: "rt_abcdefghijklmnop" };
  const cases: [string, Record<string, string | undefined>, RegExp][] = [
    ["SERVICE_API_URL missing", { SERVICE_API_URL: undefined }, /SERVICE_API_URL/],
    ["plain HTTP URL", { SERVICE_API_URL: "http://127.0.0.1:3000" }, /SERVICE_API_URL.*plain HTTP is refused/],
    ["URL that is no URL", { SERVICE_API_URL: "not a url" }, /SERVICE_API_URL/],
    ["SERVICE_TOKEN missing", { SERVICE_TOKEN: undefined }, /SERVICE_TOKEN/],
    ["token without rt_", { SERVICE_TOKEN: "wp_live_abcdefghijklmnopqrstuvwxyz" }, /SERVICE_TOKEN=\[redacted\].*must start with rt_/],
    ["RUNNER_MODE unknown", { RUNNER_MODE: "cloud" }, /RUNNER_MODE/],
    ["RUNNER_MODE managed", { RUNNER_MODE: "managed" }, /RUNNER_MODE="managed"/],
    ["POLL_INTERVAL_MS below 1000", { POLL_INTERVAL_MS: "999" }, /POLL_INTERVAL_MS="999".*at least 1000/],
    ["POLL_INTERVAL_MS not a number", { POLL_INTERVAL_MS: "fast" }, /POLL_INTERVAL_MS/],
    ["HEARTBEAT_INTERVAL_MS below 5000", { HEARTBEAT_INTERVAL_MS: "4999" }, /HEARTBEAT_INTERVAL_MS="4999"/],
    ["CONCURRENCY 0", { CONCURRENCY: "0" }, /CONCURRENCY="0".*1 to 100/],
    ["CONCURRENCY 101", { CONCURRENCY: "101" }, /CONCURRENCY="101"/],
    ["CONCURRENCY fractional", { CONCURRENCY: "2.5" }, /CONCURRENCY="2.5": expected a whole number/],
    ["BROWSERS unknown", { BROWSERS: "edge" }, /BROWSERS="edge"/],
    ["BROWSERS naming an engine the image does not ship", { BROWSERS: "firefox", PLAYWRIGHT_BROWSERS_PATH: "/nonexistent/ms-playwright" }, /BROWSERS="firefox".*does not ship firefox/],
    ["BROWSERS=chromium without Chromium", { BROWSERS: "chromium", CHROMIUM_PATH: "/nonexistent/chromium" }, /BROWSERS="chromium".*does not ship chromium/],
    ["BROWSER_POOL_SIZE 0", { BROWSER_POOL_SIZE: "0" }, /BROWSER_POOL_SIZE="0"/],
    ["BROWSER_POOL_SIZE 21", { BROWSER_POOL_SIZE: "21" }, /BROWSER_POOL_SIZE="21"/],
    ["ALLOW_PRIVATE_IPS not a boolean", { ALLOW_PRIVATE_IPS: "maybe" }, /ALLOW_PRIVATE_IPS="maybe"/],
    ["LOG_LEVEL unknown", { LOG_LEVEL: "verbose" }, /LOG_LEVEL="verbose"/],
    ["LOG_FORMAT unknown", { LOG_FORMAT: "xml" }, /LOG_FORMAT="xml"/],
    ["ALLOW_UNENCRYPTED_SESSION not a boolean", { ALLOW_UNENCRYPTED_SESSION: "sometimes" }, /ALLOW_UNENCRYPTED_SESSION="sometimes"/],
    ["NODE_EXTRA_CA_CERTS not a file", { NODE_EXTRA_CA_CERTS: "/nonexistent/ca.pem" }, /NODE_EXTRA_CA_CERTS="\/nonexistent\/ca.pem": no such file/],
  ];
  for (const [name, change, message] of cases) {
    it(`refuses to start: ${name}`, async () => {
      const env = Object.fromEntries(Object.entries({ ...base, ...change }).filter(([, v]) => v !== undefined)) as Record<string, string>;
      const proc = spawnRunner(env);
      expect(await proc.exited).toBe(78);
      expect(proc.output()).toMatch(message);
    });
  }

  it("refuses to start when the handshake fails (API unreachable), never falling back to plain", async () => {
    const proc = spawnRunner({ SERVICE_API_URL: "https://127.0.0.1:9", SERVICE_TOKEN: "rt_abcdefghijklmnop" });
    expect(await proc.exited).toBe(1);
    expect(proc.output()).toContain("handshake failed; refusing to start");
  });

  it("refuses to start when the API's certificate is not trusted", async () => {
    const { runner } = await orgWithRunner(api);
    const env: Record<string, string> = { ...runnerEnv(runner.token) };
    delete env.NODE_EXTRA_CA_CERTS;
    const proc = spawnRunner(env);
    expect(await proc.exited).toBe(1);
    expect(proc.output()).toContain("handshake failed");
  });

  it("refuses to start with an unknown token (401 at the handshake) and says so", async () => {
    const proc = spawnRunner(runnerEnv("rt_not_a_real_token_at_all"));
    expect(await proc.exited).toBe(2);
    expect(proc.output()).toContain("RUNNER_TOKEN_INVALID");
  });

  it("refuses to start when the server's key confirmation does not match (wrong token binding)", async () => {
    // A TLS server that answers the session with another session's confirmation.
    const forged = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      tls: api.leaf,
      fetch: () => Response.json({ session_id: "rsn_x", runner_id: "run_x", encrypted: true, server_public_key: newX25519().publicKey, expires_at: new Date().toISOString(), confirm: { session_id: "rsn_x", seq: 0, nonce: "AAAAAAAAAAAAAAAA", ciphertext: "B".repeat(40) } }),
    });
    try {
      const proc = spawnRunner({ SERVICE_API_URL: `https://127.0.0.1:${forged.port}`, SERVICE_TOKEN: "rt_abcdefghijklmnop", NODE_EXTRA_CA_CERTS: api.caFile });
      expect(await proc.exited).toBe(1);
      expect(proc.output()).toContain("key confirmation failed");
    } finally {
      forged.stop(true);
    }
  });
});
