import { createBus } from "../../core/bus/index.ts";
import { exitOnConfigError } from "../../core/config/parse-env.ts";
import { loadSecretKey, previousSecretKeys } from "../../core/crypto/secret-key.ts";
import { SecretBox } from "../../core/crypto/secrets.ts";
import { createLogger } from "../../core/log.ts";
import { createMetrics } from "../../core/metrics.ts";
import { startMetricsServer } from "../../core/process/metrics-server.ts";
import { shutdownOnSignal } from "../../core/process/lifecycle.ts";
import pkg from "../../package.json" with { type: "json" };
import { startBrowserPool } from "../checks/browser/browser-env.ts";
import { loadWorkerConfig } from "./config.ts";
import { startWorker } from "./worker.ts";

/** `bun run worker --region <r>`: a cloud worker of one region (scaled mode). It needs NATS, not the database. */
export async function runWorker(env: Record<string, string | undefined>, argv: string[]) {
  const config = loadWorkerConfig(env, argv);
  const log = createLogger({ level: config.LOG_LEVEL, format: config.LOG_FORMAT, name: "worker" });
  const started = shutdownOnSignal(log);
  const bus = await createBus({ natsUrl: config.NATS_URL, replicas: config.NATS_REPLICAS, prefix: config.NATS_PREFIX, log });
  const metrics = createMetrics("worker");
  // BROWSERS naming an engine that is not installed stops the worker here, naming it.
  const browsers = await startBrowserPool(config, log);
  const worker = await startWorker({
    bus,
    box: new SecretBox(loadSecretKey(config.SECRET_KEY, config.DATA_DIR), previousSecretKeys(config.SECRET_KEY_PREVIOUS)),
    log,
    region: config.REGION,
    concurrency: config.CONCURRENCY,
    allowPrivate: config.ALLOW_PRIVATE_IPS,
    ipv6: config.IPV6_EGRESS,
    ackWaitMs: config.JOB_ACK_WAIT_MS,
    heartbeatMs: config.HEARTBEAT_INTERVAL_MS,
    shutdownGraceMs: config.SHUTDOWN_GRACE_MS,
    workerId: config.WORKER_ID,
    version: pkg.version,
    registry: metrics.registry,
    browsers,
  });
  const server = config.METRICS_PORT === undefined ? null : startMetricsServer({ host: config.METRICS_HOST, port: config.METRICS_PORT, registry: metrics.registry, healthy: () => true });
  started([() => worker.stop(), async () => browsers?.close(), async () => server?.stop(), () => bus.close()]);
  return { worker, bus, log };
}

if (import.meta.main) await runWorker(process.env, process.argv.slice(2)).catch(exitOnConfigError);
