import type { Logger } from "../core/log.ts";

/**
 * Whether the API answers, logged once per change: a runner retries every few seconds while the API is away, and a
 * line per retry buried the one that mattered. The retries themselves are at debug.
 */
export class ApiReachability {
  private downSince: number | null = null;
  private failures = 0;
  private readonly now: () => number;

  constructor(private readonly o: { log: Logger; server: string; retryMs: number; now?: () => number }) {
    this.now = o.now ?? Date.now;
  }

  get reachable(): boolean {
    return this.downSince === null;
  }

  /** A call got no answer from the API: no connection, TLS failed, its deadline passed, or a proxy's 502/503/504. */
  failed(reason: string): void {
    this.failures++;
    const fields = { op: "runner.api", server: this.o.server, reason };
    if (this.downSince !== null) {
      this.o.log.debug({ ...fields, failedCalls: this.failures }, "API still unreachable; retrying");
      return;
    }
    this.downSince = this.now();
    this.o.log.warn(fields, `API unreachable at ${this.o.server} (${reason}); retrying every ${Math.round(this.o.retryMs / 1000)} s until it answers`);
  }

  /** A call was answered (whatever the answer). */
  answered(): void {
    if (this.downSince === null) return;
    const downForMs = this.now() - this.downSince;
    this.o.log.info({ op: "runner.api", server: this.o.server, downForMs, failedCalls: this.failures }, `API reachable again at ${this.o.server} after ${Math.round(downForMs / 1000)} s`);
    this.downSince = null;
    this.failures = 0;
  }
}
