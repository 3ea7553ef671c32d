/** Exit codes of the `watchpost` CLI (docs/cli.md). */
export const EXIT = { ok: 0, error: 1, usage: 2, changes: 3 } as const;

/** A failure the CLI reports and exits on: `code` is the API's error code (or a CLI one), `exit` the process status. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly code = "CLI_ERROR",
    readonly exit: number = EXIT.error,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** Wrong use of a command (a bad argument value, a missing file): exit 2. */
export const usageError = (message: string) => new CliError(message, "USAGE", EXIT.usage);
