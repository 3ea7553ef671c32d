import { loadAlertingConfig } from "../alerting/config.ts";
import { INGEST_DURABLE } from "../alerting/ingest/ingest.ts";
import { startAlertingRole } from "../alerting/role.ts";
import { ALERTING_DURABLE } from "../alerting/runtime/start.ts";
import { loadApiConfig, signupOpen } from "../api/config.ts";
import { buildApiDeps, startApiServer } from "../api/server.ts";
import { providerFromConfig } from "../billing/provider/from-config.ts";
import { maybeStartSimulator } from "../billing/simulator/attach.ts";
import { canSpillResults, createBus } from "../core/bus/index.ts";
import { restoreSpilledResults, spillUnsettledResults } from "../core/bus/result-spill-file.ts";
import { loadSecretKey, previousSecretKeys } from "../core/crypto/secret-key.ts";
import { SecretBox } from "../core/crypto/secrets.ts";
import { openDatabase } from "../db/open.ts";
import { createLogger } from "../core/log.ts";
import { createMetrics } from "../core/metrics.ts";
import { shutdownOnSignal } from "../core/process/lifecycle.ts";
import { listenError } from "../core/process/listen-error.ts";
import pkg from "../package.json" with { type: "json" };
import { loadWorkerConfig } from "../runner/cloud/config.ts";
import { startWorker } from "../runner/cloud/worker.ts";
import { startWorkerThreads } from "../runner/cloud/worker-threads.ts";
import { startBrowserPool } from "../runner/checks/browser/browser-env.ts";
import { loadSchedulerConfig } from "../scheduler/config.ts";
import { startScheduler } from "../scheduler/start.ts";
import { BlindTime } from "../core/process/blind-time.ts";
import { loadAllInOneConfig } from "./all-in-one-config.ts";

/**
 * The all-in-one mode (`bun run start`): API, scheduler, a cloud worker for the local region, ingest
 * and alerting (with the mail outbox), and the billing jobs (in the scheduler leader), in one process sharing one database pool and one bus. With no
 * configuration that is the embedded PostgreSQL and the in-process bus; DATABASE_URL and NATS_URL
 * switch either to a real server. Every role's variables apply as in the scaled mode.
 */
