import { Elysia, t } from "elysia";
import { deleteGroup, getGroup, groupStatus, listGroups, renameGroup } from "../../../domain/monitors/groups.ts";
import type { TagGroupRow } from "../../../db/queries/monitors.ts";
import type { ApiDeps } from "../../context.ts";
import { authPlugin } from "../../middleware/auth.ts";
import { Obj, Int, PaginationQuery, paginated } from "../../schemas/common.ts";
import { pageOf } from "../../schemas/page-of.ts";

const TagParams = Obj({ tag: t.String({ minLength: 1, maxLength: 64 }) });
const GroupView = t.Object({
  tag: t.String(),
  status: t.Union(["down", "timeout", "degraded", "up", "pending", "paused"].map((s) => t.Literal(s)), {
    description: "Worst status among the group's active monitors",
  }),
  monitors: Int(),
  counts: t.Object({ up: Int(), down: Int(), degraded: Int(), timeout: Int(), pending: Int(), paused: Int() }),
});
const toView = (g: TagGroupRow) => ({
  tag: g.tag,
  status: groupStatus(g) as never,
  monitors: g.monitors,
  counts: { up: g.up, down: g.down, degraded: g.degraded, timeout: g.timeout, pending: g.pending, paused: g.paused },
});

/** Monitor groups are tags: a group exists while a monitor carries its tag. */
export const monitorGroupRoutes = (deps: ApiDeps) =>
  new Elysia({ prefix: "/monitor-groups", detail: { tags: ["monitors"] } })
    .use(authPlugin)
    .guard({ requires: "monitors:read" }, (app) =>
      app
        .get("", async ({ actor, query }) => pageOf((await listGroups({ sql: deps.sql, actor })).map(toView), query), {
          query: Obj(PaginationQuery),
          response: { 200: paginated(GroupView) },
          detail: { summary: "Every tag in use with its monitor counts and aggregate status (list the members with GET /monitors?tag=…)" },
        })
        .get("/:tag", async ({ actor, params }) => toView(await getGroup({ sql: deps.sql, actor }, params.tag)), {
          params: TagParams,
          response: { 200: GroupView },
          detail: { summary: "One group" },
        }),
    )
    .guard({ requires: "monitors:write" }, (app) =>
      app
        .patch("/:tag", async ({ actor, params, body }) => toView(await renameGroup({ sql: deps.sql, actor }, params.tag, body.tag, body.merge)), {
          params: TagParams,
          body: Obj({ tag: t.String({ minLength: 1, maxLength: 64, pattern: "^[^,]+$" }), merge: t.Optional(t.Boolean()) }),
          response: { 200: GroupView },
          detail: { summary: "Rename the tag on every monitor carrying it" },
        })
        .delete(
          "/:tag",
          async ({ actor, params, set }) => {
            await deleteGroup({ sql: deps.sql, actor }, params.tag);
            set.status = 204;
          },
          { params: TagParams, detail: { summary: "Remove the tag from every monitor (the monitors stay)" } },
        ),
    );
