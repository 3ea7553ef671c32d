import type { Sql } from "../db/client.ts";
import { billingEnabled } from "../db/queries/billing.ts";
import { findPlan, type PlanRow } from "../db/queries/plans.ts";

/** The one plan of a deployment that does not bill (BILLING=off): self-hosting, unlimited. */
const SELF_HOSTED_PLAN_ID = "unlimited";

export async function selfHostedPlan(sql: Sql): Promise<PlanRow> {
  const plan = await findPlan(sql, SELF_HOSTED_PLAN_ID);
  if (!plan) throw new Error(`the ${SELF_HOSTED_PLAN_ID} plan row is missing (migrations not applied?)`);
  return plan;
}

/**
 * The plan to show for an organisation whose row holds `storedPlanId`: with BILLING=off always the
 * self-hosted one. The stored plan is kept, so turning billing on later restores it.
 */
export async function planIdInForce(sql: Sql, storedPlanId: string): Promise<string> {
  return (await billingEnabled(sql)) ? storedPlanId : SELF_HOSTED_PLAN_ID;
}