export async function runAllInOne(input: Record<string, string | undefined>) {
  const env = allInOneEnv(input);
  const apiConfig = loadApiConfig(env);
  const publicBaseUrl = apiConfig.PUBLIC_BASE_URL ?? `http://${apiConfig.HOST.includes(":") ? `[${apiConfig.HOST}]` : apiConfig.HOST}:${apiConfig.PORT}`;
  const alertingConfig = loadAlertingConfig({ ...env, PUBLIC_BASE_URL: publicBaseUrl });
  const schedulerConfig = loadSchedulerConfig(env);
  const workerConfig = loadWorkerConfig({ ...env, REGION: apiConfig.REGIONS.split(",")[0] });
  const { CHECK_THREADS, CHECK_THREADS_CPU_PROF } = loadAllInOneConfig(env);

  const log = createLogger({ level: apiConfig.LOG_LEVEL, format: apiConfig.LOG_FORMAT, name: "watchpost" });
  // Signals are taken from here on: one during the start waits for it, then stops everything in order.
  const started = shutdownOnSignal(log);
  const db = await openDatabase(apiConfig, log, { migrate: true, poolSize: 30, movablePort: !input.EMBEDDED_PG_PORT });
  // A role that fails to start ends the process; the embedded PostgreSQL is a child that would outlive it.
  const abort = async (err: unknown): Promise<never> => {
    await db.close().catch(() => {});
    throw err;
  };
  const secretKey = loadSecretKey(apiConfig.SECRET_KEY, apiConfig.DATA_DIR);
  const box = new SecretBox(secretKey, previousSecretKeys(apiConfig.SECRET_KEY_PREVIOUS));
  const bus = await createBus({ natsUrl: apiConfig.NATS_URL, replicas: apiConfig.NATS_REPLICAS, prefix: apiConfig.NATS_PREFIX, log }).catch(abort);
  const metrics = createMetrics("all-in-one");
  // Both result durables exist before anything publishes (the in-process bus drops a result once every
  // durable has taken it; one created later would miss results published before it).
  await bus.ensureTopology({ resultDurables: [{ name: INGEST_DURABLE }, { name: ALERTING_DURABLE }] }).catch(abort);
  // Results the in-process bus still held at the last shutdown (stored in DATA_DIR then) go back before anything publishes.
  if (canSpillResults(bus)) restoreSpilledResults(bus, apiConfig.DATA_DIR, log);

  // Unless BILLING_SIM_PORT is set, a taken simulator port is replaced by a free one remembered in DATA_DIR.
  const sim = await maybeStartSimulator(apiConfig, db.sql, log, { movableIn: input.BILLING_SIM_PORT ? undefined : apiConfig.DATA_DIR }).catch(abort);
  // The local region's worker runs every check, run-now included (the API runs none).
  const browsers = await startBrowserPool(workerConfig, log).catch(abort);
  const workerOptions = {
    region: workerConfig.REGION,
    concurrency: workerConfig.CONCURRENCY,
    allowPrivate: apiConfig.ALLOW_PRIVATE_IPS,
    ipv6: apiConfig.IPV6_EGRESS,
    ackWaitMs: workerConfig.JOB_ACK_WAIT_MS,
    heartbeatMs: workerConfig.HEARTBEAT_INTERVAL_MS,
    shutdownGraceMs: workerConfig.SHUTDOWN_GRACE_MS,
    version: pkg.version,
  };
  // CHECK_THREADS > 0: the region's checks run in worker threads (the other cores), started before the API answers
  // /readyz (a thread takes a moment to load). Browser checks, when BROWSERS is set, stay with a worker on the main
  // thread, which owns the browser pool (and takes a share of the other checks).
  const threads =
    CHECK_THREADS > 0
      ? await startWorkerThreads({
          ...workerOptions,
          threads: CHECK_THREADS,
          bus,
          nats: apiConfig.NATS_URL ? { url: apiConfig.NATS_URL, replicas: apiConfig.NATS_REPLICAS, prefix: apiConfig.NATS_PREFIX } : undefined,
          log,
          logLevel: apiConfig.LOG_LEVEL,
          registry: metrics.registry,
          metricLabels: { role: "all-in-one" },
          secretKey,
          previousKeys: previousSecretKeys(apiConfig.SECRET_KEY_PREVIOUS),
          workerId: workerConfig.WORKER_ID,
          cpuProfDir: CHECK_THREADS_CPU_PROF,
        }).catch(abort)
      : null;
  const mainWorker =
    CHECK_THREADS === 0 || browsers
      ? await startWorker({ ...workerOptions, bus, box, log, workerId: workerConfig.WORKER_ID, registry: metrics.registry, browsers }).catch(async (err) => {
          await threads?.stop();
          return abort(err);
        })
      : null;
  const worker = { stop: async () => void (await Promise.all([mainWorker?.stop(), threads?.stop()])) };
  const apiDeps = buildApiDeps({ sql: db.sql, config: sim.config, log, secretKey, bus });
  apiDeps.billingClock = sim.now;
  const api = await startApiServer(apiDeps, { metrics }).catch(listenError("PORT", apiConfig.PORT)).catch(abort);
  sim.attach(api.url);
  // The API runs in this process: until it listened, no runner heartbeat or heartbeat ping could reach the
  // database, so the judges of silence (placement, sweeps) count nothing before now (docs/runners.md, docs/monitors.md).
  const blind = new BlindTime({ blindBeforeStart: true });
  // A request that found the database unreachable (a ping refused with 503) is a stretch they could not see either.
  apiDeps.databaseUnreachable.add(() => blind.failed());
  const alerting = await startAlertingRole({ config: alertingConfig, sql: db.sql, bus, box, log, registry: metrics.registry, blind }).catch(abort);
  const scheduler = await startScheduler({
    sql: db.sql,
    databaseUrl: db.url,
    bus,
    log,
    registry: metrics.registry,
    backfillSeconds: schedulerConfig.SCHEDULER_BACKFILL_SECONDS,
    lockRetryMs: schedulerConfig.SCHEDULER_LOCK_RETRY_MS,
    queueSeconds: schedulerConfig.SCHEDULER_QUEUE_SECONDS,
    tickMs: schedulerConfig.SCHEDULER_TICK_MS,
    // Results wait in this process's heap until ingest and alerting have both taken them: their backlog holds publishing back too.
    resultDurables: canSpillResults(bus) ? [INGEST_DURABLE, ALERTING_DURABLE] : [],
    // PostgreSQL most often shares this machine's cores with the checks (embedded, or beside it): the rollup closer's
    // minute step waits while checks wait to start.
    closerYieldsToChecks: true,
    // The leader's billing jobs, with the API's provider (Paddle, the in-process simulator with BILLING=simulator, or none when self-hosted) and its clock.
    billing: { provider: providerFromConfig(sim.config), now: sim.now },
    blind,
  }).catch(abort);
  if (!apiConfig.BILLING) {
    const reach = apiConfig.ALLOW_PRIVATE_IPS ? "the local region may reach private addresses" : "private addresses refused (ALLOW_PRIVATE_IPS=false)";
    const signup = signupOpen(apiConfig) ? "sign-up open to anyone who reaches it (SIGNUP_OPEN=true)" : "sign-up closed: people join by invitation (SIGNUP_OPEN=true opens it)";
    const v6 = apiConfig.IPV6_EGRESS ? "IPv6 targets checked" : "IPv6 targets refused (IPV6_EGRESS=false)";
    log.info(
      { op: "all-in-one.self-hosted", allowPrivate: apiConfig.ALLOW_PRIVATE_IPS, ipv6: apiConfig.IPV6_EGRESS, signupOpen: signupOpen(apiConfig) },
      `self-hosted: one unlimited plan; ${reach}; ${v6}; ${signup}`,
    );
  }
  log.info({ op: "all-in-one.start", url: api.url, region: workerConfig.REGION, embedded: db.embedded }, `Watchpost running (all-in-one) at ${api.url}`);

  // Stop taking work first, then let the running checks report, then drain results, then close.
  started([
    () => api.stop(),
    () => scheduler.stop(),
    () => worker.stop(),
    // The in-process bus holds results in memory only: store and evaluate what the worker published, and
    // what is still pending at the deadline goes to DATA_DIR for the next start (nothing is lost).
    async () => {
      if (canSpillResults(bus) && !(await alerting.drain())) spillUnsettledResults(bus, apiConfig.DATA_DIR, log);
    },
    async () => browsers?.close(),
    () => alerting.stop(),
    () => sim.stop(),
    () => bus.close(),
    () => db.close(),
  ]);
  return { api, db, bus, log, scheduler, worker, alerting };
}

