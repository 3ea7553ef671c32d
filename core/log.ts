import pino, { type DestinationStream, type Logger } from "pino";

export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
export type LogFormat = "auto" | "json" | "pretty";
export type { Logger };

export interface LogOptions {
  level: LogLevel;
  format: LogFormat;
  name?: string;
  /** Where JSON lines go instead of stdout (tests that read the logs). */
  destination?: DestinationStream;
  /** Log to stderr, keeping stdout for a command's result (the CLI). */
  stderr?: boolean;
}

/** LOG_FORMAT=auto: pretty for a person at a terminal, JSON lines for a pipe, a file or a log collector. */
export function resolveLogFormat(format: LogFormat, stream: { isTTY?: boolean } = process.stdout): "json" | "pretty" {
  if (format !== "auto") return format;
  return stream.isTTY ? "pretty" : "json";
}

/** One pino logger per process; children carry `op` and ids. Secrets are redacted by key name. */
export function createLogger({ level, format: wanted, name, destination: given, stderr = false }: LogOptions): Logger {
  const format = resolveLogFormat(wanted, stderr ? process.stderr : process.stdout);
  const destination = given ?? (stderr && format === "json" ? pino.destination({ dest: 2, sync: true }) : undefined);
  const options = {
    name,
    level,
    redact: {
      paths: ["token", "apiKey", "password", "*.token", "*.apiKey", "*.password", "headers.authorization", "headers.cookie"],
      censor: "[redacted]",
    },
    // One line per event at a terminal (the fields after the message), the local time, no pid or host: the start line
    // with its URL stays readable among the others.
    transport:
      format === "pretty" && !destination
        ? { target: "pino-pretty", options: { colorize: false, singleLine: true, ignore: "pid,hostname", translateTime: "SYS:HH:MM:ss", destination: stderr ? 2 : 1 } }
        : undefined,
  };
  return destination ? pino(options, destination) : pino(options);
}

/** A silent logger for tests and library code that was given none. */
export const silentLogger: Logger = pino({ level: "silent" });
