import { Elysia, t } from "elysia";
import { regionCatalog } from "../../../domain/regions/catalog.ts";
import { planLocations } from "../../../domain/regions/service.ts";
import type { ApiDeps } from "../../context.ts";
import { authPlugin } from "../../middleware/auth.ts";
import { Obj, PaginationQuery, paginated, toPage, Int } from "../../schemas/common.ts";

const LocationView = t.Object(
  {
    id: t.String({ description: "Region id to put in a monitor's regions" }),
    city: t.String(),
    type: t.Literal("region"),
    usable: t.Boolean({ description: "Whether the organisation's plan can check from here" }),
    max_regions_per_monitor: Int({ description: "Regions one monitor may check from at once on the plan" }),
  },
  { title: "Location" },
);

/** The cities the organisation's plan can check from. */
export const locationRoutes = (deps: ApiDeps) => {
  const regions = regionCatalog(deps.config.REGIONS, deps.config.REGION_LOCATIONS);
  return new Elysia({ prefix: "/locations", detail: { tags: ["regions"] } })
    .use(authPlugin)
    .guard({ requires: "monitors:read" }, (app) =>
      app.get(
        "",
        async ({ actor, query }) => {
          const all = await planLocations({ sql: deps.sql, actor, regions });
          return toPage(all.slice((query.page - 1) * query.limit, query.page * query.limit), all.length, query.page, query.limit);
        },
        { query: Obj(PaginationQuery), response: { 200: paginated(LocationView) }, detail: { summary: "Locations the plan can check from" } },
      ),
    );
};
