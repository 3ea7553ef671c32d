import type { BusOptions, QueueSettings } from "./types.ts";

const JOB_DEFAULTS: QueueSettings = {
  ackWaitMs: 60_000,
  maxDeliveries: 5,
  duplicateWindowMs: 120_000,
  // A check job older than this is stale; the scheduler will have planned a newer one.
  maxAgeMs: 3_600_000,
};

const RESULT_DEFAULTS: QueueSettings = {
  ackWaitMs: 30_000,
  // Ingest must not drop results while the database is down; poison results are term()ed by the handler.
  maxDeliveries: 0,
  duplicateWindowMs: 120_000,
  maxAgeMs: 86_400_000,
};

/** Names and settings both buses derive from `BusOptions`. */
export interface Topology {
  prefix: string;
  jobsStream: string;
  resultsStream: string;
  jobs: QueueSettings;
  results: QueueSettings;
}

export function resolveTopology(opts: BusOptions): Topology {
  const prefix = opts.prefix ?? "";
  if (prefix && !/^[A-Za-z0-9_-]+$/.test(prefix)) throw new Error(`invalid bus prefix "${prefix}"`);
  return {
    prefix,
    jobsStream: `${prefix}JOBS`,
    resultsStream: `${prefix}RESULTS`,
    jobs: { ...JOB_DEFAULTS, ...opts.jobs },
    results: { ...RESULT_DEFAULTS, ...opts.results },
  };
}

/** Exponential redelivery delay after a handler threw: 1 s, 2 s, 4 s … capped at 30 s. */
export function retryDelayMs(deliveryCount: number): number {
  return Math.min(30_000, 1000 * 2 ** Math.max(0, deliveryCount - 1));
}

export function assertCount(name: string, n: number): void {
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got ${n}`);
}

export function assertMessageId(message: { id: string }): void {
  if (typeof message?.id !== "string" || message.id === "") throw new Error("a job or result needs a non-empty string id");
}
