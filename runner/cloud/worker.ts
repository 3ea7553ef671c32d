import { hostname } from "node:os";
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { Bus, ConsumerHandle, Delivery, JobSlot } from "../../core/bus/index.ts";
import { type Clock, systemClock } from "../../core/clock.ts";
import type { SecretBox } from "../../core/crypto/secrets.ts";
import { type CheckJobMessage, type CheckResultMessage, regionBrowserSubject, regionSubject, resultSubject } from "../../schemas/messages/check-messages.ts";
import type { Logger } from "../../core/log.ts";
import type { BrowserPool } from "../checks/browser/browser-pool.ts";
import type { RunCheckOptions } from "../checks/registry.ts";
import { CheckAbortedError } from "../checks/types.ts";
import { executeJob } from "./execute.ts";
import { RecentDurations, startPresence } from "./presence.ts";
import { PublishAbandonedError, ResultPipeline } from "./result-pipeline.ts";
import { startRunNowServer } from "./run-now-server.ts";

export interface WorkerDeps {
  bus: Bus;
  box: SecretBox;
  log: Logger;
  region: string;
  /** Checks at once; default 50. */
  concurrency?: number;
  /** ALLOW_PRIVATE_IPS: only the all-in-one local region sets it. */
  allowPrivate?: boolean;
  /** IPV6_EGRESS: checks may contact IPv6 targets; default false (hosted cloud regions are IPv4 only). */
  ipv6?: boolean;
  /** Ack deadline of the region's job consumer; default 30 s. Long checks keep extending it. */
  ackWaitMs?: number;
  heartbeatMs?: number;
  /** On stop, how long running checks may finish before they are aborted and handed back; default 30 s. */
  shutdownGraceMs?: number;
  workerId?: string;
  version?: string;
  clock?: Clock;
  registry?: Registry;
  /** Endpoints and logger for the checks (tests point them at loopback servers). */
  check?: Omit<RunCheckOptions, "signal" | "browsers">;
  /**
   * Warm browsers (BROWSERS): the worker then also consumes `jobs.region.<region>.<engine>` for each
   * engine, as many at once as the pool has browsers per engine, and reports the engines so the
   * scheduler places browser monitors here.
   */
  browsers?: BrowserPool | null;
}

export interface WorkerHandle {
  readonly workerId: string;
  /** Checks running, results of finished checks waiting for the bus, checks whose results are on it. */
  stats(): { inFlight: number; publishing: number; checksTotal: number };
  /**
   * Stops taking jobs, lets running checks finish and their results reach the bus (up to the grace), hands back
   * the rest, leaves the region.
   */
  stop(): Promise<void>;
}

/** The gauges are read when scraped (collect), not set on every check: two labelled sets per check cost more than a scrape. */
function workerMetrics(region: string, now: { inFlight(): number; publishing(): number }, registry?: Registry) {
  const registers = registry ? [registry] : [];
  return {
    checks: new Counter({ name: "watchpost_worker_checks_total", help: "Checks run, by result status", labelNames: ["region", "status"] as const, registers }),
    inFlight: new Gauge({
      name: "watchpost_worker_in_flight",
      help: "Checks running now",
      labelNames: ["region"] as const,
      registers,
      collect() {
        this.set({ region }, now.inFlight());
      },
    }),
    publishing: new Gauge({
      name: "watchpost_worker_publishing",
      help: "Results of finished checks waiting for the bus to take them",
      labelNames: ["region"] as const,
      registers,
      collect() {
        this.set({ region }, now.publishing());
      },
    }),
    startLag: new Histogram({
      name: "watchpost_worker_start_lag_seconds",
      help: "From a check's due time until a worker started it",
      labelNames: ["region"] as const,
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    }),
  };
}

export type JobRunnerDeps = Pick<WorkerDeps, "box" | "log" | "allowPrivate" | "ipv6" | "check" | "browsers"> & { clock?: Clock; signal?: AbortSignal };

/**
 * How this worker runs one job, scheduled or run-now: executeJob with the worker's options. Screenshots
 * ride in the result; ingest stores them when the result is published (a run-now that is not recorded
 * is not published, so its files are not kept).
 */
export function jobRunner(deps: JobRunnerDeps): (job: CheckJobMessage, record: boolean) => Promise<CheckResultMessage> {
  const clock = deps.clock ?? systemClock;
  return async (job, record) => {
    const result = await executeJob(job, {
      box: deps.box,
      allowPrivate: deps.allowPrivate ?? false,
      ipv6: deps.ipv6 ?? false,
      now: () => clock.now(),
      signal: deps.signal,
      check: { ...deps.check, browsers: deps.browsers ?? undefined },
    });
    if (record || !result.artifacts) return result;
    // Not recorded, so nothing stores its files: the answer names none.
    const { artifacts: _files, ...answer } = result;
    return { ...answer, data: { ...answer.data, screenshots: null } };
  };
}

