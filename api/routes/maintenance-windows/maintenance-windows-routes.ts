import { Elysia } from "elysia";
import { createWindow, getWindow, listOrgWindows, patchWindow, removeWindow } from "../../../domain/maintenance/service.ts";
import type { ApiDeps } from "../../context.ts";
import { authPlugin } from "../../middleware/auth.ts";
import { IdParams, paginated, toPage } from "../../schemas/common.ts";
import { WindowCreateBody, WindowListQuery, WindowPatchBody, WindowView } from "./schemas.ts";
import { toWindowView } from "./views.ts";

/** Maintenance windows: one-off or recurring (RRULE or cron) periods that suppress alerts and/or pause monitors. */
export const maintenanceWindowRoutes = (deps: ApiDeps) =>
  new Elysia({ prefix: "/maintenance-windows", detail: { tags: ["maintenance"] } })
    .use(authPlugin)
    .guard({ requires: "monitors:read" }, (app) =>
      app
        .get(
          "",
          async ({ actor, query }) => {
            const { page, limit, state } = query;
            const { rows, total } = await listOrgWindows({ sql: deps.sql, actor }, state, limit, (page - 1) * limit);
            return toPage(rows.map((w) => toWindowView(w)), total, page, limit);
          },
          { query: WindowListQuery, response: { 200: paginated(WindowView) }, detail: { summary: "List maintenance windows, newest first; filter by state" } },
        )
        .get("/:id", async ({ actor, params }) => toWindowView(await getWindow({ sql: deps.sql, actor }, params.id)), {
          params: IdParams,
          response: { 200: WindowView },
          detail: { summary: "One maintenance window with its current state" },
        }),
    )
    .guard({ requires: "monitors:write" }, (app) =>
      app
        .post(
          "",
          async ({ actor, body, set }) => {
            set.status = 201;
            return toWindowView(await createWindow({ sql: deps.sql, actor }, body));
          },
          { body: WindowCreateBody, response: { 201: WindowView }, detail: { summary: "Create a one-off or recurring maintenance window" } },
        )
        .patch("/:id", async ({ actor, params, body }) => toWindowView(await patchWindow({ sql: deps.sql, actor }, params.id, body)), {
          params: IdParams,
          body: WindowPatchBody,
          response: { 200: WindowView },
          detail: { summary: "Change a maintenance window; send null to clear starts_at, ends_at, rrule, cron or duration_minutes" },
        })
        .delete(
          "/:id",
          async ({ actor, params, set }) => {
            await removeWindow({ sql: deps.sql, actor }, params.id);
            set.status = 204;
          },
          { params: IdParams, detail: { summary: "Delete a maintenance window" } },
        ),
    );
