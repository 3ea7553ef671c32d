import type { Sql } from "../../db/client.ts";
import { runnerName } from "../../db/queries/alert-monitors.ts";
import { HEARTBEAT_LOCATION, NOWHERE_LOCATION } from "../../domain/monitors/locations.ts";

/** How messages name an alert state's location: a region by its id, a runner by its name (its id means nothing to a reader). */
export type LocationNameOf = (orgId: string, location: string) => Promise<string>;

const RUNNER_ID = /^run_/;

/** Names for one batch or tick: each runner is read once, however many states ask. */
export function batchLocationNames(sql: Sql): LocationNameOf {
  const runners = new Map<string, Promise<string | undefined>>();
  return async (orgId, location) => {
    if (location === NOWHERE_LOCATION) return "nowhere (no region or runner)";
    if (location === HEARTBEAT_LOCATION) return "heartbeat pings";
    if (!RUNNER_ID.test(location)) return location;
    const key = `${orgId}|${location}`;
    if (!runners.has(key)) runners.set(key, runnerName(sql, orgId, location));
    const name = await runners.get(key)!;
    return name === undefined ? location : `runner ${name}`;
  };
}
