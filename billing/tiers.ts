/**
 * Interval tiers (docs/billing.md). Slots are cumulative: a real-time slot also counts as a fast
 * slot, so "`<family>_fast` ≥ monitors checking faster than every 5 min" is the whole rule.
 */
export type Tier = "standard" | "fast" | "realtime";

/** The shortest interval each tier allows, in seconds. */
export const TIER_FLOOR: Record<Tier, number> = { standard: 300, fast: 60, realtime: 30 };

export function tierOf(intervalSeconds: number): Tier {
  if (intervalSeconds < TIER_FLOOR.fast) return "realtime";
  if (intervalSeconds < TIER_FLOOR.standard) return "fast";
  return "standard";
}

/** Families whose slots come in tiers: uptime monitors and the two browser kinds. */
const TIERED_FAMILIES = ["monitors", "lite_browser", "flow_browser"] as const;

/** The tier quotas a monitor of `family` at `tier` occupies, with the interval bound each counts below. */
export function slotKeysFor(family: string, tier: Tier): { quota: string; belowInterval: number }[] {
  if (!(TIERED_FAMILIES as readonly string[]).includes(family)) return [];
  const fast = { quota: `${family}_fast`, belowInterval: TIER_FLOOR.standard };
  const realtime = { quota: `${family}_realtime`, belowInterval: TIER_FLOOR.fast };
  if (tier === "fast") return [fast];
  if (tier === "realtime") return [realtime, fast];
  return [];
}
