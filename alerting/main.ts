import { createBus } from "../core/bus/index.ts";
import { exitOnConfigError } from "../core/config/parse-env.ts";
import { loadSecretKey, previousSecretKeys } from "../core/crypto/secret-key.ts";
import { SecretBox } from "../core/crypto/secrets.ts";
import { openDatabase } from "../db/open.ts";
import { apiTierWatch } from "../domain/runners/api-tier.ts";
import { BlindTime } from "../core/process/blind-time.ts";
import { createLogger } from "../core/log.ts";
import { createMetrics } from "../core/metrics.ts";
import { startMetricsServer } from "../core/process/metrics-server.ts";
import { shutdownOnSignal } from "../core/process/lifecycle.ts";
import { loadAlertingConfig } from "./config.ts";
import { startAlertingRole } from "./role.ts";

export { startAlerting } from "./runtime/start.ts";

/** `bun run alerting`: ingest and alerting alone (scaled mode); several may run against one database and bus. */
export async function runAlerting(env: Record<string, string | undefined>) {
  const config = loadAlertingConfig(env);
  const log = createLogger({ level: config.LOG_LEVEL, format: config.LOG_FORMAT, name: "alerting" });
  const started = shutdownOnSignal(log);
  const db = await openDatabase(config, log, { migrate: true, poolSize: 10 });
  const box = new SecretBox(loadSecretKey(config.SECRET_KEY, config.DATA_DIR), previousSecretKeys(config.SECRET_KEY_PREVIOUS));
  const bus = await createBus({ natsUrl: config.NATS_URL, replicas: config.NATS_REPLICAS, log, prefix: config.NATS_PREFIX });
  const metrics = createMetrics("alerting");
  // Pings and runner heartbeats arrive through the API processes: while none was up, silence is no evidence.
  const blind = new BlindTime({ elsewhere: apiTierWatch(db.sql, log) });
  const role = await startAlertingRole({
    blind,
    config,
    sql: db.sql,
    bus,
    box,
    log,
    registry: metrics.registry,
    options: config.ALERTING_TEST_CRASH_BEFORE_SEND ? { beforeSend: () => process.kill(process.pid, "SIGKILL") } : {},
  });
  const server = config.METRICS_PORT === undefined ? null : startMetricsServer({ host: config.METRICS_HOST, port: config.METRICS_PORT, registry: metrics.registry, healthy: () => true });
  started([() => role.stop(), async () => server?.stop(), () => bus.close(), () => db.close()]);
  return role;
}

if (import.meta.main) await runAlerting(process.env).catch(exitOnConfigError);
