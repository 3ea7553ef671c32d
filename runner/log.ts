import pino from "pino";
import pretty from "pino-pretty";
import { createLogger, type LogFormat, type Logger, type LogLevel, resolveLogFormat } from "../core/log.ts";

/**
 * The runner's logger. LOG_FORMAT=pretty formats in the main thread: pino's worker-thread
 * transport cannot find pino-pretty inside a `bun build --compile` binary.
 */
export function createRunnerLogger(level: LogLevel, format: LogFormat): Logger {
  if (resolveLogFormat(format) === "json") return createLogger({ level, format: "json", name: "runner" });
  return pino({ name: "runner", level, redact: { paths: ["token", "*.token", "headers.authorization"], censor: "[redacted]" } }, pretty({ colorize: false, sync: true }));
}
