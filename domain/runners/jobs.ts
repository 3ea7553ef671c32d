import { setTimeout as delay } from "node:timers/promises";
import type { Bus, Delivery } from "../../core/bus/index.ts";
import type { SecretBox } from "../../core/crypto/secrets.ts";
import type { Sql } from "../../db/client.ts";
import { AppError } from "../../core/errors.ts";
import { type CheckJobMessage, isRunNowJobId, resultMessage, resultSubject, runNowReplySubject, runnerSubject, unavailableResult } from "../../schemas/messages/check-messages.ts";
import type { Logger } from "../../core/log.ts";
import { openSealedFields } from "../../core/crypto/sealed-fields.ts";
import { recordRunnerBeat, touchRunner } from "../../db/queries/runners.ts";
import { browsersOfRunner } from "../../db/queries/browser-placement.ts";
import { browserEngineOf } from "../../schemas/checks/browser-fields.ts";
import type { ClaimedJob, ClaimRequest, ClaimResponse, HeartbeatRequest, HeartbeatResponse, ReleaseRequest, ResultsRequest } from "../../schemas/runner-protocol.ts";
import type { RunnerCaller } from "./sessions.ts";
import type { ClaimWatch } from "./claim-watch.ts";
import { heardExpiry, type Unheard } from "./runner-job-expiry.ts";

/** What a claim stands for: the bus delivery token and the job it delivered to this runner. */
interface ClaimBody {
  /** bus token */
  t: string;
  /** runner id */
  r: string;
  /** org id, monitor id, job id, due time */
  o: string;
  m: string;
  j: string;
  d: number;
  /** 1: a run-now of a paused or suspended monitor, answered but not recorded. */
  n?: 1;
}

export function signClaim(box: SecretBox, c: ClaimBody): string {
  const body = Buffer.from(JSON.stringify(c)).toString("base64url");
  return `${body}.${box.sign(`runner-claim.${body}`)}`;
}

/** The claim's job, when it is authentic and was handed to this runner; otherwise 403 RUNNER_CLAIM_FOREIGN. */
function verifyClaim(box: SecretBox, runner: RunnerCaller, claim: string): ClaimBody {
  const [body, sig] = claim.split(".");
  if (body && sig && box.verify(`runner-claim.${body}`, sig)) {
    const c = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as ClaimBody;
    if (c.r === runner.id && c.o === runner.orgId) return c;
  }
  throw new AppError(403, "RUNNER_CLAIM_FOREIGN", "A claim in this request was not issued to this runner");
}

export interface JobDeps {
  sql: Sql;
  bus: Bus;
  box: SecretBox;
  log: Logger;
  /** The API process's long-polls and handed-out jobs (api/server.ts); without it a poll ends only with its request. */
  claims?: ClaimWatch;
  /** When runners could not reach the API (api/server.ts); without it a job keeps the expiry it was published with. */
  unheard?: () => Promise<Unheard[]>;
}

/** Records liveness and restarts the ack deadline of every job the runner still holds. */
export async function heartbeat(d: JobDeps, runner: RunnerCaller, sessionId: string, req: HeartbeatRequest): Promise<HeartbeatResponse> {
  const claims = req.in_flight.map((c) => ({ raw: c, body: verifyClaim(d.box, runner, c) }));
  await recordRunnerBeat(d.sql, runner.id, sessionId, {
    reportedName: req.name,
    region: req.region,
    version: req.version,
    browsers: req.capabilities.browsers,
    concurrency: req.capabilities.concurrency,
    heartbeatIntervalMs: req.heartbeat_interval_ms,
    inFlight: claims.length,
  });
  const lost: string[] = [];
  await Promise.all(claims.map(async (c) => (await d.bus.extendJob(c.body.t)) || lost.push(c.raw)));
  d.claims?.settle(claims.filter((c) => lost.includes(c.raw)).map((c) => c.body.t));
  return { suspended: runner.suspended, extended: claims.length - lost.length, lost };
}

/**
 * Long poll on `jobs.runner.<id>` for the runner's session `sessionId`. It ends with its request, and at once when the
 * session ends (a proxy may keep the request open after the runner left): then it takes no job. A job for another
 * organisation or location (should not happen) is terminated, never handed out. Secrets are merged here: the runner
 * has no SECRET_KEY.
 */
export async function claimJobs(d: JobDeps, runner: RunnerCaller, sessionId: string, req: ClaimRequest, signal?: AbortSignal): Promise<ClaimResponse> {
  await touchRunner(d.sql, runner.id, false);
  const poll = d.claims?.open(runner.id, sessionId, signal) ?? { signal: signal ?? new AbortController().signal, close: () => {} };
  try {
    if (runner.suspended) {
      await delay(Math.min(req.wait_ms, 5000), undefined, { signal: poll.signal }).catch(() => {}); // rejects only on abort
      return { jobs: [] };
    }
    // The fetch ends with the poll: it takes no job after that and hands back any it had taken.
    const deliveries = await d.bus.fetchJobs<CheckJobMessage>(runnerSubject(runner.id), req.max, Math.max(req.wait_ms, 1000), { signal: poll.signal });
    const jobs = await handOut(d, runner, deliveries, poll.signal);
    await recountExpiry(d, jobs);
    d.claims?.handOut(runner.id, sessionId, jobs.map((j) => j.token));
    return { jobs: jobs.map((j) => j.claimed) };
  } finally {
    poll.close();
  }
}

/** A job handed to the runner: its bus token, its claim, and its life (`CheckJobMessage.life_ms`). */
interface HandedOut {
  token: string;
  claimed: ClaimedJob;
  lifeMs: number;
}

