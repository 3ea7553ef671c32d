import { type Static, Type } from "@sinclair/typebox";

/**
 * A cloud worker's presence, published every HEARTBEAT_INTERVAL_MS on `workers.<region>.<worker>` (core
 * NATS, fire and forget). The alerting role's ingest records it in region_workers; `gone` on a clean stop
 * removes the worker at once instead of after the TTL. The worker itself never touches the database.
 */
export const WorkerBeatMessage = Type.Object(
  {
    workerId: Type.String({ minLength: 1, maxLength: 256 }),
    region: Type.String({ pattern: "^[a-z0-9-]+$", maxLength: 64 }),
    hostname: Type.String({ maxLength: 256 }),
    version: Type.String({ maxLength: 64 }),
    concurrency: Type.Integer({ minimum: 1 }),
    /** Browser engines the worker offers (BROWSERS). */
    browsers: Type.Array(Type.String({ maxLength: 32 }), { maxItems: 8 }),
    inFlight: Type.Integer({ minimum: 0 }),
    checksTotal: Type.Integer({ minimum: 0 }),
    recentP50Ms: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
    /** Start of the worker, ms since the epoch. */
    startedAt: Type.Number(),
    gone: Type.Optional(Type.Literal(true)),
  },
  { additionalProperties: false },
);
export type WorkerBeatMessage = Static<typeof WorkerBeatMessage>;

/** Every worker's beats: `workers.<region>.<worker token>`. */
export const WORKER_BEATS = "workers.*.*" as const;
/** Published by a presence recorder when it starts: every worker beats at once, so none waits a full interval to be seen. */
export const WORKER_ROLL_CALL = "workers.roll-call" as const;

/** The subject of one worker's beats; the worker's id (which may hold dots) travels in the body. */
export const workerSubject = (region: string, workerId: string) => `workers.${region}.${workerId.replace(/[^A-Za-z0-9_:/-]/g, "_")}` as const;
