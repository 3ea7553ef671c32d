import { Elysia, t } from "elysia";
import { regionCatalog } from "../../../domain/regions/catalog.ts";
import { regionHealth } from "../../../domain/regions/service.ts";
import type { ApiDeps } from "../../context.ts";
import { authPlugin } from "../../middleware/auth.ts";
import { Obj, PaginationQuery, paginated, toPage, Int } from "../../schemas/common.ts";

const RegionView = t.Object(
  {
    id: t.String(),
    city: t.String(),
    status: t.Union([t.Literal("online"), t.Literal("offline")], { description: "online while a worker of the region was seen in the last 15 s" }),
    online_workers: Int(),
    last_seen_at: t.Union([t.String(), t.Null()], { description: "Last heartbeat of any of the region's workers" }),
    in_flight: Int({ description: "Checks running now" }),
    backlog: t.Union([Int(), t.Null()], { description: "Jobs queued for the region; null when the queue could not be read" }),
    p50_latency_ms: t.Union([t.Number(), t.Null()], { description: "Median duration of the region's recent checks" }),
    overloaded: t.Boolean({
      description: "The region is over capacity: due checks wait for its queue to drain, so every monitor is still checked, less often (docs/scheduling.md, Backpressure)",
    }),
    overloaded_since: t.Union([t.String({ format: "date-time" }), t.Null()], { description: "When the current overload began; null while the region keeps up" }),
    schedule_lag_seconds: t.Number({ minimum: 0, description: "How long the oldest due check kept back has waited; 0 while the region keeps up" }),
  },
  { title: "Region" },
);

/** The deployment's cloud regions with their health. */
export const regionRoutes = (deps: ApiDeps) => {
  const regions = regionCatalog(deps.config.REGIONS, deps.config.REGION_LOCATIONS);
  return new Elysia({ prefix: "/regions", detail: { tags: ["regions"] } })
    .use(authPlugin)
    .guard({ requires: "monitors:read" }, (app) =>
      app.get(
        "",
        async ({ query }) => {
          const all = await regionHealth({ sql: deps.sql, bus: deps.bus, regions });
          return toPage(all.slice((query.page - 1) * query.limit, query.page * query.limit), all.length, query.page, query.limit);
        },
        { query: Obj(PaginationQuery), response: { 200: paginated(RegionView) }, detail: { summary: "Cloud regions with workers online, backlog and recent latency" } },
      ),
    );
};
