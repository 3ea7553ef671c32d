import { exitOnConfigError } from "../core/config/parse-env.ts";
import { loadSecretKey } from "../core/crypto/secret-key.ts";
import { openDatabase } from "../db/open.ts";
import { createLogger } from "../core/log.ts";
import { createBus } from "../core/bus/index.ts";
import { shutdownOnSignal } from "../core/process/lifecycle.ts";
import { listenError } from "../core/process/listen-error.ts";
import { loadApiConfig } from "./config.ts";
import { buildApiDeps, startApiServer } from "./server.ts";
import { maybeStartSimulator } from "../billing/simulator/attach.ts";

/** `bun run api`: the API role alone (scaled mode) or, via scripts/start.ts, inside the all-in-one process. */
export async function runApi(env: Record<string, string | undefined>) {
  const config = loadApiConfig(env);
  const log = createLogger({ level: config.LOG_LEVEL, format: config.LOG_FORMAT, name: "api" });
  const started = shutdownOnSignal(log);
  const db = await openDatabase(config, log, { migrate: true, poolSize: 20 });
  // A failed start ends the process; an embedded PostgreSQL is a child that would outlive it.
  const abort = async (err: unknown): Promise<never> => {
    await db.close().catch(() => {});
    throw err;
  };
  const secretKey = loadSecretKey(config.SECRET_KEY, config.DATA_DIR);
  const bus = await createBus({ natsUrl: config.NATS_URL, replicas: config.NATS_REPLICAS, prefix: config.NATS_PREFIX, log }).catch(abort);
  const sim = await maybeStartSimulator(config, db.sql, log).catch(abort);
  const apiDeps = buildApiDeps({ sql: db.sql, config: sim.config, log, secretKey, bus });
  apiDeps.billingClock = sim.now;
  const api = await startApiServer(apiDeps).catch(listenError("PORT", config.PORT)).catch(abort);
  sim.attach(api.url);
  started([() => api.stop(), () => sim.stop(), () => bus.close(), () => db.close()]);
  return { api, db, log, bus, config, secretKey };
}

if (import.meta.main) await runApi(process.env).catch(exitOnConfigError);
