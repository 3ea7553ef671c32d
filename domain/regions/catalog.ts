/** A cloud region this deployment checks from, with the city shown for it. */
export interface RegionInfo {
  id: string;
  city: string;
}

/** A region counts as online while one of its workers was seen this recently (see BEATS_STALL_GRACE_SECONDS). */
export const REGION_ONLINE_TTL_SECONDS = 15;

/**
 * When no worker of any region has beaten for a while, the path from the workers to the database (the bus,
 * ingest, the database itself) is down rather than every worker at once: the scheduler then measures each
 * region's newest beat against the newest beat of all, for at most this long past the TTL. Longer than that,
 * no worker is taken to be anywhere.
 */
export const BEATS_STALL_GRACE_SECONDS = 60;

/**
 * REGIONS ("local,eu-west") with their cities from REGION_LOCATIONS ("eu-west=Frankfurt,us-east=Virginia").
 * A region without an entry shows its id; `local` shows "Local".
 */
export function regionCatalog(regions: string, locations = ""): RegionInfo[] {
  const cities = new Map<string, string>([["local", "Local"]]);
  for (const pair of locations.split(",").filter(Boolean)) {
    const [id, city] = pair.split("=");
    if (id && city) cities.set(id.trim(), city.trim());
  }
  return regions
    .split(",")
    .filter(Boolean)
    .map((id) => ({ id, city: cities.get(id) ?? id }));
}
