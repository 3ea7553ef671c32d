/**
 * How a result's or a monitor's location reads in the dashboard: a self-hosted runner by the name its owner gave it
 * (`run_…` ids mean nothing to a person), a cloud region by its id, and `none` (a monitor with nowhere to run) in words.
 */

export interface RunnerName {
  id: string;
  name: string;
  status?: string;
}

/** `none` is where the scheduler records the checks of a monitor with no region and no runner. */
const NOWHERE = "none";

export function locationName(location: string, runners: readonly RunnerName[] | undefined): string {
  if (location === NOWHERE) return "nowhere (no region or runner)";
  const runner = runners?.find((r) => r.id === location);
  if (!runner) return location;
  return runner.status === "revoked" ? `${runner.name} (revoked runner)` : runner.name;
}

/** "from …" of a monitor: its regions, then its runners by name. */
export function monitorLocationsText(m: { regions: readonly string[]; runner_ids: readonly string[] }, runners: readonly RunnerName[] | undefined): string {
  const all = [...m.regions, ...m.runner_ids];
  return all.length === 0 ? "nowhere: no region and no runner" : all.map((l) => locationName(l, runners)).join(", ");
}

/** The state a monitor's badge shows: paused, then "not monitored" (nowhere to run, suspended), then its last status. */
export function badgeState(m: { status: string; paused: boolean; monitored?: boolean; suspended?: boolean }): string {
  if (m.paused) return "paused";
  if (m.monitored === false || m.suspended) return "not monitored";
  return m.status;
}
