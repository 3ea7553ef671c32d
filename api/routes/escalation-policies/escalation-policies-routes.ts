import { Elysia, t } from "elysia";
import { createPolicy, getPolicy, listPolicies, patchPolicy, removePolicy } from "../../../alerting/service/escalation-policies.ts";
import type { Actor } from "../../../domain/access/actor.ts";
import type { ApiDeps } from "../../context.ts";
import { authPlugin } from "../../middleware/auth.ts";
import { Id, IdParams, Obj, PaginationQuery, paginated, Timestamp, toPage, DisplayName, Int } from "../../schemas/common.ts";

const Step = Obj({
  delay_minutes: Int({ minimum: 0, maximum: 10_080, description: "Minutes after the alert starts; 0 = at once; increasing from step to step" }),
  channel_ids: t.Array(Id, { minItems: 1, maxItems: 20, uniqueItems: true }),
});
const Name = DisplayName(200);
const Steps = t.Array(Step, { minItems: 1, maxItems: 10 });
const Key = t.String({ pattern: "^(?:[a-z0-9][a-z0-9_-]{0,23}/)?[a-z0-9][a-z0-9._-]{0,56}$", description: "A stable key for monitoring as code (the watchpost CLI's config file; <project>/<key> when the file has a project): unique in the organisation (409 CONFLICT otherwise); renaming keeps it" });
const KeyIn = t.Optional(t.Union([Key, t.Null()], { description: "The config file's stable key; null clears it" }));
const PolicyView = t.Object({
  id: t.String(),
  name: t.String(),
  steps: t.Array(t.Object({ delay_minutes: Int(), channel_ids: t.Array(t.String()) })),
  key: t.Union([Key, t.Null()]),
  created_at: Timestamp,
  updated_at: Timestamp,
});

/** Escalation policies: named steps; a rule using one gets every step's channels with that step's delay. */
export const escalationPolicyRoutes = (deps: ApiDeps) => {
  const ctx = (actor: Actor) => ({ sql: deps.sql, actor });
  return new Elysia({ prefix: "/escalation-policies", detail: { tags: ["alerting"] } })
    .use(authPlugin)
    .guard({ requires: "alerts:read" }, (app) =>
      app
        .get(
          "",
          async ({ actor, query }) => {
            const { rows, total } = await listPolicies(ctx(actor), query.limit, (query.page - 1) * query.limit);
            return toPage(rows, total, query.page, query.limit);
          },
          { query: Obj(PaginationQuery), response: { 200: paginated(PolicyView) }, detail: { summary: "List escalation policies" } },
        )
        .get("/:id", ({ actor, params }) => getPolicy(ctx(actor), params.id), { params: IdParams, response: { 200: PolicyView }, detail: { summary: "One escalation policy" } }),
    )
    .guard({ requires: "alerts:write" }, (app) =>
      app
        .post(
          "",
          async ({ actor, body, set }) => {
            set.status = 201;
            return createPolicy(ctx(actor), body);
          },
          { body: Obj({ name: Name, steps: Steps, key: KeyIn }), response: { 201: PolicyView }, detail: { summary: "Create an escalation policy" } },
        )
        .patch("/:id", ({ actor, params, body }) => patchPolicy(ctx(actor), params.id, body), {
          params: IdParams,
          body: Obj({ name: t.Optional(Name), steps: t.Optional(Steps), key: KeyIn }),
          response: { 200: PolicyView },
          detail: { summary: "Change an escalation policy; rules using it follow from their next evaluation" },
        })
        .delete(
          "/:id",
          async ({ actor, params, set }) => {
            await removePolicy(ctx(actor), params.id);
            set.status = 204;
          },
          { params: IdParams, detail: { summary: "Delete an escalation policy (409 while rules use it)" } },
        ),
    );
};
