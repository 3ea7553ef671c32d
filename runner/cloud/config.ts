import { type Static, Type } from "@sinclair/typebox";
import { commonEnv, metricsEnv } from "../../core/config/common.ts";
import { checkExtraCaCerts, extraCaEnv } from "../../core/config/extra-ca.ts";
import { ConfigError, EnvBool, parseEnv } from "../../core/config/parse-env.ts";
import { browserEnv } from "../checks/browser/browser-env.ts";

// The worker speaks only on the bus (ingest stores its results, screenshots and presence): no database variables.
const { DATABASE_URL: _database, EMBEDDED_PG_PORT: _embedded, ...busEnv } = commonEnv;

export const workerEnv = Type.Object({
  ...busEnv,
  REGION: Type.Optional(Type.String({ pattern: "^[a-z0-9-]+$", maxLength: 64, description: "cloud region this worker serves (also --region); lower-case letters, digits and -" })),
  CONCURRENCY: Type.Integer({ minimum: 1, maximum: 1000, default: 200, description: "checks run at once, 1-1000" }),
  ALLOW_PRIVATE_IPS: EnvBool(false, "let checks reach private, loopback and link-local addresses; only for the all-in-one local region"),
  IPV6_EGRESS: EnvBool(false, "let checks contact IPv6 targets (this machine has IPv6 routes); off in hosted cloud regions, which are IPv4 only"),
  HEARTBEAT_INTERVAL_MS: Type.Integer({ minimum: 1000, maximum: 60_000, default: 5000, description: "how often the worker reports itself alive, 1000-60000 ms" }),
  JOB_ACK_WAIT_MS: Type.Integer({
    minimum: 1000,
    maximum: 600_000,
    default: 30_000,
    description: "a job claimed by a worker that stops answering is redelivered after this long, 1000-600000 ms",
  }),
  SHUTDOWN_GRACE_MS: Type.Integer({ minimum: 0, maximum: 600_000, default: 30_000, description: "on SIGTERM, how long running checks may finish before they are handed back, 0-600000 ms" }),
  ...browserEnv,
  ...extraCaEnv,
  WORKER_ID: Type.Optional(Type.String({ pattern: "^[A-Za-z0-9_.:/-]+$", maxLength: 128, description: "stable name of this worker; default host/pid" })),
  ...metricsEnv,
});

export type WorkerConfig = Static<typeof workerEnv> & { REGION: string };

/** Environment plus `--region <r>` (or `--region=<r>`) from the command line, which wins. */
export function loadWorkerConfig(env: Record<string, string | undefined>, argv: string[] = []): WorkerConfig {
  const i = argv.findIndex((a) => a === "--region" || a.startsWith("--region="));
  const fromArgs = i < 0 ? undefined : argv[i]!.includes("=") ? argv[i]!.slice("--region=".length) : argv[i + 1];
  if (i >= 0 && !fromArgs) throw new ConfigError("--region needs a value, e.g. --region eu-west");
  const config = parseEnv(workerEnv, fromArgs ? { ...env, REGION: fromArgs } : env);
  if (!config.REGION) throw new ConfigError("Missing REGION: give the region this worker serves with --region <name> or REGION");
  checkExtraCaCerts(config);
  return config as WorkerConfig;
}
