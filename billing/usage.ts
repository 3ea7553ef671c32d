import type { Sql } from "../db/client.ts";
import { countActive } from "../db/queries/billing-suspensions.ts";
import { countAlertChannels } from "../db/queries/alert-channels.ts";
import { countAlertRules } from "../db/queries/alert-rules.ts";
import { TIER_FLOOR } from "./tiers.ts";

/**
 * How much of each counted quota an organisation uses. One entry per resource table;
 * each issue that adds a quota-bound resource adds its counter here.
 * Suspended resources hold no slot (billing/suspension.ts).
 */
export const usageCounters: Record<string, (sql: Sql, orgId: string) => Promise<number>> = {
  members: async (sql, orgId) => {
    const [row] = await sql<{ n: number }[]>`
      select (select count(*) from memberships where org_id = ${orgId})
           + (select count(*) from invitations where org_id = ${orgId} and accepted_at is null and revoked_at is null and expires_at > now()) as n`;
    return Number(row!.n);
  },
  monitors: (sql, orgId) => countActive(sql, "monitors", orgId),
  monitors_fast: (sql, orgId) => countActive(sql, "monitors", orgId, { belowInterval: TIER_FLOOR.standard }),
  monitors_realtime: (sql, orgId) => countActive(sql, "monitors", orgId, { belowInterval: TIER_FLOOR.fast }),
  lite_browser: (sql, orgId) => countActive(sql, "lite_browser", orgId),
  lite_browser_fast: (sql, orgId) => countActive(sql, "lite_browser", orgId, { belowInterval: TIER_FLOOR.standard }),
  lite_browser_realtime: (sql, orgId) => countActive(sql, "lite_browser", orgId, { belowInterval: TIER_FLOOR.fast }),
  flow_browser: (sql, orgId) => countActive(sql, "flow_browser", orgId),
  flow_browser_fast: (sql, orgId) => countActive(sql, "flow_browser", orgId, { belowInterval: TIER_FLOOR.standard }),
  flow_browser_realtime: (sql, orgId) => countActive(sql, "flow_browser", orgId, { belowInterval: TIER_FLOOR.fast }),
  self_hosted_browser: (sql, orgId) => countActive(sql, "self_hosted_browser", orgId),
  runners: (sql, orgId) => countActive(sql, "runners", orgId),
  status_pages: (sql, orgId) => countActive(sql, "status_pages", orgId),
  alert_rules: countAlertRules,
  alert_channels: countAlertChannels,
};
