import pino from "pino";
import pretty from "pino-pretty";
import { createLogger, type LogFormat, type Logger, type LogLevel, resolveLogFormat } from "../core/log.ts";
import { browserEngines, type RunnerConfig } from "./config.ts";
import { RUNNER_VERSION } from "./version.ts";

/**
 * The runner's logger. LOG_FORMAT=pretty formats in the main thread: pino's worker-thread
 * transport cannot find pino-pretty inside a `bun build --compile` binary.
 */
export function createRunnerLogger(level: LogLevel, format: LogFormat): Logger {
  if (resolveLogFormat(format) === "json") return createLogger({ level, format: "json", name: "runner" });
  return pino({ name: "runner", level, redact: { paths: ["token", "*.token", "headers.authorization"], censor: "[redacted]" } }, pretty({ colorize: false, sync: true }));
}

/** The first line: what this runner is and where it connects, before anything can fail. */
export function logRunnerStart(log: Logger, c: RunnerConfig): void {
  const browsers = browserEngines(c.BROWSERS);
  log.info(
    { op: "runner.start", server: c.SERVICE_API_URL, runnerName: c.RUNNER_NAME, region: c.RUNNER_REGION, concurrency: c.CONCURRENCY, browsers, version: RUNNER_VERSION },
    `starting runner "${c.RUNNER_NAME}" (region ${c.RUNNER_REGION}) for ${c.SERVICE_API_URL}: concurrency ${c.CONCURRENCY}, browsers ${browsers.join(", ") || "none"}, version ${RUNNER_VERSION}`,
  );
}
