import type { Sql } from "../db/client.ts";
import { entitlementRequired, notFound } from "../core/errors.ts";
import { billingEnabled, liveAddonQuantities } from "../db/queries/billing.ts";
import { selfHostedPlan } from "./self-hosted.ts";
import { countActive, type SuspendableKind } from "../db/queries/billing-suspensions.ts";
import { findOrgPlan, type PlanRow } from "../db/queries/plans.ts";
import { usageCounters } from "./usage.ts";
import { slotKeysFor, TIER_FLOOR, tierOf } from "./tiers.ts";
import { intervalRefusal, quotaRefusal, slotRefusal } from "./remedy.ts";

interface AddonContribution {
  addon_id: string;
  name: string;
  quantity: number;
  adds: number;
}

export interface Entitlements {
  plan: Pick<PlanRow, "id" | "name">;
  billing_enabled: boolean;
  limits: Record<string, number>;
  /** Per quota: what the plan includes and what each live add-on adds. */
  contributions: Record<string, { plan: number; addons: AddonContribution[]; total: number }>;
  usage: Record<string, { used: number; limit: number }>;
}

export interface OrgLimits {
  plan: PlanRow;
  limits: Record<string, number>;
  contributions: Entitlements["contributions"];
  billingEnabled: boolean;
}

/**
 * The organisation's plan quotas plus its live add-ons. With BILLING=off every organisation
 * has the unlimited plan. The minimum interval follows the fastest tier the org has slots for.
 */
export async function orgLimits(sql: Sql, orgId: string): Promise<OrgLimits> {
  const own = await findOrgPlan(sql, orgId);
  if (!own) throw notFound("Organisation");
  const enabled = await billingEnabled(sql);
  const plan = enabled ? own : await selfHostedPlan(sql);
  const limits: Record<string, number> = { ...plan.quotas };
  const contributions: Entitlements["contributions"] = {};
  for (const [k, v] of Object.entries(plan.quotas)) contributions[k] = { plan: v, addons: [], total: v };
  if (enabled) {
    for (const { addon, quantity } of await liveAddonQuantities(sql, orgId)) {
      for (const [k, per] of Object.entries(addon.grants)) {
        const adds = per * quantity;
        limits[k] = (limits[k] ?? 0) + adds;
        const c = (contributions[k] ??= { plan: 0, addons: [], total: 0 });
        c.addons.push({ addon_id: addon.id, name: addon.name, quantity, adds });
        c.total += adds;
      }
    }
  }
  let min = limits.min_interval_seconds ?? TIER_FLOOR.standard;
  if ((limits.monitors_fast ?? 0) > 0) min = Math.min(min, TIER_FLOOR.fast);
  if ((limits.monitors_realtime ?? 0) > 0) min = Math.min(min, TIER_FLOOR.realtime);
  limits.min_interval_seconds = min;
  if (contributions.min_interval_seconds) contributions.min_interval_seconds.total = min;
  return { plan, limits, contributions, billingEnabled: enabled };
}

export async function getEntitlements(sql: Sql, orgId: string): Promise<Entitlements> {
  const { plan, limits, contributions, billingEnabled: enabled } = await orgLimits(sql, orgId);
  const usage: Entitlements["usage"] = {};
  await Promise.all(
    Object.entries(usageCounters).map(async ([quota, count]) => {
      usage[quota] = { used: await count(sql, orgId), limit: limits[quota] ?? 0 };
    }),
  );
  return { plan: { id: plan.id, name: plan.name }, billing_enabled: enabled, limits, contributions, usage };
}

/**
 * Refuses with 403 ENTITLEMENT_REQUIRED when adding `adding` units would exceed the quota. A deployment that
 * does not bill (self-hosted) counts nothing: its one plan is unlimited, so a creation costs the same whatever
 * the organisation already has. Where billing is on, the count is bounded by the plan's own limit.
 */
export async function assertQuota(sql: Sql, orgId: string, quota: string, adding: number, preloaded?: OrgLimits): Promise<void> {
  const { plan, limits, billingEnabled: counted } = preloaded ?? (await orgLimits(sql, orgId));
  if (!counted) return;
  const limit = limits[quota] ?? 0;
  const count = usageCounters[quota];
  const used = count ? await count(sql, orgId) : 0;
  if (used + adding > limit) {
    throw entitlementRequired(quota, await quotaRefusal(sql, plan, quota, limit), { limit, used, plan: plan.id });
  }
}

/** Refuses a value below a plan minimum (for example a check interval). */
export async function assertAtLeast(sql: Sql, orgId: string, quota: string, value: number, preloaded?: OrgLimits): Promise<void> {
  const { plan, limits } = preloaded ?? (await orgLimits(sql, orgId));
  const min = limits[quota];
  if (min !== undefined && value < min) {
    const message = quota === "min_interval_seconds" ? await intervalRefusal(sql, plan, min, value) : `The ${plan.name} plan allows ${quota.replaceAll("_", " ")} of ${min} or more`;
    throw entitlementRequired(quota, message, { minimum: min, requested: value, plan: plan.id });
  }
}

/**
 * A monitor checking faster than every 5 minutes needs a fast slot, faster than every minute a real-time slot
 * (docs/billing.md); a real-time one holds a fast slot too. `monitors` are being created or changed at once;
 * `monitorId` is the monitor being changed, so it is not counted twice. Not counted when nothing bills.
 */
export async function assertIntervalSlots(
  sql: Sql,
  orgId: string,
  monitors: { family: string; intervalSeconds: number }[],
  opts: { monitorId?: string; limits?: OrgLimits } = {},
): Promise<void> {
  const wanted = new Map<string, { family: string; quota: string; belowInterval: number; n: number; interval: number }>();
  for (const m of monitors) {
    for (const { quota, belowInterval } of slotKeysFor(m.family, tierOf(m.intervalSeconds))) {
      const w = wanted.get(quota) ?? { family: m.family, quota, belowInterval, n: 0, interval: m.intervalSeconds };
      w.n++;
      w.interval = Math.min(w.interval, m.intervalSeconds);
      wanted.set(quota, w);
    }
  }
  if (wanted.size === 0) return;
  const { plan, limits, billingEnabled: counted } = opts.limits ?? (await orgLimits(sql, orgId));
  if (!counted) return;
  for (const { family, quota, belowInterval, n, interval } of wanted.values()) {
    const limit = limits[quota] ?? 0;
    const used = await countActive(sql, family as SuspendableKind, orgId, { belowInterval, excludeId: opts.monitorId });
    if (used + n > limit) {
      throw entitlementRequired(quota, await slotRefusal(sql, plan, quota, limit, interval), {
        limit,
        used,
        plan: plan.id,
        interval_seconds: interval,
      });
    }
  }
}
