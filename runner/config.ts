import { type Static, Type } from "@sinclair/typebox";
import { commonEnv } from "../core/config/common.ts";
import { checkExtraCaCerts, extraCaEnv } from "../core/config/extra-ca.ts";
import { ConfigError, EnvBool, parseEnv } from "../core/config/parse-env.ts";

/** The self-hosted runner's environment: the spec's table, and the extra CAs it trusts (docs/runners.md). */
export const runnerEnv = Type.Object({
  SERVICE_API_URL: Type.String({ minLength: 1, description: "API endpoint, e.g. https://watchpost.example.com; must be https://, plain http is refused" }),
  SERVICE_TOKEN: Type.String({ pattern: "^rt_[A-Za-z0-9_-]+$", description: "runner token from POST /runners; must start with rt_" }),
  RUNNER_NAME: Type.String({ minLength: 1, maxLength: 200, default: "service-runner", description: "display name in the dashboard" }),
  RUNNER_REGION: Type.String({ minLength: 1, maxLength: 200, default: "unknown", description: "free-form location label shown with results" }),
  RUNNER_MODE: Type.Union([Type.Literal("persistent"), Type.Literal("managed")], {
    default: "persistent",
    description: "persistent for self-hosted runners; managed is the provider's cloud workers (bun run worker), not this process",
  }),
  POLL_INTERVAL_MS: Type.Integer({ minimum: 1000, default: 5000, description: "job poll interval in ms, at least 1000" }),
  HEARTBEAT_INTERVAL_MS: Type.Integer({ minimum: 5000, default: 30000, description: "liveness report interval in ms, at least 5000" }),
  CONCURRENCY: Type.Integer({ minimum: 1, maximum: 100, default: 10, description: "max parallel checks, 1 to 100" }),
  BROWSERS: Type.Union([Type.Literal("none"), Type.Literal("chromium"), Type.Literal("firefox"), Type.Literal("webkit"), Type.Literal("all")], {
    default: "none",
    description: "none, chromium, firefox, webkit or all; must match an image variant that ships the engine",
  }),
  BROWSER_POOL_SIZE: Type.Integer({ minimum: 1, maximum: 20, default: 2, description: "warm browser instances, 1 to 20" }),
  ALLOW_PRIVATE_IPS: EnvBool(false, "allow checks against private, loopback and link-local addresses"),
  LOG_LEVEL: commonEnv.LOG_LEVEL,
  LOG_FORMAT: commonEnv.LOG_FORMAT,
  ALLOW_UNENCRYPTED_SESSION: EnvBool(false, "opt out of payload encryption; local development only"),
  ...extraCaEnv,
});

export type RunnerConfig = Static<typeof runnerEnv>;

/** Parses and checks the environment; every bad value throws a ConfigError naming the variable. */
export function loadRunnerConfig(env: Record<string, string | undefined>): RunnerConfig {
  for (const name of ["SERVICE_API_URL", "SERVICE_TOKEN"] as const) {
    if (!env[name]) throw new ConfigError(`Missing environment variable ${name} (${runnerEnv.properties[name].description})`);
  }
  // TypeBox's conversion would truncate "2.5" to 2; an integer variable must be written as one.
  for (const [name, prop] of Object.entries(runnerEnv.properties)) {
    const value = env[name];
    if ((prop as { type?: string }).type === "integer" && value && !/^\s*\d+\s*$/.test(value)) {
      throw new ConfigError(`Invalid environment variable ${name}=${JSON.stringify(value)}: expected a whole number (${(prop as { description?: string }).description})`);
    }
  }
  const config = parseEnv(runnerEnv, env);
  let url: URL;
  try {
    url = new URL(config.SERVICE_API_URL);
  } catch {
    throw new ConfigError(`Invalid environment variable SERVICE_API_URL=${JSON.stringify(config.SERVICE_API_URL)}: not a URL`);
  }
  if (url.protocol === "http:") throw new ConfigError(`Invalid environment variable SERVICE_API_URL=${JSON.stringify(config.SERVICE_API_URL)}: plain HTTP is refused; use https://`);
  if (url.protocol !== "https:") throw new ConfigError(`Invalid environment variable SERVICE_API_URL=${JSON.stringify(config.SERVICE_API_URL)}: must be an https:// URL`);
  if (config.RUNNER_MODE === "managed") {
    throw new ConfigError("Invalid environment variable RUNNER_MODE=\"managed\": managed is the provider's cloud workers (bun run worker); a self-hosted runner runs persistent");
  }
  checkExtraCaCerts(config);
  return config;
}

/** Browser engines the runner offers, from BROWSERS. */
export function browserEngines(setting: RunnerConfig["BROWSERS"]): ("chromium" | "firefox" | "webkit")[] {
  if (setting === "none") return [];
  return setting === "all" ? ["chromium", "firefox", "webkit"] : [setting];
}
