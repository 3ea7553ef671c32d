import { fmtAgo } from "../../components/format";

interface RunnerTimes {
  status: "online" | "offline" | "revoked";
  last_seen_at: string | null;
  stopped_at: string | null;
  revoked_at: string | null;
}

/** Since when a runner is in its state, beside its status badge; null for an online runner (its last seen is in its own column). */
export function runnerStatusNote(r: RunnerTimes, now = Date.now()): string | null {
  if (r.status === "revoked") return r.revoked_at ? `revoked ${fmtAgo(r.revoked_at, now)}` : null;
  if (r.status === "online") return null;
  if (r.stopped_at) return `stopped ${fmtAgo(r.stopped_at, now)}`;
  return r.last_seen_at ? `last heartbeat ${fmtAgo(r.last_seen_at, now)}` : "never connected";
}

/** Checks in flight as the runner last reported them: only an online runner's count is current. */
export const showsInFlight = (r: { status: RunnerTimes["status"]; in_flight: number }) => (r.status === "online" ? String(r.in_flight) : "—");
