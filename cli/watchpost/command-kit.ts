import { type Command, InvalidArgumentError } from "commander";
import { type ApiClient, apiClient, resolveConnection } from "./client.ts";
import { CliError, EXIT } from "./errors.ts";
import { createOutput, type Output } from "./output.ts";

export interface Run {
  o: Output;
  opts: Record<string, unknown>;
  /** The API client, built on first use (commands that only read files need no login). */
  client(): ApiClient;
  /** Sets the process exit code (3 for a plan with changes under --detailed-exitcode). */
  exit(code: number): void;
}

/** Wraps a command's action: parsed options (with --json), output, client, and CliError → message + exit code. */
export function action<A extends unknown[]>(fn: (run: Run, ...args: A) => Promise<void>) {
  return async (...raw: unknown[]) => {
    const cmd = raw[raw.length - 1] as Command;
    const opts = cmd.optsWithGlobals() as Record<string, unknown>;
    const o = createOutput(Boolean(opts.json));
    let client: ApiClient | null = null;
    const run: Run = {
      o,
      opts,
      client: () => (client ??= apiClient(resolveConnection())),
      exit: (code) => {
        process.exitCode = code;
      },
    };
    try {
      await fn(run, ...(raw.slice(0, -2) as A));
    } catch (err) {
      reportError(o, err);
    }
  };
}

function reportError(o: Output, err: unknown) {
  const e =
    err instanceof CliError
      ? err
      : new CliError(err instanceof Error && /fetch|connect|ECONNREFUSED|Unable to connect/i.test(err.message) ? `Cannot reach the API: ${err.message}` : String((err as Error)?.message ?? err), "CLI_ERROR");
  if (o.json) o.err(JSON.stringify({ error: e.message, code: e.code, details: e.details }));
  else {
    const issues = (e.details.issues ?? []) as { path: string; message: string }[];
    o.err(`error: ${e.message}${e.code && !["CLI_ERROR", "USAGE"].includes(e.code) ? ` (${e.code})` : ""}${issues.map((i) => `\n  ${i.path ? `${i.path}: ` : ""}${i.message}`).join("")}`);
  }
  process.exitCode = e.exit || EXIT.error;
}

/** An integer option within bounds, else a usage error. */
export function intOption(name: string, min: number, max: number) {
  return (value: string) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`must be an integer from ${min} to ${max}`);
    return n;
  };
}
