import type { Logger } from "../core/log.ts";
import { type ClaimResponse, type HeartbeatRequest, type HeartbeatResponse, MAX_END_CLAIMS, type RunnerResult, type SessionEndResponse } from "../schemas/runner-protocol.ts";
import { ApiClient, ApiError } from "./api-client.ts";
import { ApiReachability } from "./api-reachability.ts";
import type { BrowserPool } from "./checks/browser/browser-pool.ts";
import type { RunCheckOptions } from "./checks/registry.ts";
import { CheckAbortedError } from "./checks/types.ts";
import { browserEngines, type RunnerConfig } from "./config.ts";
import { executeClaimed } from "./execute.ts";
import { RUNNER_VERSION } from "./version.ts";

/** Longest gap between claim extensions while jobs are held; below the API's 60 s job ack deadline. */
const EXTEND_EVERY_MS = 15_000;
/** On SIGTERM, how long running checks may finish before they are handed back (Docker's default stop timeout is 10 s). */
const SHUTDOWN_GRACE_MS = 8_000;
/** Then, how long sending the last results and ending the session may take: an unreachable API must not hold the exit. */
const HAND_BACK_MS = 1_500;
/** The longest a stop takes, from the signal to `run()` resolving. */
export const STOP_DEADLINE_MS = SHUTDOWN_GRACE_MS + HAND_BACK_MS;

export interface AgentOptions {
  config: RunnerConfig;
  log: Logger;
  fetch?: typeof fetch;
  check?: Omit<RunCheckOptions, "signal" | "browsers">;
  /** Warm browsers for BROWSERS; browser jobs for engines it lacks are recorded unavailable. */
  browsers?: BrowserPool | null;
}

/** Serialised size of one result batch before sealing; sealing adds about a third, under the API's 1 MiB default body limit. */
const BATCH_BYTES = 600_000;

/** Takes the next batch off `results`: up to 200, and fewer when screenshots make them large (always at least one). */
function takeBatch(results: RunnerResult[]): RunnerResult[] {
  let size = 0;
  let n = 0;
  while (n < Math.min(200, results.length)) {
    size += JSON.stringify(results[n]).length;
    if (n > 0 && size > BATCH_BYTES) break;
    n++;
  }
  return results.splice(0, n);
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));
const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;

/**
 * The persistent runner: one session, a claim long-poll loop bounded by CONCURRENCY, results sent in
 * batches, heartbeats that extend held claims. A fatal answer (token revoked) stops it with `exitCode` 2.
 */
export class RunnerAgent {
  readonly api: ApiClient;
  private readonly running = new Map<string, AbortController>();
  /** Claims whose result is not yet accepted; heartbeats keep extending them. */
  private readonly held = new Set<string>();
  private results: RunnerResult[] = [];
  private flushing: Promise<void> | null = null;
  private stopping = false;
  private readonly stopPoll = new AbortController();
  private readonly stopRequested = new Promise<void>((resolve) => this.stopPoll.signal.addEventListener("abort", () => resolve(), { once: true }));
  /** One renewal at a time, however many loops notice the lost session. */
  private renewing: Promise<void> | null = null;
  private slotFreed: (() => void) | null = null;
  private lastBeat = 0;
  private stopped: Promise<void> | null = null;
  exitCode = 0;

  private readonly retryMs: number;

  constructor(private readonly o: AgentOptions) {
    this.retryMs = Math.min(o.config.POLL_INTERVAL_MS, 5000);
    const reachability = new ApiReachability({ log: o.log, server: o.config.SERVICE_API_URL, retryMs: this.retryMs });
    this.api = new ApiClient({ baseUrl: o.config.SERVICE_API_URL, token: o.config.SERVICE_TOKEN, encrypted: !o.config.ALLOW_UNENCRYPTED_SESSION, log: o.log, fetch: o.fetch, reachability });
  }

  private report(): Omit<HeartbeatRequest, "in_flight"> {
    const c = this.o.config;
    return {
      version: RUNNER_VERSION,
      name: c.RUNNER_NAME,
      region: c.RUNNER_REGION,
      capabilities: { browsers: browserEngines(c.BROWSERS), concurrency: c.CONCURRENCY },
      heartbeat_interval_ms: c.HEARTBEAT_INTERVAL_MS,
    };
  }

