import type { Bus } from "../../core/bus/index.ts";
import { hashToken } from "../../core/crypto/secrets.ts";
import { type Sql, withTx } from "../../db/client.ts";
import { notFound } from "../../core/errors.ts";
import { type CheckResultMessage, resultMessage, resultSubject } from "../../schemas/messages/check-messages.ts";
import { deadlineAfter, type HeartbeatTiming, missedDeadlines } from "../../schemas/heartbeat/schedule.ts";
import { type BlindSpan, FULL_VIEW } from "../../core/process/blind-time.ts";
import { HEARTBEAT_LOCATION } from "./locations.ts";
import { advanceDeadline, heartbeatConfigs, type HeartbeatMonitorRow, lockHeartbeatByToken, overdueHeartbeats, recordPing, recordStart, setHeartbeatDeadline } from "../../db/queries/heartbeats.ts";

const TOKEN_PATTERN = /^hb_[A-Za-z0-9_-]{32}$/;
/** At most this many missed runs are recorded per monitor and sweep (older ones are a known gap). */
const MAX_MISSES_PER_SWEEP = 10;
/** The error of a missed deadline whose pings may have been refused (`sweepHeartbeats`). */
const UNSEEN_ERROR = "Watchpost could not receive pings for part of this run's window (it was down or restarting, or its database was unreachable)";
/** A fail ping's error is the first line of its body, cut to this length (the whole body is in data.body). */
const ERROR_CHARS = 500;

/** What a ping says: the job succeeded, started, or failed. */
export type PingSignal = "success" | "start" | "fail";
/** The highest exit status a process can report (POSIX keeps 8 bits). */
export const MAX_EXIT_STATUS = 255;

/** A ping's meaning: a named signal, or the job's exit status (`/heartbeat/:token/:exit_status`: 0 is success, any other a failure). */
export type Ping = PingSignal | { exitStatus: number };

/** A ping's request body as kept: its first bytes as text, and whether there was more. */
export interface PingBody {
  text: string;
  truncated: boolean;
}

type ResultData = CheckResultMessage["data"];
const timingOf = (m: Pick<HeartbeatMonitorRow, "config">) => m.config as HeartbeatTiming;
const dateOrNull = (ms: number | null) => (ms === null ? null : new Date(ms));

function result(m: Pick<HeartbeatMonitorRow, "id" | "org_id">, id: string, at: number, outcome: { status: "up" | "down" | "unavailable"; error: string | null; duration: number; data: ResultData }): CheckResultMessage {
  return resultMessage(
    { id, org_id: m.org_id, monitor_id: m.id, location: HEARTBEAT_LOCATION, location_type: "region", due_at: at },
    { checked_at: at, status: outcome.status, duration_ms: outcome.duration, error: outcome.error, data: outcome.data },
  );
}

const emptyData = (lastPingAt: Date | null): ResultData => ({
  last_ping_at: lastPingAt?.toISOString() ?? null,
  signal: null,
  run_duration_ms: null,
  body: null,
  body_truncated: null,
  start_body: null,
  exit_status: null,
});

/** A fail ping's error: what failed (a named signal, or the exit status), then the body's first non-empty line. */
function failError(body: PingBody | null, exitStatus: number | null): string {
  const what = exitStatus === null ? "the job reported a failure" : `the job exited with status ${exitStatus}`;
  const line = body?.text.split(/\r?\n/).find((l) => l.trim() !== "")?.trim();
  return line ? `${what}: ${line.slice(0, ERROR_CHARS)}` : what;
}

function signalOf(ping: Ping): { signal: PingSignal; exitStatus: number | null } {
  if (typeof ping === "string") return { signal: ping, exitStatus: null };
  return { signal: ping.exitStatus === 0 ? "success" : "fail", exitStatus: ping.exitStatus };
}

/**
 * A ping: the token is the credential (looked up by its SHA-256, so the comparison cannot leak
 * timing). `success` (or exit status 0) publishes an `up` result, `fail` (or any other exit status) a
 * `down` one (both move the deadline to the next expected run and measure the run since a `start`);
 * `start` only notes the run's start. A paused monitor's ping is accepted but records nothing.
 */
