import { Type, type Static } from "@sinclair/typebox";

export const RESULT_STATUSES = ["up", "down", "degraded", "timeout", "unavailable"] as const;
/** 'unavailable' is monitoring_unavailable: no region or runner could run the check (a gap, not downtime). */
export type ResultStatus = (typeof RESULT_STATUSES)[number];
export type LocationType = "region" | "runner";

/** Runner ids are `run_…`; region names are lower-case letters, digits and dashes, so they never match. */
export const locationTypeOf = (location: string): LocationType => (location.startsWith("run_") ? "runner" : "region");

/** One check result as it arrives from a worker or runner (validate bus payloads with this). */
export const CheckResultInputSchema = Type.Object({
  job_id: Type.String({ minLength: 1, maxLength: 200 }),
  org_id: Type.String({ minLength: 1 }),
  monitor_id: Type.String({ minLength: 1 }),
  location: Type.String({ minLength: 1, maxLength: 200 }),
  location_type: Type.Union([Type.Literal("region"), Type.Literal("runner")]),
  scheduled_at: Type.Union([Type.String({ format: "date-time" }), Type.Date()]),
  checked_at: Type.Union([Type.String({ format: "date-time" }), Type.Date()]),
  status: Type.Union(RESULT_STATUSES.map((s) => Type.Literal(s))),
  duration_ms: Type.Number({ minimum: 0 }),
  error: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
export type CheckResultInput = Static<typeof CheckResultInputSchema>;

/** A stored result as the API shows it; `id` is `chk_` + 32 hex digits. */
export interface CheckResultRow {
  id: string;
  job_id: string;
  monitor_id: string;
  location: string;
  location_type: LocationType;
  scheduled_at: Date;
  checked_at: Date;
  status: ResultStatus;
  duration_ms: number;
  error: string | null;
  data: Record<string, unknown>;
}

/** Counts and duration figures of a set of results: one rollup row, or the sum of several. */
export interface ResultCounts {
  total: number;
  up: number;
  down: number;
  degraded: number;
  timeout: number;
  unavailable: number;
  /** Sum and max of duration_ms over executed checks (every status but 'unavailable'). */
  duration_sum: number;
  duration_max: number | null;
  hist: number[] | null;
}
