/** The errors the check engine rejects with (runner/checks/types.ts re-exports them). */

/** The caller aborted the check (runner shutdown); there is no result to record. */
export class CheckAbortedError extends Error {
  override readonly name = "CheckAbortedError";
  constructor(readonly type: string) {
    super(`${type} check aborted by the caller`);
  }
}

/** The job cannot run as given (unknown type, invalid config). Permanent: retrying gives the same answer. */
export class InvalidCheckJobError extends Error {
  override readonly name = "InvalidCheckJobError";
  readonly permanent = true;
  constructor(
    message: string,
    readonly issues: string[] = [],
  ) {
    super(message);
  }
}

/**
 * The check could not run here through no fault of its target (no browser of the engine on this
 * runner, none free before the deadline). Executors record it `unavailable`: a gap, not downtime.
 */
export class CheckUnavailableError extends Error {
  override readonly name = "CheckUnavailableError";
  constructor(message: string) {
    super(message);
  }
}
