import type { Logger } from "../core/log.ts";
import type { ClaimResponse, HeartbeatRequest, HeartbeatResponse, RunnerResult } from "../schemas/runner-protocol.ts";
import { ApiClient, ApiError } from "./api-client.ts";
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

  constructor(private readonly o: AgentOptions) {
    this.api = new ApiClient({ baseUrl: o.config.SERVICE_API_URL, token: o.config.SERVICE_TOKEN, encrypted: !o.config.ALLOW_UNENCRYPTED_SESSION, log: o.log, fetch: o.fetch });
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
    await this.api.handshake(this.report());
    this.lastBeat = Date.now();
    this.o.log.info({ op: "runner.start", sessionId: this.api.sessionId, concurrency: this.o.config.CONCURRENCY }, "runner connected");
  }

  /** The claim and heartbeat loops; resolves with the exit code once stopped. */
  async run(): Promise<number> {
    await Promise.all([this.claimLoop(), this.heartbeatLoop()]);
    await this.stopped;
    return this.exitCode;
  }

  /** SIGTERM: stop claiming, let running checks finish for a grace period, hand back the rest, send results. */
  stop(): Promise<void> {
    this.stopped ??= this.shutdown();
    return this.stopped;
  }

  private async shutdown(): Promise<void> {
    this.stopping = true;
    this.stopPoll.abort();
    this.slotFreed?.();
    const deadline = Date.now() + SHUTDOWN_GRACE_MS;
    while (this.running.size > 0 && Date.now() < deadline && this.exitCode === 0) await Bun.sleep(50);
    const unfinished = [...this.running.keys()];
    for (const c of this.running.values()) c.abort();
    await this.flush();
    if (unfinished.length > 0 && this.exitCode === 0) {
      await this.api.call("/jobs/release", { claims: unfinished }).catch((err) => this.o.log.warn({ op: "runner.stop", err }, "could not hand jobs back; they return after the ack deadline"));
    }
    this.o.log.info({ op: "runner.stop", handedBack: unfinished.length }, "runner stopped");
  }

  private fatal(err: ApiError): void {
    if (this.exitCode !== 0) return;
    this.exitCode = 2;
    this.o.log.fatal({ op: "runner.auth", code: err.code, status: err.status }, `the API refused this runner (${err.message}); exiting without retry`);
    void this.stop();
  }

  /** Session expired or lost on the API side: open a new one; failing that is fatal. */
  private async recover(err: unknown): Promise<void> {
    if (err instanceof ApiError && err.fatal) return this.fatal(err);
    if (err instanceof ApiError && err.code === "RUNNER_SESSION_INVALID") {
      this.renewing ??= this.api
        .handshake(this.report())
        .then(() => this.o.log.warn({ op: "runner.session" }, "session renewed"))
        .finally(() => (this.renewing = null));
      try {
        return await this.renewing;
      } catch (e) {
        if (e instanceof ApiError && e.fatal) return this.fatal(e);
      }
    }
    this.o.log.warn({ op: "runner.api", err }, "API call failed; retrying");
    await Bun.sleep(Math.min(this.o.config.POLL_INTERVAL_MS, 5000));
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
    // Up to 200 results, and fewer when screenshots make them large (always at least one).
    let size = 0;
    let n = 0;
    while (n < Math.min(200, this.results.length)) {
      size += JSON.stringify(this.results[n]).length;
      if (n > 0 && size > BATCH_BYTES) break;
      n++;
    }
    const batch = this.results.splice(0, n);
    this.flushing = this.api
      .call("/results", { results: batch })
      .then(() => {
        for (const r of batch) this.held.delete(r.claim);
      })
      .catch(async (err) => {
        this.results.unshift(...batch);
        await this.recover(err);
      })
      .finally(() => {
        this.flushing = null;
        if (this.results.length > 0 && this.exitCode === 0) void this.flush();
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
        const res = await this.api.call<HeartbeatResponse>("/heartbeat", { ...this.report(), in_flight: [...this.held].slice(0, 100) });
        this.lastBeat = Date.now();
        for (const claim of res.lost) {
          // Revoked or redelivered elsewhere: its result could no longer be acked.
          if (this.running.has(claim)) this.o.log.warn({ op: "runner.heartbeat" }, "the API no longer holds a running check's claim; stopping that check");
          this.running.get(claim)?.abort();
          this.held.delete(claim);
        }
      } catch (err) {
        await this.recover(err);
      }
    }
  }
}
