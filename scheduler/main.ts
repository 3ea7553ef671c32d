import { createBus } from "../core/bus/index.ts";
import { exitOnConfigError } from "../core/config/parse-env.ts";
import { openDatabase } from "../db/open.ts";
import { apiTierWatch } from "../domain/runners/api-tier.ts";
import { BlindTime } from "../core/process/blind-time.ts";
import { createLogger } from "../core/log.ts";
import { createMetrics } from "../core/metrics.ts";
import { startMetricsServer } from "../core/process/metrics-server.ts";
import { shutdownOnSignal } from "../core/process/lifecycle.ts";
import { loadSchedulerConfig } from "./config.ts";
import { billingOptionsOf } from "./billing-jobs.ts";
import { startScheduler } from "./start.ts";

/** `bun run scheduler`: the scheduler role (leader-elected; extra instances wait as standbys). */
export async function runScheduler(env: Record<string, string | undefined>) {
  const config = loadSchedulerConfig(env);
  const log = createLogger({ level: config.LOG_LEVEL, format: config.LOG_FORMAT, name: "scheduler" });
  const started = shutdownOnSignal(log);
  const db = await openDatabase(config, log, { migrate: true, poolSize: 5 });
  const bus = await createBus({ natsUrl: config.NATS_URL, replicas: config.NATS_REPLICAS, prefix: config.NATS_PREFIX, log });
  const metrics = createMetrics("scheduler");
  // Pings and runner heartbeats arrive through the API processes: while none was up, silence is no evidence.
  const blind = new BlindTime({ elsewhere: apiTierWatch(db.sql, log) });
  const scheduler = await startScheduler({
    blind,
    sql: db.sql,
    databaseUrl: db.url,
    bus,
    log,
    registry: metrics.registry,
    backfillSeconds: config.SCHEDULER_BACKFILL_SECONDS,
    lockRetryMs: config.SCHEDULER_LOCK_RETRY_MS,
    queueSeconds: config.SCHEDULER_QUEUE_SECONDS,
    tickMs: config.SCHEDULER_TICK_MS,
    billing: billingOptionsOf(config),
  });
  const server = config.METRICS_PORT === undefined ? null : startMetricsServer({ host: config.METRICS_HOST, port: config.METRICS_PORT, registry: metrics.registry, healthy: () => true });
  started([() => scheduler.stop(), async () => server?.stop(), () => bus.close(), () => db.close()]);
  return { scheduler, bus, db, log };
}

if (import.meta.main) await runScheduler(process.env).catch(exitOnConfigError);
