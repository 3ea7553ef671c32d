import { Elysia, t } from "elysia";
import { channelTypes, channels } from "../../../alerting/channels/index.ts";
import { conditionTypes } from "../../../alerting/engine/conditions.ts";
import { PAGING_TYPES } from "../../../alerting/engine/compile.ts";
import { orgLimits } from "../../../billing/entitlements.ts";
import type { ApiDeps } from "../../context.ts";
import { authPlugin } from "../../middleware/auth.ts";
import { Int } from "../../schemas/common.ts";

const Capabilities = t.Object({
  plan: t.String(),
  channel_types: t.Array(t.Object({ type: t.String(), secret_fields: t.Array(t.String()), receives_acknowledgements: t.Boolean() })),
  condition_types: t.Array(t.String()),
  scope_types: t.Array(t.String()),
  features: t.Object({
    escalation_policies: t.Boolean(),
    recurring_reminders: t.Boolean(),
    recovery_notices: t.Boolean(),
    acknowledgement: t.Boolean(),
    maintenance_suppression: t.Boolean(),
    test_send: t.Boolean(),
    in_app_notifications: t.Boolean(),
  }),
  limits: t.Object({ alert_rules: Int(), alert_channels: Int() }),
});

/** What alerting the organisation's plan includes: every plan has every channel type and feature; quotas differ. */
export const alertCapabilityRoutes = (deps: ApiDeps) =>
  new Elysia({ prefix: "/alert-capabilities", detail: { tags: ["alerting"] } })
    .use(authPlugin)
    .guard({ requires: "alerts:read" }, (app) =>
      app.get(
        "",
        async ({ actor }) => {
          const { plan, limits } = await orgLimits(deps.sql, actor.orgId);
          return {
            plan: plan.id,
            channel_types: channelTypes.map((type) => ({ type, secret_fields: [...channels[type].secretFields], receives_acknowledgements: PAGING_TYPES.has(type) })),
            condition_types: [...conditionTypes],
            scope_types: ["monitor", "monitor_group", "all_monitors"],
            features: {
              escalation_policies: true,
              recurring_reminders: true,
              recovery_notices: true,
              acknowledgement: true,
              maintenance_suppression: true,
              test_send: true,
              in_app_notifications: true,
            },
            limits: { alert_rules: limits.alert_rules ?? 0, alert_channels: limits.alert_channels ?? 0 },
          };
        },
        { response: { 200: Capabilities }, detail: { summary: "Channel types, condition types and alerting features the plan includes, with its quotas" } },
      ),
    );
