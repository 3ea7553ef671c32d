import { Elysia, t } from "elysia";
import { getEntitlements } from "../../../billing/entitlements.ts";
import type { ApiDeps } from "../../context.ts";
import { authPlugin } from "../../middleware/auth.ts";
import { Int } from "../../schemas/common.ts";

const Contribution = t.Object({
  plan: t.Number({ description: "Included in the plan" }),
  addons: t.Array(t.Object({ addon_id: t.String(), name: t.String(), quantity: Int(), adds: t.Number() })),
  total: t.Number(),
});

const EntitlementsView = t.Object({
  plan: t.Object({ id: t.String(), name: t.String() }),
  billing_enabled: t.Boolean({ description: "False with BILLING=off: every organisation has the unlimited plan" }),
  limits: t.Record(t.String(), t.Number(), { description: "Every quota of the plan plus live add-ons (counts, minimum interval in seconds, retention days)" }),
  contributions: t.Record(t.String(), Contribution, { description: "What the plan and each add-on contribute to each quota" }),
  usage: t.Record(t.String(), t.Object({ used: Int(), limit: t.Number() }), { description: "Slot usage of each counted quota (suspended resources hold no slot)" }),
});

/** Current plan, limits and usage. */
export const entitlementRoutes = (deps: ApiDeps) =>
  new Elysia({ prefix: "/entitlements", detail: { tags: ["billing"] } })
    .use(authPlugin)
    .get("", ({ actor }) => getEntitlements(deps.sql, actor.orgId), {
      requires: "member",
      response: { 200: EntitlementsView },
      detail: { summary: "Current plan, limits with add-on contributions, and slot usage" },
    });