  /** The handshake; throws when it fails, and then the runner must not start. */
  async connect(): Promise<void> {
    const opened = await this.api.handshake(this.report());
    this.lastBeat = Date.now();
    const server = this.o.config.SERVICE_API_URL;
    this.o.log.info(
      { op: "runner.session", server, ...opened },
      `runner connected to ${server} as runner ${opened.runnerId}: session ${opened.sessionId} open, payloads ${opened.encrypted ? "encrypted" : "NOT encrypted"}; claiming jobs`,
    );
  }

  /** The claim and heartbeat loops; resolves with the exit code once stopped. */
  async run(): Promise<number> {
    await Promise.all([this.claimLoop(), this.heartbeatLoop()]);
    await this.stopped;
    return this.exitCode;
  }

  /**
   * SIGTERM or SIGINT (`reason`): stop claiming, let running checks finish for a grace period, send their results,
   * then end the session handing back what is still held, so the API shows the runner offline at once. Resolves
   * within STOP_DEADLINE_MS whether or not the API answers.
   */
  stop(reason = "stop requested"): Promise<void> {
    this.stopped ??= this.shutdown(reason);
    return this.stopped;
  }

  private async shutdown(reason: string): Promise<void> {
    const log = this.o.log;
    this.stopping = true;
    this.stopPoll.abort();
    this.slotFreed?.();
    const running = this.running.size;
    if (this.exitCode === 0) {
      const waiting = running > 0 ? `; waiting up to ${SHUTDOWN_GRACE_MS / 1000} s for ${plural(running, "running check")}` : "";
      log.info({ op: "runner.stop", signal: reason, running }, `shutting down (${reason}): claiming no more jobs${waiting}`);
    }
    const graceEnds = Date.now() + SHUTDOWN_GRACE_MS;
    while (this.running.size > 0 && Date.now() < graceEnds && this.exitCode === 0) await Bun.sleep(50);
    const unfinished = [...this.running.keys()];
    for (const c of this.running.values()) c.abort();
    let handedBack = 0;
    // A refused token (exit code 2) has nothing left to tell the API.
    if (this.exitCode === 0) handedBack = await this.leave(reason, unfinished, AbortSignal.timeout(HAND_BACK_MS));
    log.info({ op: "runner.stop", signal: reason, handedBack, exitCode: this.exitCode }, "runner stopped");
  }

  /** Sends the results it has, then ends the session with every claim still held; returns how many the API took back. */
  private async leave(reason: string, unfinished: string[], signal: AbortSignal): Promise<number> {
    await this.sendResults(signal);
    const held = [...new Set([...unfinished, ...this.held])];
    const claims = held.slice(0, MAX_END_CLAIMS);
    const end = () => this.api.call<SessionEndResponse>("/session/end", { reason, claims }, signal);
    try {
      const { released } = await end().catch(async (err) => {
        // The API lost the session meanwhile: a new one to end (claims belong to the runner, not the session).
        if (!(err instanceof ApiError && err.code === "RUNNER_SESSION_INVALID")) throw err;
        await this.api.handshake(this.report(), signal);
        return end();
      });
      const back = released > 0 ? `; handed back ${plural(released, "job")} for immediate redelivery` : "";
      this.o.log.info({ op: "runner.stop", handedBack: released, held: held.length }, `told the API this runner is stopping: it shows offline now${back}`);
      return released;
    } catch (err) {
      const why = signal.aborted ? `no answer within ${HAND_BACK_MS / 1000} s` : message(err);
      const jobs = held.length > 0 ? ` and the ${plural(held.length, "job")} it held return after their ack deadline` : "";
      this.o.log.warn({ op: "runner.stop", reason: why, held: held.length }, `could not tell the API this runner is stopping (${why}): it shows offline after 3 missed heartbeats${jobs}`);
      return 0;
    }
  }

  /** The last results, each batch sent once, within `signal`; what is not accepted stays held (and is handed back). */
  private async sendResults(signal: AbortSignal): Promise<void> {
    const aborted = new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
    await Promise.race([this.flushing, aborted]);
    while (this.results.length > 0 && !signal.aborted) {
      const batch = takeBatch(this.results);
      try {
        await this.api.call("/results", { results: batch }, signal);
        for (const r of batch) this.held.delete(r.claim);
      } catch {
        this.results.unshift(...batch);
        return;
      }
    }
  }

  private fatal(err: ApiError): void {
    if (this.exitCode !== 0) return;
    this.exitCode = 2;
    this.o.log.fatal({ op: "runner.auth", code: err.code, status: err.status }, `the API refused this runner (${err.message}); exiting without retry`);
    void this.stop("token refused");
  }

