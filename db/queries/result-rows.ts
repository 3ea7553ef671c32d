export const RESULT_STATUSES = ["up", "down", "degraded", "timeout", "unavailable"] as const;
/** 'unavailable' is monitoring_unavailable: no region or runner could run the check (a gap, not downtime). */
export type ResultStatus = (typeof RESULT_STATUSES)[number];
export type LocationType = "region" | "runner";

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
