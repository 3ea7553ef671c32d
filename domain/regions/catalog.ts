/** A cloud region this deployment checks from, with the city shown for it. */
export interface RegionInfo {
  id: string;
  city: string;
}

/** A region counts as online while one of its workers was seen this recently. */
export const REGION_ONLINE_TTL_SECONDS = 15;

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
