import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { SecretBox } from "../../core/crypto/secrets.ts";
import { runnerSubject } from "../../schemas/messages/check-messages.ts";
import { silentLogger } from "../../core/log.ts";
import type { ClaimResponse, HeartbeatResponse } from "../../schemas/runner-protocol.ts";
import { RunnerAgent } from "../../runner/agent.ts";
import { loadRunnerConfig } from "../../runner/config.ts";
import { TEST_SECRET_KEY } from "../support/api.ts";
import { collectResults, orgWithRunner, publishHttpJob, startTarget, startTlsApi, type TlsApi } from "./support.ts";
import { rawSession as openRawSession, runnerPost, runnerReport } from "./raw-session.ts";

let api: TlsApi;
let target: ReturnType<typeof startTarget>;
beforeAll(async () => {
  api = await startTlsApi({ jobAckWaitMs: 1500 });
  target = startTarget();
});
afterAll(async () => {
  await target.stop();
  await api.stop();
});

const report = runnerReport;
const post = (path: string, token: string, body: unknown) => runnerPost(api, path, token, body);
const rawSession = (token: string) => openRawSession(api, token);

describe("runner protocol", () => {
  it("claims a job with its secrets merged and publishes the reported result, acking the job", async () => {
    const { org, runner, call } = await orgWithRunner(api);
    const s = await rawSession(runner.token);
    const box = new SecretBox(TEST_SECRET_KEY);
    const secrets = box.encrypt(JSON.stringify({ auth: { type: "bearer", token: "s3cret-bearer" } }));
    const job = await publishHttpJob(api.bus, org.org_id, runner.id, "mon_a", `${target.url}/ok`, { config: { url: `${target.url}/ok`, auth: { type: "bearer", token: "••••••••" } }, secrets_enc: secrets });
    const results = await collectResults(api.bus);
    const claimed = await s.call<ClaimResponse>("/jobs/claim", { max: 5, wait_ms: 2000 });
    expect(claimed.jobs).toHaveLength(1);
    expect(claimed.jobs[0]!.job.config.auth).toEqual({ type: "bearer", token: "s3cret-bearer" });
    await s.call("/results", { results: [{ claim: claimed.jobs[0]!.claim, status: "up", checked_at: Date.now(), duration_ms: 3, error: null, data: {} }] });
    const r = await results.waitFor((x) => x.id === job.id);
    expect(r).toMatchObject({ org_id: org.org_id, monitor_id: "mon_a", location: runner.id, location_type: "runner", scheduled_at: job.due_at, status: "up" });
    expect(await api.bus.pendingJobs(runnerSubject(runner.id))).toBe(0);
    const status = await call("GET", `/api/v1/runners/${runner.id}/status`);
    expect(status.body).toMatchObject({ status: "online", version: "test", region: "lab", capabilities: { browsers: [], concurrency: 5 }, encrypted: true, heartbeat_interval_ms: 5000 });
    expect(status.body.last_check_at).not.toBeNull();
    await results.stop();
  });

  it("keeps a claimed job while heartbeats extend it past the ack deadline", async () => {
    const { org, runner } = await orgWithRunner(api);
    const s = await rawSession(runner.token);
    await publishHttpJob(api.bus, org.org_id, runner.id, "mon_b", `${target.url}/ok`);
    const { jobs } = await s.call<ClaimResponse>("/jobs/claim", { max: 1, wait_ms: 1000 });
    for (let i = 0; i < 6; i++) {
      await Bun.sleep(500);
      const beat = await s.call<HeartbeatResponse>("/heartbeat", { ...report, in_flight: [jobs[0]!.claim] });
      expect(beat.lost).toEqual([]);
    }
    // 3 s > the 1.5 s ack deadline: without the extensions it would be redelivered by now.
    expect((await s.call<ClaimResponse>("/jobs/claim", { max: 1, wait_ms: 1000 })).jobs).toHaveLength(0);
  }, 20_000);

  it("rejects tampered ciphertext with RUNNER_PAYLOAD_INVALID", async () => {
    const { runner } = await orgWithRunner(api);
    const s = await rawSession(runner.token);
    const sealed = s.seal({ max: 1, wait_ms: 0 });
    const bytes = Buffer.from(sealed.ciphertext, "base64url");
    bytes[0]! ^= 1;
    const res = await post("/jobs/claim", runner.token, { ...sealed, ciphertext: bytes.toString("base64url") });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("RUNNER_PAYLOAD_INVALID");
    // A valid payload whose seq was changed fails too: the seq is in the AAD.
    const moved = await post("/jobs/claim", runner.token, { ...s.seal({ max: 1, wait_ms: 0 }), seq: 99 });
    expect(moved.body.code).toBe("RUNNER_PAYLOAD_INVALID");
  });

  it("rejects a replayed payload with RUNNER_REPLAY and accepts out-of-order seqs inside the window", async () => {
    const { runner } = await orgWithRunner(api);
    const s = await rawSession(runner.token);
    const fifth = s.seal({ max: 1, wait_ms: 0 }, 5);
    const third = s.seal({ max: 1, wait_ms: 0 }, 3);
    expect((await post("/jobs/claim", runner.token, fifth)).status).toBe(200);
    expect((await post("/jobs/claim", runner.token, third)).status).toBe(200);
    const again = await post("/jobs/claim", runner.token, fifth);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("RUNNER_REPLAY");
    expect((await post("/jobs/claim", runner.token, third)).body.code).toBe("RUNNER_REPLAY");
  });

  it("refuses plain payloads on an encrypted session", async () => {
    const { runner } = await orgWithRunner(api);
    const s = await rawSession(runner.token);
    const res = await post("/jobs/claim", runner.token, { session_id: s.id, seq: 1, payload: { max: 1, wait_ms: 0 } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("RUNNER_PLAINTEXT_REFUSED");
  });

  it("records a plain session when the runner opts out, and then takes plain payloads", async () => {
    const { runner, call } = await orgWithRunner(api);
    const opened = await post("/session", runner.token, { ...report, encrypted: false });
    expect(opened.body).toMatchObject({ encrypted: false, server_public_key: null, confirm: null });
    const res = await post("/jobs/claim", runner.token, { session_id: opened.body.session_id, seq: 1, payload: { max: 1, wait_ms: 0 } });
    expect(res.status).toBe(200);
    expect(res.body.payload).toEqual({ jobs: [] });
    expect((await call("GET", `/api/v1/runners/${runner.id}/status`)).body.encrypted).toBe(false);
  });

  it("a runner of another organisation cannot claim, extend or report another runner's job, nor use its session", async () => {
    const a = await orgWithRunner(api);
    const b = await orgWithRunner(api);
    const sa = await rawSession(a.runner.token);
    const sb = await rawSession(b.runner.token);
    await publishHttpJob(api.bus, a.org.org_id, a.runner.id, "mon_c", `${target.url}/ok`);
    expect((await sb.call<ClaimResponse>("/jobs/claim", { max: 5, wait_ms: 1000 })).jobs).toHaveLength(0);
    const { jobs } = await sa.call<ClaimResponse>("/jobs/claim", { max: 5, wait_ms: 1000 });
    expect(jobs).toHaveLength(1);
    const result = { claim: jobs[0]!.claim, status: "down", checked_at: Date.now(), duration_ms: 1, error: "forged", data: {} };
    const report_ = await post("/results", b.runner.token, sb.seal({ results: [result] }));
    expect(report_.status).toBe(403);
    expect(report_.body.code).toBe("RUNNER_CLAIM_FOREIGN");
    const beat = await post("/heartbeat", b.runner.token, sb.seal({ ...report, in_flight: [jobs[0]!.claim] }));
    expect(beat.body.code).toBe("RUNNER_CLAIM_FOREIGN");
    const hijack = await post("/jobs/claim", b.runner.token, sa.seal({ max: 1, wait_ms: 0 }));
    expect(hijack.body.code).toBe("RUNNER_SESSION_INVALID");
    // A claim edited to name runner B fails its signature.
    const [body, sig] = jobs[0]!.claim.split(".");
    const edited = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body!, "base64url").toString()), r: b.runner.id, o: b.org.org_id })).toString("base64url");
    expect((await post("/results", b.runner.token, sb.seal({ results: [{ ...result, claim: `${edited}.${sig}` }] }))).body.code).toBe("RUNNER_CLAIM_FOREIGN");
  });

  it("keeps only the newest five sessions of a runner; an evicted one answers RUNNER_SESSION_INVALID", async () => {
    const { runner } = await orgWithRunner(api);
    const first = await rawSession(runner.token);
    for (let i = 0; i < 6; i++) await rawSession(runner.token);
    const [row] = await api.db.sql`select count(*)::int as n from runner_sessions where runner_id = ${runner.id}`;
    expect(row!.n).toBe(5);
    const res = await post("/heartbeat", runner.token, first.seal({ ...report, in_flight: [] }));
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("RUNNER_SESSION_INVALID");
  });

  it("refuses a revoked runner's token at once", async () => {
    const { runner, call } = await orgWithRunner(api);
    const s = await rawSession(runner.token);
    await call("DELETE", `/api/v1/runners/${runner.id}`);
    const res = await post("/heartbeat", runner.token, s.seal({ ...report, in_flight: [] }));
    expect(res.status).toBe(401);
    expect(res.body.code).toBe("RUNNER_TOKEN_INVALID");
  });
});

