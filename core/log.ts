import pino, { type Logger } from "pino";

export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
export type LogFormat = "json" | "pretty";
export type { Logger };

export interface LogOptions {
  level: LogLevel;
  format: LogFormat;
  name?: string;
}

/** One pino logger per process; children carry `op` and ids. Secrets are redacted by key name. */
export function createLogger({ level, format, name }: LogOptions): Logger {
  return pino({
    name,
    level,
    redact: {
      paths: ["token", "apiKey", "password", "*.token", "*.apiKey", "*.password", "headers.authorization", "headers.cookie"],
      censor: "[redacted]",
    },
    transport: format === "pretty" ? { target: "pino-pretty", options: { colorize: false } } : undefined,
  });
}

/** A silent logger for tests and library code that was given none. */
export const silentLogger: Logger = pino({ level: "silent" });
