import { Elysia } from "elysia";
import { createRule, getRule, listRules, patchRule, removeRule } from "../../../alerting/service/alert-rules.ts";
import { acknowledgeAlert, listActive } from "../../../alerting/service/acknowledge.ts";
import type { Actor } from "../../../domain/access/actor.ts";
import type { ApiDeps } from "../../context.ts";
import { authPlugin } from "../../middleware/auth.ts";
import { IdParams, paginated, toPage } from "../../schemas/common.ts";
import { AckBody, AckResult, ActiveAlertRow, ActiveQuery, RuleCreateBody, RuleListQuery, RulePatchBody, RuleView } from "./schemas.ts";

/** Alert rules: CRUD (quota alert_rules), the active-alert list and acknowledge. */
export const alertRuleRoutes = (deps: ApiDeps) => {
  const ctx = (actor: Actor) => ({ sql: deps.sql, actor });
  return new Elysia({ prefix: "/alert-rules", detail: { tags: ["alerting"] } })
    .use(authPlugin)
    .guard({ requires: "alerts:read" }, (app) =>
      app
        .get(
          "",
          async ({ actor, query }) => {
            const { page, limit, ...filter } = query;
            const { rows, total } = await listRules(ctx(actor), filter, limit, (page - 1) * limit);
            return toPage(rows, total, page, limit);
          },
          { query: RuleListQuery, response: { 200: paginated(RuleView) }, detail: { summary: "List alert rules, newest first; filters enabled, scope_type, monitor_id, channel_id" } },
        )
        .get(
          "/active",
          async ({ actor, query }) => {
            const { page, limit, ...filter } = query;
            const { rows, total } = await listActive(ctx(actor), filter, limit, (page - 1) * limit);
            return toPage(rows, total, page, limit);
          },
          {
            query: ActiveQuery,
            response: { 200: paginated(ActiveAlertRow) },
            detail: { summary: "Firing alerts: one row per (rule, monitor, region), newest first" },
          },
        )
        .get("/:id", ({ actor, params }) => getRule(ctx(actor), params.id), { params: IdParams, response: { 200: RuleView }, detail: { summary: "One alert rule" } }),
    )
    .guard({ requires: "alerts:write" }, (app) =>
      app
        .post(
          "",
          async ({ actor, body, set }) => {
            set.status = 201;
            return createRule(ctx(actor), body);
          },
          { body: RuleCreateBody, response: { 201: RuleView }, detail: { summary: "Create an alert rule; the response has every default filled in" } },
        )
        .post(
          "/:id/acknowledge",
          ({ actor, params, body }) => acknowledgeAlert({ sql: deps.sql, actor, bus: deps.bus, publicBaseUrl: deps.publicBaseUrl }, params.id, body),
          {
            params: IdParams,
            body: AckBody,
            response: { 200: AckResult },
            detail: {
              summary:
                "Acknowledge a firing alert: in one region, or without region in every region where (rule, monitor) fires. Stops escalations and reminders; notifies nobody; harmless to repeat",
            },
          },
        )
        .patch("/:id", ({ actor, params, body }) => patchRule(ctx(actor), params.id, body), {
          params: IdParams,
          body: RulePatchBody,
          response: { 200: RuleView },
          detail: { summary: "Change an alert rule: top-level fields replace, confirmation and notifications merge" },
        })
        .delete(
          "/:id",
          async ({ actor, params, set }) => {
            await removeRule(ctx(actor), params.id);
            set.status = 204;
          },
          { params: IdParams, detail: { summary: "Delete an alert rule and its alert states" } },
        ),
    );
};
