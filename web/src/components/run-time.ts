/**
 * How long a result took, as the screens show it. A heartbeat's duration is its job's run, timed only from a
 * start ping: a missed deadline and a ping without a start are stored with duration 0
 * (domain/monitors/heartbeat.ts), which is no run time at all.
 */

interface Timed {
  status: string;
  duration_ms: number | string | null;
  error?: string | null;
  /** The result's data, when the screen has it (the checks list does; the alert timeline does not). */
  data?: Record<string, unknown> | null;
}

/** The sweep's errors for a missed deadline: "no ping since …", "no ping received yet", or the could-not-receive one. */
const MISS_ERROR = /^no ping (since|received yet)|could not receive pings/;

/** A heartbeat deadline that passed without a ping: data.signal "missed", or (without data) duration 0 and the sweep's error. */
export function isMissedRun(r: Timed): boolean {
  if (r.data && "signal" in r.data) return r.data.signal === "missed";
  return r.status !== "up" && Number(r.duration_ms) === 0 && MISS_ERROR.test(r.error ?? "");
}

/** Whether a heartbeat result timed a run (a start ping came before it); others always have a duration. */
export function hasRunTime(type: string, r: Timed): boolean {
  if (type !== "heartbeat" || r.duration_ms == null) return r.duration_ms != null;
  if (isMissedRun(r)) return false;
  return r.data && "run_duration_ms" in r.data ? r.data.run_duration_ms != null : Number(r.duration_ms) > 0;
}

/** "182 ms"; for a heartbeat "missed run" when no ping came and "—" when the run was not timed. */
export function fmtRunTime(type: string, r: Timed): string {
  if (type === "heartbeat" && isMissedRun(r)) return "missed run";
  return hasRunTime(type, r) ? `${Math.round(Number(r.duration_ms))} ms` : "—";
}
