/**
 * A runner stopped on purpose (SIGTERM from `docker stop`, SIGINT from Ctrl-C) says so: it finishes or hands back its
 * checks, then ends its session, so the API shows it offline at once and its queue is judged at once, instead of
 * three missed heartbeats and an ack deadline later. A stop while the API cannot be reached still exits in time.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { silentLogger } from "../../core/log.ts";
import { onlineRunners } from "../../db/queries/scheduler.ts";
import { sweepStaleRunnerQueues } from "../../domain/runners/queue.ts";
import { runnerSubject } from "../../schemas/messages/check-messages.ts";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.ts";
import { collectResults, orgWithRunner, publishHttpJob, spawnRunner, startTarget, startTlsApi, type TlsApi } from "./support.ts";

let api: TlsApi;
let proxy: TcpProxy;
let target: ReturnType<typeof startTarget>;
beforeAll(async () => {
  // A long ack deadline: a job that comes back within these tests came back because the runner handed it back.
  api = await startTlsApi({ jobAckWaitMs: 60_000 });
  proxy = await startTcpProxy(Number(new URL(api.url).port));
  target = startTarget(30_000);
}, 30_000);
afterAll(async () => {
  await target?.stop();
  await proxy?.stop();
  await api?.stop();
});

const runnerEnv = (token: string, extra: Record<string, string> = {}) => ({
  SERVICE_API_URL: api.url,
  SERVICE_TOKEN: token,
  RUNNER_NAME: "stopping-runner",
  RUNNER_REGION: "lab-2",
  POLL_INTERVAL_MS: "1000",
  HEARTBEAT_INTERVAL_MS: "5000",
  CONCURRENCY: "2",
  ALLOW_PRIVATE_IPS: "true",
  LOG_FORMAT: "json",
  NODE_EXTRA_CA_CERTS: api.caFile,
  ...extra,
});

describe("a runner stopped on purpose", () => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`shows offline at once after ${signal}, gets no more jobs, and its queue is judged at once; started again it is online`, async () => {
      const { org, runner, call } = await orgWithRunner(api);
      const results = await collectResults(api.bus, org.org_id);
      const proc = spawnRunner(runnerEnv(runner.token));
      await proc.waitForOutput("runner connected");
      expect((await call("GET", `/api/v1/runners/${runner.id}/status`)).body.status).toBe("online");
      proc.proc.kill(signal);
      expect(await proc.exited).toBe(0);

      const status = await call("GET", `/api/v1/runners/${runner.id}/status`);
      expect(status.body.status).toBe("offline");
      expect(status.body.stopped_at).not.toBeNull();
      expect((await call("GET", "/api/v1/runners")).body.data.find((r: { id: string }) => r.id === runner.id).status).toBe("offline");
      // The scheduler places nothing on it, and what waits on its queue is recorded unavailable now, saying why.
      expect((await onlineRunners(api.db.sql, 15))?.has(runner.id)).toBe(false);
      const job = await publishHttpJob(api.bus, org.org_id, runner.id, `mon_stop_${signal}`, `${target.url}/ok`);
      expect(await sweepStaleRunnerQueues(api.db.sql, api.bus, silentLogger)).toBeGreaterThanOrEqual(1);
      const r = await results.waitFor((x) => x.id === job.id, 5000);
      expect(r).toMatchObject({ status: "unavailable", location: runner.id });
      expect(r.error).toContain("runner stopped");

      const again = spawnRunner(runnerEnv(runner.token));
      await again.waitForOutput("runner connected");
      expect((await call("GET", `/api/v1/runners/${runner.id}/status`)).body).toMatchObject({ status: "online", stopped_at: null });
      expect((await onlineRunners(api.db.sql, 15))?.has(runner.id)).toBe(true);
      again.proc.kill("SIGTERM");
      expect(await again.exited).toBe(0);
      await results.stop();
    }, 30_000);
  }

  it("hands back a check that outlasts the grace period, and that job is judged at once rather than after its ack deadline", async () => {
    const { org, runner, call } = await orgWithRunner(api);
    const results = await collectResults(api.bus, org.org_id);
    const proc = spawnRunner(runnerEnv(runner.token));
    await proc.waitForOutput("runner connected");
    const job = await publishHttpJob(api.bus, org.org_id, runner.id, "mon_held", `${target.url}/sleep/20000`, { timeout_ms: 25_000 });
    for (let i = 0; i < 200 && !target.hits.includes("/sleep/20000"); i++) await Bun.sleep(25);
    expect(target.hits).toContain("/sleep/20000");
    proc.proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
    expect((await call("GET", `/api/v1/runners/${runner.id}/status`)).body.status).toBe("offline");
    expect(await api.bus.pendingJobs(runnerSubject(runner.id))).toBe(1);
    expect(await sweepStaleRunnerQueues(api.db.sql, api.bus, silentLogger)).toBe(1);
    const r = await results.waitFor((x) => x.id === job.id, 5000);
    expect(r).toMatchObject({ status: "unavailable", location: runner.id });
    expect(r.error).toContain("runner stopped");
    await results.stop();
  }, 40_000);

  it("still shows offline at once when the API lost its session before the stop (it opens one to end)", async () => {
    const { runner, call } = await orgWithRunner(api);
    const proc = spawnRunner(runnerEnv(runner.token));
    await proc.waitForOutput("runner connected");
    await api.db.sql`delete from runner_sessions where runner_id = ${runner.id}`;
    proc.proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
    expect((await call("GET", `/api/v1/runners/${runner.id}/status`)).body.status).toBe("offline");
    expect(proc.output()).toContain("it shows offline now");
  }, 30_000);

  it("still exits in time, with code 0, when the API cannot be reached at the stop", async () => {
    const { runner } = await orgWithRunner(api);
    const proc = spawnRunner(runnerEnv(runner.token, { SERVICE_API_URL: `https://127.0.0.1:${proxy.port}` }));
    await proc.waitForOutput("runner connected");
    // Nothing passes and nothing is closed: the next heartbeat and claim wait for an answer that never comes.
    await proxy.cut("blackhole");
    try {
      await Bun.sleep(6000);
      const began = Date.now();
      proc.proc.kill("SIGTERM");
      expect(await proc.exited).toBe(0);
      expect(Date.now() - began).toBeLessThan(6000);
      expect(proc.output()).toContain("could not tell the API");
    } finally {
      await proxy.restore();
    }
  }, 40_000);
});
