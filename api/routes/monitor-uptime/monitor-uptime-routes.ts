import { Elysia, t } from "elysia";
import { uptimeForMonitors, type UptimeWindow } from "../../../domain/results/uptime.ts";
import type { ApiDeps } from "../../context.ts";
import { authPlugin } from "../../middleware/auth.ts";
import { Obj, Int } from "../../schemas/common.ts";

const MAX_IDS = 100;
const Figures = t.Object({
  uptime_pct: t.Union([t.Number(), t.Null()]),
  total: Int(),
  up: Int(),
  down: Int(),
  degraded: Int(),
  timeout: Int(),
  unavailable: Int(),
  downtime_seconds_estimate: t.Union([t.Number(), t.Null()]),
});

/**
 * Uptime of a page of monitors in one call, so the dashboard overview makes a constant number of
 * requests. Ids of another organisation (or unknown ids) answer with empty figures, never 403.
 */
export const monitorUptimeRoutes = (deps: ApiDeps) =>
  new Elysia({ prefix: "/monitors", detail: { tags: ["monitors"] } })
    .use(authPlugin)
    .guard({ requires: "monitors:read" }, (app) =>
      app.get(
        "/uptime",
        async ({ actor, query }) => {
          const ids = [...new Set(query.ids.split(",").map((s) => s.trim()).filter(Boolean))].slice(0, MAX_IDS);
          const window = (query.window ?? "24h") as UptimeWindow;
          const figures = await uptimeForMonitors(deps.sql, actor.orgId, ids, window);
          return {
            window,
            data: ids.map((id) => {
              const { from: _f, to: _t, locations: _l, ...rest } = figures[id]!;
              return { monitor_id: id, ...rest };
            }),
          };
        },
        {
          query: Obj({
            ids: t.String({ minLength: 1, maxLength: 4000, pattern: "^[A-Za-z0-9_,-]+$", description: `Comma-separated monitor ids, at most ${MAX_IDS}` }),
            window: t.Optional(t.Union([t.Literal("24h"), t.Literal("7d"), t.Literal("30d"), t.Literal("90d")])),
          }),
          response: { 200: t.Object({ window: t.String(), data: t.Array(t.Composite([t.Object({ monitor_id: t.String() }), Figures])) }) },
          detail: { summary: "Uptime of several monitors over one window (24h by default), for list views" },
        },
      ),
    );