/**
 * A cloud worker: consumes `jobs.region.<region>` with bounded concurrency, runs each check
 * and publishes its result (screenshots included), and only then acks the job. A check's slot is freed when
 * the check ends: its result waits for the bus in a bounded pipeline behind it. It speaks only on
 * the bus: its presence goes out as beats, and ingest stores both. A worker that dies mid-check never
 * acks, so the job is redelivered after the ack deadline; the result's id is the job's, so a
 * re-run is stored once.
 */
export async function startWorker(deps: WorkerDeps): Promise<WorkerHandle> {
  const { bus, log, region } = deps;
  const clock = deps.clock ?? systemClock;
  const concurrency = deps.concurrency ?? 200;
  const ackWaitMs = deps.ackWaitMs ?? 30_000;
  const workerId = deps.workerId ?? `${region}/${hostname()}/${process.pid}`;
  const durations = new RecentDurations();
  const abort = new AbortController();
  let inFlight = 0;
  let checksTotal = 0;

  const engines = [...(deps.browsers?.engines ?? [])];
  const run = jobRunner({ ...deps, clock, signal: abort.signal });

  // Results waiting for the bus: twice the checks at once keeps a worker busy across a publish round trip.
  const pipeline = new ResultPipeline(2 * concurrency, abort.signal);
  const metrics = workerMetrics(region, { inFlight: () => inFlight, publishing: () => pipeline.size }, deps.registry);

  const check = async (job: CheckJobMessage) => {
    inFlight++;
    try {
      metrics.startLag.observe({ region }, Math.max(0, clock.now() - job.due_at) / 1000);
      return await run(job, true);
    } finally {
      inFlight--;
    }
  };

  // The check's slot goes to the next job once its result has room in the pipeline; the job stays unacked
  // until the result is on the bus (a failed publish naks it for redelivery).
  const publish = (result: CheckResultMessage, slot: JobSlot) =>
    pipeline.run(
      () => slot.release(),
      () => bus.publishResult(resultSubject(result.org_id, result.monitor_id), result),
    );

  // Every claim is kept while its check runs and its result waits for the bus, however long that takes: one timer
  // for the worker extends each claim at most `extendMs` after the last extension (a timer per check cost more).
  const extendMs = Math.max(500, Math.floor(ackWaitMs / 3));
  const claims = new Map<Delivery<CheckJobMessage>, number>();
  const keepAlive = setInterval(() => {
    const now = Date.now();
    for (const [d, at] of claims) {
      if (now - at < extendMs / 2) continue;
      d.inProgress();
      claims.set(d, now);
    }
  }, extendMs / 2);

  const handle = async (d: Delivery<CheckJobMessage>, slot: JobSlot) => {
    const job = d.data;
    claims.set(d, Date.now());
    try {
      const result = await check(job);
      await publish(result, slot);
      checksTotal++;
      metrics.checks.inc({ region, status: result.status });
      if (result.status !== "unavailable") durations.add(result.duration_ms);
      // Returning acks the job: only now, after its result is on the bus.
    } catch (err) {
      if (err instanceof CheckAbortedError || err instanceof PublishAbandonedError) {
        d.nak();
        return;
      }
      log.warn({ op: "worker.job", err, jobId: job.id, orgId: job.org_id, monitorId: job.monitor_id, delivery: d.deliveryCount }, "job failed; it will be redelivered");
      throw err;
    } finally {
      claims.delete(d);
    }
  };

  const presence = await startPresence({
    bus,
    log,
    workerId,
    region,
    version: deps.version ?? "dev",
    concurrency,
    browsers: engines,
    intervalMs: deps.heartbeatMs ?? 5000,
    stats: () => ({ inFlight, checksTotal, recentP50Ms: durations.median() }),
  }).catch((err: unknown) => {
    clearInterval(keepAlive);
    throw err;
  });
  const consumers: ConsumerHandle[] = [];
  try {
    consumers.push(await bus.consumeJobs<CheckJobMessage>(regionSubject(region), { maxInFlight: concurrency, ackWaitMs }, handle));
    for (const engine of engines) {
      consumers.push(await bus.consumeJobs<CheckJobMessage>(regionBrowserSubject(region, engine), { maxInFlight: deps.browsers!.size, ackWaitMs }, handle));
    }
    consumers.push(await startRunNowServer({ bus, log, region, engines, run }));
  } catch (err) {
    await Promise.all(consumers.map((c) => c.stop()));
    clearInterval(keepAlive);
    await presence.stop();
    throw err;
  }
  log.info({ op: "worker.start", workerId, region, concurrency, browsers: engines, allowPrivate: deps.allowPrivate ?? false }, "worker consuming");

  let stopping: Promise<void> | null = null;
  return {
    workerId,
    stats: () => ({ inFlight, publishing: pipeline.size, checksTotal }),
    stop() {
      stopping ??= (async () => {
        const grace = setTimeout(() => abort.abort(), deps.shutdownGraceMs ?? 30_000);
        await Promise.all(consumers.map((c) => c.stop()));
        clearTimeout(grace);
        clearInterval(keepAlive);
        await presence.stop();
        log.info({ op: "worker.stop", workerId, checksTotal }, "worker stopped");
      })();
      return stopping;
    },
  };
}