/**
 * A job's life counts only time in which its runner could have been heard. The scheduler counted what it knew when it
 * published; an outage still under way then (no API process up, the all-in-one's database unreachable) is known now,
 * so a job already expired is given its life again from when the runner could reach the API, as after a restart.
 */
async function recountExpiry(d: JobDeps, jobs: HandedOut[]): Promise<void> {
  const now = Date.now();
  const expired = jobs.filter((j) => j.claimed.job.expires_at <= now + 1000);
  if (expired.length === 0 || !d.unheard) return;
  const unheard = await d.unheard().catch((err) => {
    d.log.warn({ op: "runner.claim", err }, "could not read when runners could not reach the API; jobs keep their expiry");
    return [];
  });
  for (const { claimed, lifeMs } of expired) claimed.job.expires_at = Math.max(claimed.job.expires_at, heardExpiry(claimed.job.due_at, lifeMs, unheard));
}

/** The deliveries the runner may run, as claims; the others are settled here. */
async function handOut(d: JobDeps, runner: RunnerCaller, deliveries: Delivery<CheckJobMessage>[], signal: AbortSignal): Promise<HandedOut[]> {
  const jobs: HandedOut[] = [];
  let engines: Set<string> | null = null;
  for (const delivery of deliveries) {
    const job = delivery.data;
    if (signal.aborted) {
      // The runner went away mid-poll: hand the job straight back rather than wait for the ack deadline.
      delivery.nak();
      continue;
    }
    if (job.org_id !== runner.orgId || job.location !== runner.id) {
      d.log.error({ op: "runner.claim", runnerId: runner.id, jobId: job.id, jobOrg: job.org_id }, "job on a runner subject does not belong to the runner; dropped");
      delivery.term();
      continue;
    }
    const engine = browserEngineOf(job.type, job.config);
    if (engine !== null) {
      // A runner only gets browser jobs for engines it has (BROWSERS, as last reported); others are a gap, not downtime.
      engines ??= await browsersOfRunner(d.sql, runner.id);
      if (!engines.has(engine)) {
        await notRun(d, job, `runner has no ${engine} browser (its BROWSERS setting)`);
        delivery.ack();
        continue;
      }
    }
    let config: Record<string, unknown>;
    try {
      config = openSealedFields(job.config, job.secrets_enc, d.box);
    } catch {
      await notRun(d, job, "cannot decrypt the monitor's secrets for the runner");
      delivery.ack();
      continue;
    }
    const claim = signClaim(d.box, { t: delivery.token, r: runner.id, o: job.org_id, m: job.monitor_id, j: job.id, d: job.due_at, ...(job.record === false ? { n: 1 as const } : {}) });
    jobs.push({
      token: delivery.token,
      claimed: {
        claim,
        job: { id: job.id, org_id: job.org_id, monitor_id: job.monitor_id, location: job.location, due_at: job.due_at, expires_at: job.expires_at, type: job.type, config, timeout_ms: job.timeout_ms },
      },
      lifeMs: job.life_ms ?? job.expires_at - job.due_at,
    });
  }
  return jobs;
}

/** A job the runner is not given: recorded as a gap (unless a run-now that records nothing), and a run-now's caller told. */
async function notRun(d: JobDeps, job: CheckJobMessage, error: string): Promise<void> {
  const message = unavailableResult(job, error, Date.now());
  if (isRunNowJobId(job.id)) {
    await d.bus.request(runNowReplySubject(job.id), message, { timeoutMs: 2000 }).catch(() => {});
    return;
  }
  await d.bus.publishResult(resultSubject(job.org_id, job.monitor_id), message);
}

/**
 * Publishes each result on RESULTS (a run-now result also to the API instance waiting for it) and then acks its job. The identity fields come from the
 * signed claim, not from the runner, so a runner can only report the jobs it was given.
 */
export async function reportResults(d: JobDeps, runner: RunnerCaller, req: ResultsRequest): Promise<{ accepted: number }> {
  const verified = req.results.map((r) => ({ r, c: verifyClaim(d.box, runner, r.claim) }));
  for (const { r, c } of verified) {
    const record = c.n !== 1;
    const job = { id: c.j, org_id: c.o, monitor_id: c.m, location: runner.id, location_type: "runner" as const, due_at: c.d };
    // Screenshots travel on to ingest, which stores them and names the ones kept in data.screenshots.
    const message = resultMessage(job, { checked_at: r.checked_at, status: r.status, duration_ms: r.duration_ms, error: r.error, data: r.data, artifacts: r.artifacts });
    if (record) await d.bus.publishResult(resultSubject(c.o, c.m), message);
    // A run-now job: the API instance that sent it waits for the result (maybe not this one).
    if (isRunNowJobId(c.j)) await d.bus.request(runNowReplySubject(c.j), message, { timeoutMs: 2000 }).catch(() => {});
    // False when the consumer is gone (revoked) or the job was redelivered: ingest is idempotent on the id.
    await d.bus.ackJob(c.t);
    d.claims?.settle([c.t]);
  }
  await touchRunner(d.sql, runner.id, true);
  return { accepted: verified.length };
}

/** Hands claimed jobs back for immediate redelivery (runner shutting down). */
export async function releaseJobs(d: JobDeps, runner: RunnerCaller, req: ReleaseRequest): Promise<{ released: number }> {
  const verified = req.claims.map((c) => verifyClaim(d.box, runner, c));
  let released = 0;
  for (const c of verified) if (await d.bus.nakJob(c.t)) released++;
  d.claims?.settle(verified.map((c) => c.t));
  return { released };
}