describe("ending a session (a runner stopping)", () => {
  it("hands back the claims it names, shows the runner offline at once, and refuses the session afterwards", async () => {
    const { org, runner, call } = await orgWithRunner(api);
    const s = await rawSession(runner.token);
    await publishHttpJob(api.bus, org.org_id, runner.id, "mon_end", `${target.url}/ok`);
    const { jobs } = await s.call<ClaimResponse>("/jobs/claim", { max: 1, wait_ms: 1000 });
    expect(jobs).toHaveLength(1);
    expect((await call("GET", `/api/v1/runners/${runner.id}/status`)).body.status).toBe("online");

    expect(await s.call("/session/end", { reason: "SIGTERM", claims: [jobs[0]!.claim] })).toEqual({ released: 1 });
    const status = await call("GET", `/api/v1/runners/${runner.id}/status`);
    expect(status.body).toMatchObject({ status: "offline", in_flight: 0 });
    expect(Date.now() - Date.parse(status.body.stopped_at)).toBeLessThan(10_000);
    // Its last heartbeat stays what it was: the runner is offline because it said so, not because it went silent.
    expect(Date.now() - Date.parse(status.body.last_seen_at)).toBeLessThan(10_000);
    // The job is back on the runner's queue at once, not after its ack deadline.
    const again = await api.bus.fetchJobs(runnerSubject(runner.id), 1, 200);
    expect(again).toHaveLength(1);
    expect(again[0]!.deliveryCount).toBe(2);
    again[0]!.ack();
    const res = await post("/heartbeat", runner.token, s.seal({ ...report, in_flight: [] }));
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("RUNNER_SESSION_INVALID");

    // Started again: a new session makes it online again.
    await rawSession(runner.token);
    const back = await call("GET", `/api/v1/runners/${runner.id}/status`);
    expect(back.body).toMatchObject({ status: "online", stopped_at: null });
  });

  it("refuses another runner's claim without ending the session", async () => {
    const a = await orgWithRunner(api);
    const b = await orgWithRunner(api);
    const sa = await rawSession(a.runner.token);
    const sb = await rawSession(b.runner.token);
    await publishHttpJob(api.bus, a.org.org_id, a.runner.id, "mon_end_a", `${target.url}/ok`);
    const { jobs } = await sa.call<ClaimResponse>("/jobs/claim", { max: 1, wait_ms: 1000 });
    const res = await post("/session/end", b.runner.token, sb.seal({ reason: "SIGTERM", claims: [jobs[0]!.claim] }));
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("RUNNER_CLAIM_FOREIGN");
    expect((await b.call("GET", `/api/v1/runners/${b.runner.id}/status`)).body.status).toBe("online");
    expect((await sb.call<HeartbeatResponse>("/heartbeat", { ...report, in_flight: [] })).lost).toEqual([]);
  });
});

