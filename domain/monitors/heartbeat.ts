import type { Bus } from "../../core/bus/index.ts";
import { hashToken } from "../../core/crypto/secrets.ts";
import type { Sql } from "../../db/client.ts";
import { notFound } from "../../core/errors.ts";
import { type CheckResultMessage, resultMessage, resultSubject } from "../../schemas/messages/check-messages.ts";
import { type HeartbeatMonitorRow, overdueHeartbeats, recordPing } from "../../db/queries/heartbeats.ts";

const HEARTBEAT_LOCATION = "heartbeat";
const TOKEN_PATTERN = /^hb_[A-Za-z0-9_-]{32}$/;
/** At most this many missed periods are recorded per monitor and sweep (older ones are a known gap). */
const MAX_MISSES_PER_SWEEP = 10;

function result(m: Pick<HeartbeatMonitorRow, "id" | "org_id">, id: string, at: number, status: "up" | "down", error: string | null, data: CheckResultMessage["data"]): CheckResultMessage {
  return resultMessage({ id, org_id: m.org_id, monitor_id: m.id, location: HEARTBEAT_LOCATION, location_type: "region", due_at: at }, { checked_at: at, status, duration_ms: 0, error, data });
}

/**
 * A ping: the token is the credential (looked up by its SHA-256, so the comparison cannot leak
 * timing). Records the ping time and publishes an `up` result; a paused monitor's ping is accepted
 * but records nothing.
 */
export async function acceptPing(sql: Sql, bus: Bus, token: string, now = new Date()): Promise<{ monitor_id: string; recorded: boolean }> {
  if (!TOKEN_PATTERN.test(token)) throw notFound("Heartbeat");
  const monitor = await recordPing(sql, hashToken(token), now);
  if (!monitor) throw notFound("Heartbeat");
  if (monitor.paused || monitor.suspended) return { monitor_id: monitor.id, recorded: false };
  const at = now.getTime();
  await bus.publishResult(resultSubject(monitor.org_id, monitor.id), result(monitor, `hb.${monitor.id}.${at}`, at, "up", null, { last_ping_at: now.toISOString() }));
  return { monitor_id: monitor.id, recorded: true };
}

/**
 * Publishes a `down` result for every missed deadline (last ping + grace + k·period) up to now.
 * Ids are per deadline, so several sweepers, or a sweep repeated after a crash, store each miss once.
 */
export async function sweepHeartbeats(sql: Sql, bus: Bus, now = new Date()): Promise<number> {
  let published = 0;
  for (const m of await overdueHeartbeats(sql, now)) {
    const since = (m.last_ping_at ?? m.created_at).getTime();
    const first = since + (m.period_seconds + m.grace_seconds) * 1000;
    const misses = Math.floor((now.getTime() - first) / (m.period_seconds * 1000)) + 1;
    for (let k = Math.max(0, misses - MAX_MISSES_PER_SWEEP); k < misses; k++) {
      const deadline = first + k * m.period_seconds * 1000;
      const error = m.last_ping_at ? `no ping since ${m.last_ping_at.toISOString()}` : "no ping received yet";
      await bus.publishResult(resultSubject(m.org_id, m.id), result(m, `hbmiss.${m.id}.${deadline}`, deadline, "down", error, { last_ping_at: m.last_ping_at?.toISOString() ?? null }));
      published++;
    }
  }
  return published;
}