export async function acceptPing(
  sql: Sql,
  bus: Bus,
  token: string,
  ping: Ping = "success",
  body: PingBody | null = null,
  now = new Date(),
): Promise<{ monitor_id: string; recorded: boolean }> {
  if (!TOKEN_PATTERN.test(token)) throw notFound("Heartbeat");
  const { signal, exitStatus } = signalOf(ping);
  const at = now.getTime();
  const found = await withTx(sql, async (tx) => {
    const m = await lockHeartbeatByToken(tx, hashToken(token));
    if (!m || m.paused || m.suspended) return m && { m, message: null };
    if (signal === "start") {
      await recordStart(tx, m.id, now, body?.text ?? null);
      return { m, message: null };
    }
    await recordPing(tx, m.id, now, dateOrNull(deadlineAfter(timingOf(m), at)));
    const duration = m.started_at ? Math.max(0, at - m.started_at.getTime()) : null;
    const data: ResultData = {
      ...emptyData(now),
      signal,
      run_duration_ms: duration,
      body: body?.text ?? null,
      body_truncated: body ? body.truncated : null,
      start_body: m.started_at ? m.start_body : null,
      exit_status: exitStatus,
    };
    const status = signal === "fail" ? "down" : "up";
    return { m, message: result(m, `hb.${m.id}.${at}`, at, { status, error: signal === "fail" ? failError(body, exitStatus) : null, duration: duration ?? 0, data }) };
  });
  if (!found) throw notFound("Heartbeat");
  if (found.message) await bus.publishResult(resultSubject(found.m.org_id, found.m.id), found.message);
  return { monitor_id: found.m.id, recorded: !found.m.paused && !found.m.suspended };
}

/**
 * The earliest time a ping would have moved the deadline past `deadline` (a ping at x sets it to the next
 * expected run after x, plus the grace): with a period, right after the run before (x + period + grace >
 * deadline); with a schedule, the run itself (the next run after x must be a later one).
 */
function pingWindowStart(t: HeartbeatTiming, deadline: number): number {
  const expected = deadline - (t.grace_seconds ?? 0) * 1000;
  return t.schedule === undefined ? expected - (t.period_seconds ?? 0) * 1000 : expected;
}

/** Whether (from, to] touches what the sweeping process could not see, as of `now` (ms). */
function blindBetween(blind: BlindSpan, now: number): (from: number, to: number) => boolean {
  const gaps = blind.gaps.map((g) => [now - g.fromAgoS * 1000, now - g.toAgoS * 1000] as const);
  return (from, to) => gaps.some(([gapFrom, gapTo]) => from < gapTo && to >= gapFrom);
}

/**
 * Publishes a `down` result for every missed deadline (expected run + grace) up to now, then stores
 * the next deadline. A monitor whose deadline is not computed yet (new, or config changed) counts
 * from its last ping or creation. Ids are per deadline, so several sweepers, or a sweep repeated
 * after a crash, store each miss once.
 *
 * `blind` is what the sweeping process could not see (core/process/blind-time.ts): its stretches of
 * failed sweeps, in the all-in-one (where the API runs in the same process) everything before it started,
 * and in the scaled mode the stretches when no API process was up. Pings travel through the API into PostgreSQL, so while the service was down or its database
 * unreachable a job's ping may have been refused: a deadline that such a ping would have met is
 * recorded `unavailable` (a gap in monitoring), not `down`.
 */
export async function sweepHeartbeats(sql: Sql, bus: Bus, now = new Date(), blind: BlindSpan = FULL_VIEW): Promise<number> {
  let published = 0;
  const unseen = blindBetween(blind, now.getTime());
  for (const m of await overdueHeartbeats(sql, now)) {
    const timing = timingOf(m);
    const since = (m.last_ping_at ?? m.created_at).getTime();
    const due = m.due_at?.getTime() ?? deadlineAfter(timing, since);
    const { missed, nextDue } = due === null ? { missed: [], nextDue: null } : missedDeadlines(timing, due, now.getTime(), MAX_MISSES_PER_SWEEP);
    const lastPing = m.last_ping_at ? `no ping since ${m.last_ping_at.toISOString()}` : "no ping received yet";
    for (const deadline of missed) {
      // A ping from `from` on would have moved the deadline past this one.
      const from = Math.max(since, pingWindowStart(timing, deadline));
      const data = { ...emptyData(m.last_ping_at), signal: "missed" };
      const outcome = unseen(from, deadline)
        ? { status: "unavailable" as const, error: `${UNSEEN_ERROR}; ${lastPing}`, duration: 0, data }
        : { status: "down" as const, error: lastPing, duration: 0, data };
      await bus.publishResult(resultSubject(m.org_id, m.id), result(m, `hbmiss.${m.id}.${deadline}`, deadline, outcome));
      published++;
    }
    await advanceDeadline(sql, m.id, m.due_at, dateOrNull(nextDue));
  }
  return published;
}

/**
 * A resumed heartbeat monitor waits afresh: its next deadline is the next expected run after the resume
 * plus the grace, as for a new monitor. Without this the sweep counted from the last ping before the
 * pause and recorded every run missed while paused as `down` (back-dated into the pause, alerting on
 * resume). Call it in the transaction that clears `paused`, so no sweep sees the monitor resumed with
 * its old deadline.
 */
export async function restartHeartbeatDeadlines(sql: Sql, ids: string[], now = new Date()): Promise<void> {
  for (const m of await heartbeatConfigs(sql, ids)) await setHeartbeatDeadline(sql, m.id, dateOrNull(deadlineAfter(timingOf(m as Pick<HeartbeatMonitorRow, "config">), now.getTime())));
}