/**
 * The all-in-one's defaults. Without a payment provider it is a self-hosted installation: BILLING=false
 * (one unlimited plan) and ALLOW_PRIVATE_IPS=true and IPV6_EGRESS=true for its local region (a hosted cloud
 * region is a worker of the scaled mode, which defaults to neither). The hosted setup is explicit: PADDLE_API_KEY, or
 * BILLING=simulator for the in-process payment simulator (demo and development; no real payments).
 * Explicit values always win; an empty variable counts as unset.
 */
function allInOneEnv(input: Record<string, string | undefined>): Record<string, string | undefined> {
  const set = (name: string) => (input[name]?.trim() ? input[name]!.trim() : undefined);
  const billing = set("BILLING");
  const simulator = billing?.toLowerCase() === "simulator";
  const hosted = simulator || set("PADDLE_API_KEY") !== undefined || set("BILLING_SIMULATOR") !== undefined;
  const env: Record<string, string | undefined> = {
    ...input,
    BILLING: simulator ? "true" : (billing ?? (hosted ? "true" : "false")),
    BILLING_SIMULATOR: simulator ? "true" : (set("BILLING_SIMULATOR") ?? "false"),
  };
  // Private and IPv6 targets follow the billing mode unless set: reachable when self-hosted, refused when hosted.
  const selfHosted = !loadApiConfig(env).BILLING;
  return { ...env, ALLOW_PRIVATE_IPS: set("ALLOW_PRIVATE_IPS") ?? String(selfHosted), IPV6_EGRESS: set("IPV6_EGRESS") ?? String(selfHosted) };
}