  /** Session expired or lost on the API side: open a new one; failing that is fatal. */
  private async recover(err: unknown): Promise<void> {
    if (err instanceof ApiError && err.fatal) return this.fatal(err);
    if (err instanceof ApiError && err.code === "RUNNER_SESSION_INVALID") {
      this.renewing ??= this.api
        .handshake(this.report())
        .then((opened) => this.o.log.warn({ op: "runner.session", sessionId: opened.sessionId }, "the API no longer knew this runner's session; session renewed"))
        .finally(() => (this.renewing = null));
      try {
        return await this.renewing;
      } catch (e) {
        if (e instanceof ApiError && e.fatal) return this.fatal(e);
        err = e;
      }
    }
    // An API that does not answer is logged once per outage (ApiReachability); a refused call each time.
    if (!(err instanceof ApiError && err.unanswered)) this.o.log.warn({ op: "runner.api", err }, "API call failed; retrying");
    await Promise.race([Bun.sleep(this.retryMs), this.stopRequested]);
  }

  private async claimLoop(): Promise<void> {
    const c = this.o.config;
    while (!this.stopping) {
      const free = c.CONCURRENCY - this.running.size;
      if (free <= 0) {
        await new Promise<void>((resolve) => (this.slotFreed = resolve));
        continue;
      }
      try {
        const { jobs } = await this.api.call<ClaimResponse>("/jobs/claim", { max: free, wait_ms: c.POLL_INTERVAL_MS }, this.stopPoll.signal);
        for (const j of jobs) this.execute(j.claim, j.job);
      } catch (err) {
        if (this.stopping) break;
        await this.recover(err);
      }
    }
  }

  private execute(claim: string, job: Parameters<typeof executeClaimed>[0]): void {
    const abort = new AbortController();
    this.running.set(claim, abort);
    this.held.add(claim);
    executeClaimed(job, { allowPrivate: this.o.config.ALLOW_PRIVATE_IPS, now: Date.now, signal: abort.signal, check: { ...this.o.check, log: this.o.log, browsers: this.o.browsers ?? undefined } })
      .then((outcome) => {
        this.results.push({ claim, ...outcome });
        void this.flush();
      })
      .catch((err) => {
        this.held.delete(claim);
        if (!(err instanceof CheckAbortedError)) this.o.log.error({ op: "runner.check", jobId: job.id, orgId: job.org_id, monitorId: job.monitor_id, err }, "check failed unexpectedly; the job returns after its ack deadline");
      })
      .finally(() => {
        this.running.delete(claim);
        this.slotFreed?.();
        this.slotFreed = null;
      });
  }

  /** Sends every finished result in one batch; results arriving meanwhile go in the next. */
  private flush(): Promise<void> {
    if (this.flushing) return this.flushing.then(() => (this.results.length > 0 ? this.flush() : undefined));
    if (this.results.length === 0 || this.exitCode !== 0) return Promise.resolve();
    const batch = takeBatch(this.results);
    this.flushing = this.api
      .call("/results", { results: batch })
      .then(() => {
        for (const r of batch) this.held.delete(r.claim);
      })
      .catch(async (err) => {
        this.results.unshift(...batch);
        // While stopping, the shutdown sends what is left once, within its deadline.
        if (!this.stopping) await this.recover(err);
      })
      .finally(() => {
        this.flushing = null;
        if (this.results.length > 0 && this.exitCode === 0 && !this.stopping) void this.flush();
      });
    return this.flushing;
  }

  private async heartbeatLoop(): Promise<void> {
    const every = this.o.config.HEARTBEAT_INTERVAL_MS;
    const tick = Math.min(every, EXTEND_EVERY_MS);
    while (!this.stopping) {
      await Promise.race([Bun.sleep(tick), this.stopRequested]);
      if (this.stopping) break;
      if (this.held.size === 0 && Date.now() - this.lastBeat < every - 100) continue;
      try {
        // Abandoned on a stop: a heartbeat waiting on an unreachable API must not hold the exit.
        const res = await this.api.call<HeartbeatResponse>("/heartbeat", { ...this.report(), in_flight: [...this.held].slice(0, 100) }, this.stopPoll.signal);
        this.lastBeat = Date.now();
        for (const claim of res.lost) {
          // Revoked or redelivered elsewhere: its result could no longer be acked.
          if (this.running.has(claim)) this.o.log.warn({ op: "runner.heartbeat" }, "the API no longer holds a running check's claim; stopping that check");
          this.running.get(claim)?.abort();
          this.held.delete(claim);
        }
      } catch (err) {
        if (this.stopping) break;
        await this.recover(err);
      }
    }
  }
}
