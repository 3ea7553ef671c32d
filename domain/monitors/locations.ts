/**
 * Where a monitor's results come from, and so which locations its alert states belong to: its cloud regions and
 * runners; a heartbeat monitor's pings; `none` for a monitor left with neither (its due checks are recorded
 * `unavailable` there).
 */
export const HEARTBEAT_LOCATION = "heartbeat";
export const NOWHERE_LOCATION = "none";

export interface Placed {
  type: string;
  regions: readonly string[];
  runner_ids: readonly string[];
}

/** Whether results from `location` belong to the monitor as it is now (db/queries/alert-states.ts has the same rule in SQL). */
export function checksFrom(m: Placed, location: string): boolean {
  if (m.type === "heartbeat") return location === HEARTBEAT_LOCATION;
  if (m.regions.length + m.runner_ids.length === 0) return location === NOWHERE_LOCATION;
  return m.regions.includes(location) || m.runner_ids.includes(location);
}