describe("payloads on the wire", () => {
  const MARKER = "wire-marker-7f3a9c";

  async function runAgent(token: string, unencrypted: boolean, allowPrivate = true) {
    const bodies: string[] = [];
    const recording = (async (input: string | URL | Request, init?: RequestInit) => {
      bodies.push(String(init?.body ?? ""));
      const res = await fetch(input, { ...init, tls: { ca: api.caPem } } as RequestInit);
      const text = await res.text();
      bodies.push(text);
      return new Response(text, { status: res.status, headers: res.headers });
    }) as typeof fetch;
    const config = loadRunnerConfig({ SERVICE_API_URL: api.url, SERVICE_TOKEN: token, ALLOW_PRIVATE_IPS: String(allowPrivate), POLL_INTERVAL_MS: "1000", ALLOW_UNENCRYPTED_SESSION: String(unencrypted) });
    const agent = new RunnerAgent({ config, log: silentLogger, fetch: recording });
    await agent.connect();
    const done = agent.run();
    return { bodies, agent, done };
  }

  it("refuses a loopback target unless ALLOW_PRIVATE_IPS=true, without contacting it", async () => {
    const { org, runner } = await orgWithRunner(api);
    const results = await collectResults(api.bus, org.org_id);
    const { agent, done } = await runAgent(runner.token, false, false);
    const job = await publishHttpJob(api.bus, org.org_id, runner.id, "mon_priv", `${target.url}/ok/private-probe`);
    const r = await results.waitFor((x) => x.id === job.id);
    await agent.stop();
    expect(await done).toBe(0);
    expect(r.status).toBe("down");
    expect(r.error).toMatch(/loopback/i);
    expect(target.hits).not.toContain("/ok/private-probe");
    await results.stop();
  });

  for (const unencrypted of [false, true]) {
    it(unencrypted ? "carries the job in clear on an opted-out session (the capture works)" : "carries only ciphertext: the job's target URL never appears in a request or response body", async () => {
      const { org, runner } = await orgWithRunner(api);
      const results = await collectResults(api.bus);
      const { bodies, agent, done } = await runAgent(runner.token, unencrypted);
      const job = await publishHttpJob(api.bus, org.org_id, runner.id, "mon_w", `${target.url}/ok/${MARKER}`);
      const r = await results.waitFor((x) => x.id === job.id);
      expect(r.status).toBe("up");
      expect(target.hits).toContain(`/ok/${MARKER}`);
      await agent.stop();
      expect(await done).toBe(0);
      expect(bodies.some((b) => b.includes(MARKER))).toBe(unencrypted);
      expect(bodies.some((b) => b.includes("ciphertext"))).toBe(!unencrypted);
      await results.stop();
    });
  }
});
