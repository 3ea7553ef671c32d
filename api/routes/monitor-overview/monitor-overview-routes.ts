import { Elysia, t } from "elysia";
import { monitorsOverview } from "../../../domain/monitors/overview.ts";
import type { ApiDeps } from "../../context.ts";
import { authPlugin } from "../../middleware/auth.ts";
import { Int, Obj, PaginationMeta, PaginationQuery, Timestamp } from "../../schemas/common.ts";
import { MonitorListQuery, MonitorView } from "../monitors/schemas.ts";
import { toMonitorView } from "../monitors/views.ts";

const STATES = ["up", "down", "degraded", "paused", "not_monitored"] as const;
const ResultStatus = t.Union(["up", "down", "degraded", "timeout", "unavailable"].map((s) => t.Literal(s)));

const OverviewQuery = Obj({
  ...PaginationQuery,
  limit: t.Integer({ minimum: 1, maximum: 100, default: 100, description: "Page size, 1 to 100" }),
  type: t.Optional(MonitorListQuery.properties.type),
  tag: t.Optional(MonitorListQuery.properties.tag),
  search: t.Optional(MonitorListQuery.properties.search),
  state: t.Optional(t.Union(STATES.map((s) => t.Literal(s)), { description: "Only monitors in this bucket of `counts`" })),
  sort: t.Optional(t.Union([t.Literal("status"), t.Literal("name"), t.Literal("response_time"), t.Literal("created")], { default: "status", description: "status (default): worst first — down, timeout, degraded, pending, up; paused last" })),
  bars: t.Integer({ minimum: 30, maximum: 90, default: 60, description: "How many of each monitor's latest results to return in `bar`, 30 to 90" }),
});

const BarEntry = t.Object(
  {
    at: Timestamp,
    status: ResultStatus,
    duration_ms: t.Union([Int(), t.Null()]),
    location: t.String({ description: "Region or runner id the check ran from" }),
  },
  { title: "MonitorBarEntry" },
);

const StateCounts = t.Object(
  { up: Int(), down: Int(), degraded: Int(), paused: Int(), not_monitored: Int(), total: Int() },
  { title: "MonitorStateCounts", description: "Every monitor of the organisation in exactly one bucket (whatever the filters): paused; not_monitored (suspended by the plan, nowhere to run, or no result yet); down (down or timeout); degraded; up." },
);

const OverviewItem = t.Object({
  monitor: MonitorView,
  uptime_24h_pct: t.Union([t.Number(), t.Null()], { description: "Uptime over the last 24 hours; null without results" }),
  bar: t.Array(BarEntry, { description: "The latest results (at most `bars`, from the last 7 days, every location), oldest first" }),
});

/** The dashboard's first screen in one call: bucket counts, a page of monitors with 24 h uptime and a bar of recent results. */
export const monitorOverviewRoutes = (deps: ApiDeps) =>
  new Elysia({ prefix: "/monitors", detail: { tags: ["monitors"] } })
    .use(authPlugin)
    .guard({ requires: "monitors:read" }, (app) =>
      app.get(
        "/overview",
        async ({ actor, query }) => {
          const { page, limit, bars, ...filter } = query;
          const o = await monitorsOverview({ sql: deps.sql, actor }, filter, { limit, offset: (page - 1) * limit, bars });
          const totalPages = Math.ceil(o.total / limit);
          return {
            counts: o.counts,
            data: o.rows.map((r) => ({
              monitor: toMonitorView(r.monitor, deps.box, deps.publicBaseUrl),
              uptime_24h_pct: r.uptime24h,
              bar: r.bar.map((b) => ({ at: b.scheduled_at.toISOString(), status: b.status as never, duration_ms: b.duration_ms, location: b.location })),
            })),
            pagination: { page, limit, total: o.total, totalPages, hasMore: page < totalPages },
          };
        },
        {
          query: OverviewQuery,
          response: { 200: t.Object({ counts: StateCounts, data: t.Array(OverviewItem), pagination: PaginationMeta }) },
          detail: { summary: "The monitors overview: counts by state, and a page of monitors (worst first) with 24 h uptime and their latest results" },
        },
      ),
    );
