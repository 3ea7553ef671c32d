import { Type, type Static } from "@sinclair/typebox";
import { type LocationType, RESULT_STATUSES } from "../../db/queries/result-rows.ts";

// The row types live with the queries that read them (db/ imports no domain); re-exported here for the domain's users.
export { RESULT_STATUSES };
export type { CheckResultRow, LocationType, ResultCounts, ResultStatus } from "../../db/queries/result-rows.ts";

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
