import { createBus } from "../core/bus/index.ts";
import { exitOnConfigError } from "../core/config/parse-env.ts";
import { loadSecretKey } from "../core/crypto/secret-key.ts";
import { SecretBox } from "../core/crypto/secrets.ts";
import { openDatabase } from "../core/db/open.ts";
import { createLogger } from "../core/log.ts";
import { onShutdown } from "../core/process/lifecycle.ts";
import { createChannelContext } from "./channels/index.ts";
import { loadAlertingConfig } from "./config.ts";
import { startAlerting } from "./runtime/start.ts";

export { startAlerting } from "./runtime/start.ts";

/** `bun run alerting`: the alerting role alone (scaled mode); several may run against one database and bus. */
export async function runAlerting(env: Record<string, string | undefined>) {
  const config = loadAlertingConfig(env);
  const log = createLogger({ level: config.LOG_LEVEL, format: config.LOG_FORMAT, name: "alerting" });
  const db = await openDatabase(config, log, { migrate: true, poolSize: 10 });
  const box = new SecretBox(loadSecretKey(config.SECRET_KEY, config.DATA_DIR));
  const bus = await createBus({ natsUrl: config.NATS_URL, log, prefix: config.NATS_PREFIX });
  await bus.ensureTopology({ resultDurables: [{ name: "alerting" }] });
  const channelCtx = createChannelContext({
    publicBaseUrl: config.PUBLIC_BASE_URL,
    allowPrivateAddresses: config.ALLOW_PRIVATE_IPS,
    timeoutMs: config.ALERTING_CHANNEL_TIMEOUT_MS,
    log,
  });
  const alerting = await startAlerting({
    sql: db.sql,
    bus,
    box,
    log,
    channelCtx,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    options: {
      pollMs: config.ALERTING_POLL_MS,
      leaseMs: config.ALERTING_LEASE_MS,
      maxAttempts: config.ALERTING_MAX_ATTEMPTS,
      retryBaseMs: config.ALERTING_RETRY_BASE_MS,
      ...(config.ALERTING_TEST_CRASH_BEFORE_SEND ? { beforeSend: () => process.kill(process.pid, "SIGKILL") } : {}),
    },
  });
  log.info({ op: "alerting.start" }, "alerting started");
  onShutdown(log, [() => alerting.stop(), () => bus.close(), () => db.close()]);
  return alerting;
}

if (import.meta.main) await runAlerting(process.env).catch(exitOnConfigError);
