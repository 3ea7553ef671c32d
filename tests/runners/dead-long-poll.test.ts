/**
 * A reverse proxy may keep the upstream request open after its client left, so the API never learns that a runner's
 * claim long-poll lost its caller. Once the runner's session ends (session/end here or on another API process, revoke),
 * a claim in flight for it returns at once without taking jobs, and jobs a dead long-poll took are handed back when
 * the session ends, so none waits out its ack deadline.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { silentLogger } from "../../core/log.ts";
import { endRunnerSession } from "../../db/queries/runners.ts";
import { sweepStaleRunnerQueues } from "../../domain/runners/queue.ts";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.ts";
import { collectResults, orgWithRunner, publishHttpJob, spawnRunner, startTarget, startTlsApi, type TlsApi } from "./support.ts";

let api: TlsApi;
let proxy: TcpProxy;
let target: ReturnType<typeof startTarget>;
beforeAll(async () => {
  // A long ack deadline: a job back on the queue within these tests came back because the API handed it back.
  api = await startTlsApi({ jobAckWaitMs: 60_000 });
  proxy = await startTcpProxy(Number(new URL(api.url).port), "127.0.0.1", { keepUpstream: true });
  target = startTarget(30_000);
}, 30_000);
afterAll(async () => {
  await target?.stop();
  await proxy?.stop();
  await api?.stop();
});

// A 20 s long-poll: the dead one is still waiting on the API while the test publishes.
const runnerEnv = (token: string) => ({
  SERVICE_API_URL: `https://127.0.0.1:${proxy.port}`,
  SERVICE_TOKEN: token,
  RUNNER_NAME: "proxied-runner",
  POLL_INTERVAL_MS: "20000",
  HEARTBEAT_INTERVAL_MS: "5000",
  CONCURRENCY: "2",
  ALLOW_PRIVATE_IPS: "true",
  LOG_FORMAT: "json",
  NODE_EXTRA_CA_CERTS: api.caFile,
});

/** The API answered a long-poll whose client had left (one more than `before`) within `ms`. */
async function answeredWithin(before: number, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (proxy.orphansAnswered() <= before && Date.now() < end) await Bun.sleep(25);
  expect(proxy.orphansAnswered()).toBeGreaterThan(before);
}

/** What waits on the runner's queue now: recorded unavailable by the sweep (0 when a dead claim holds it). */
const sweep = () => sweepStaleRunnerQueues(api.db.sql, api.bus, silentLogger);

/** A runner of a new organisation, connected through the proxy, and the organisation's results as they come. */
async function connectedRunner() {
  const { org, runner } = await orgWithRunner(api);
  const results = await collectResults(api.bus, org.org_id);
  const proc = spawnRunner(runnerEnv(runner.token));
  await proc.waitForOutput("runner connected");
  return { org, runner, results, proc };
}
type Connected = Awaited<ReturnType<typeof connectedRunner>>;

/** A connected runner killed without a word (its session stays open): its long-poll goes on waiting on the API. */
async function killedRunner(): Promise<Connected> {
  const connected = await connectedRunner();
  await Bun.sleep(500);
  connected.proc.proc.kill("SIGKILL");
  await connected.proc.exited;
  await Bun.sleep(300);
  return connected;
}

/** What a session/end served by another API process does to the database (revoke deletes the sessions too). */
async function endSessionElsewhere(runnerId: string) {
  const [session] = await api.db.sql<{ id: string }[]>`select id from runner_sessions where runner_id = ${runnerId}`;
  await endRunnerSession(api.db.sql, runnerId, session!.id);
}

/** The job waits on the runner's queue, no claim holding it, and the sweep records it unavailable: the runner stopped. */
async function expectSweptAsStopped({ runner, results }: Connected, jobId: string) {
  expect(await sweep()).toBe(1);
  const r = await results.waitFor((x) => x.id === jobId, 5000);
  expect(r).toMatchObject({ status: "unavailable", location: runner.id });
  expect(r.error).toContain("runner stopped");
  await results.stop();
}

describe("a claim long-poll whose runner left, behind a proxy that keeps the upstream request open", () => {
  it("takes no job once the runner stopped and ended its session", async () => {
    const connected = await connectedRunner();
    const { org, runner, proc } = connected;
    await Bun.sleep(500);
    const answered = proxy.orphansAnswered();
    proc.proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
    expect(proc.output()).toContain("it shows offline now");
    // The API answered the dead long-poll at once, not after its 20 s wait.
    await answeredWithin(answered, 2000);

    const job = await publishHttpJob(api.bus, org.org_id, runner.id, "mon_dead_poll", `${target.url}/ok`);
    await Bun.sleep(300);
    await expectSweptAsStopped(connected, job.id);
  }, 30_000);

  it("hands back, when the session ends, a job the dead long-poll took while the runner was finishing its checks", async () => {
    const connected = await connectedRunner();
    const { org, runner, proc } = connected;
    await publishHttpJob(api.bus, org.org_id, runner.id, "mon_finishing", `${target.url}/sleep/3000`, { timeout_ms: 10_000 });
    for (let i = 0; i < 200 && !target.hits.includes("/sleep/3000"); i++) await Bun.sleep(25);
    expect(target.hits).toContain("/sleep/3000");
    // The runner stops claiming and lets its check finish; the proxy keeps its next long-poll open on the API.
    await Bun.sleep(1500);
    proc.proc.kill("SIGTERM");
    await Bun.sleep(300);
    const late = await publishHttpJob(api.bus, org.org_id, runner.id, "mon_late", `${target.url}/ok`);
    expect(await proc.exited).toBe(0);
    expect(proc.output()).toContain("it shows offline now");
    await expectSweptAsStopped(connected, late.id);
  }, 40_000);

  // The two kill -9 cases differ in when the job comes: after the session ended (the dead poll must not take it), or
  // before (the dead poll took it, and the session's end must hand it back).
  it("returns at once, taking no job, when another API process ends the session of a runner killed without a word", async () => {
    const killed = await killedRunner();
    const answered = proxy.orphansAnswered();
    await endSessionElsewhere(killed.runner.id);
    await answeredWithin(answered, 2000);

    const job = await publishHttpJob(api.bus, killed.org.org_id, killed.runner.id, "mon_killed", `${target.url}/ok`);
    await Bun.sleep(300);
    await expectSweptAsStopped(killed, job.id);
  }, 30_000);

  it("hands back a job its dead long-poll took when another API process ends the runner's session", async () => {
    const killed = await killedRunner();
    const answered = proxy.orphansAnswered();
    // The session is still open: the dead long-poll takes the job, and the proxy throws the answer away.
    const job = await publishHttpJob(api.bus, killed.org.org_id, killed.runner.id, "mon_taken", `${target.url}/ok`);
    await answeredWithin(answered, 2000);
    expect(await sweep()).toBe(0);
    // A session/end served by another API process (a stop's, say): this one hands back what it gave the runner.
    await endSessionElsewhere(killed.runner.id);
    await Bun.sleep(500);
    await expectSweptAsStopped(killed, job.id);
  }, 30_000);
});
