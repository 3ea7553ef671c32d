/** Why the pool took a browser away from a running check. */
export type BrowserLossReason = "crashed" | "memory" | "time" | "closed";

/**
 * The pool ended a check's use of its browser: the browser (or the page's renderer) crashed,
 * the check went over the memory or time cap, or the pool is closing. The browser is recycled.
 */
export class BrowserLostError extends Error {
  override readonly name = "BrowserLostError";
  constructor(
    readonly reason: BrowserLossReason,
    message: string,
  ) {
    super(message);
  }
}
