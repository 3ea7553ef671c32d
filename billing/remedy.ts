import type { Sql } from "../db/client.ts";
import { listAddons } from "../db/queries/billing.ts";
import { listPlans, type PlanRow } from "../db/queries/plans.ts";
import { TIER_FLOOR, tierOf } from "./tiers.ts";

/** What a quota counts, singular and plural, as people say it. */
const NOUNS: Record<string, [string, string]> = {
  monitors: ["monitor", "monitors"],
  status_pages: ["status page", "status pages"],
  members: ["team member", "team members"],
  runners: ["self-hosted runner", "self-hosted runners"],
  alert_rules: ["alert rule", "alert rules"],
  alert_channels: ["alert channel", "alert channels"],
  lite_browser: ["Lite browser monitor", "Lite browser monitors"],
  flow_browser: ["Flow browser monitor", "Flow browser monitors"],
  self_hosted_browser: ["self-hosted browser monitor", "self-hosted browser monitors"],
  custom_domains: ["custom domain", "custom domains"],
};
const noun = (quota: string, n: number) => NOUNS[quota]?.[n === 1 ? 0 : 1] ?? quota.replaceAll("_", " ");

/** The cheapest plan above `plan` that passes `better`, and the first add-on on sale at `plan` granting `grant`. */
async function ways(sql: Sql, plan: PlanRow, better: (p: PlanRow) => boolean, grant: string) {
  const plans = await listPlans(sql);
  const rank = new Map(plans.map((p) => [p.id, p.sort]));
  const upgrade = plans.filter((p) => p.public && p.sort > plan.sort && better(p)).sort((a, b) => a.sort - b.sort)[0];
  const addon = (await listAddons(sql)).find((a) => (a.grants[grant] ?? 0) > 0 && (rank.get(a.min_plan_id) ?? Infinity) <= plan.sort);
  return { upgrade, addon };
}

/** The refusal of one more `quota` at `limit`, naming what raises it: a bigger plan, an add-on the plan can buy, or neither. */
export async function quotaRefusal(sql: Sql, plan: PlanRow, quota: string, limit: number): Promise<string> {
  const head = `The ${plan.name} plan allows ${limit} ${noun(quota, limit)}${limit > 0 ? ", all in use" : ""}`;
  const { upgrade, addon } = await ways(sql, plan, (p) => (p.quotas[quota] ?? 0) > (plan.quotas[quota] ?? 0), quota);
  const options = [upgrade && `upgrade to ${upgrade.name} (${upgrade.quotas[quota]})`, addon && `buy the add-on "${addon.name}"`].filter(Boolean);
  return options.length > 0 ? `${head}: ${options.join(" or ")}` : `${head}, and no plan offers more: delete one first`;
}

/** The refusal of a check interval shorter than the plan allows, naming the plan (or add-on) that allows it. */
export async function intervalRefusal(sql: Sql, plan: PlanRow, minimum: number, requested: number): Promise<string> {
  const head = `The ${plan.name} plan checks at most every ${minimum} s (${requested} s asked)`;
  // Fast and real-time monitor add-ons lower the minimum to their tier's floor, no further.
  const tier = tierOf(requested);
  const grant = tier !== "standard" && requested >= TIER_FLOOR[tier] ? `monitors_${tier}` : "";
  const { upgrade, addon } = await ways(sql, plan, (p) => (p.quotas.min_interval_seconds ?? Infinity) <= requested, grant);
  const options = [upgrade && `upgrade to ${upgrade.name} (every ${upgrade.quotas.min_interval_seconds} s)`, addon && `buy the add-on "${addon.name}"`].filter(Boolean);
  return options.length > 0 ? `${head}: ${options.join(" or ")}` : `${head}, and no plan checks more often`;
}

/**
 * The refusal of one more monitor checking every `interval` s when the plan's `quota` slots (`<family>_fast` or
 * `<family>_realtime`) are all used: the plan or add-on with more, or the interval that needs no such slot.
 */
export async function slotRefusal(sql: Sql, plan: PlanRow, quota: string, limit: number, interval: number): Promise<string> {
  const realtime = quota.endsWith("_realtime");
  const family = quota.replace(/_(fast|realtime)$/, "");
  const band = realtime ? `every ${TIER_FLOOR.realtime}–${TIER_FLOOR.fast - 1} s` : `every ${TIER_FLOOR.fast}–${TIER_FLOOR.standard - 1} s`;
  const head = `The ${plan.name} plan allows ${limit} ${noun(family, limit)} checking ${band}${limit > 0 ? ", all in use" : ""} (${interval} s asked)`;
  const { upgrade, addon } = await ways(sql, plan, (p) => (p.quotas[quota] ?? 0) > (plan.quotas[quota] ?? 0), quota);
  const slower = `check every ${realtime ? TIER_FLOOR.fast : TIER_FLOOR.standard} s or less often`;
  const options = [upgrade && `upgrade to ${upgrade.name} (${upgrade.quotas[quota]})`, addon && `buy the add-on "${addon.name}"`, slower].filter(Boolean);
  return `${head}: ${options.join(", or ")}`;
}
