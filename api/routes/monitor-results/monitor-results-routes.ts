import { Elysia } from "elysia";
import { toResultView } from "../../../domain/results/export.ts";
import {
  exportMonitorChecks,
  getMonitorAggregates,
  getMonitorCheck,
  getMonitorUptime,
  listMonitorChecks,
} from "../../../domain/results/monitor-results.ts";
import { locationTypeOf } from "../../../domain/results/types.ts";
import type { Uptime } from "../../../domain/results/uptime.ts";
import type { ApiDeps } from "../../context.ts";
import { authPlugin } from "../../middleware/auth.ts";
import { paginated, toPage } from "../../schemas/common.ts";
import {
  AggregatesQuery,
  AggregatesView,
  CheckParams,
  CheckResultView,
  ChecksQuery,
  ExportQuery,
  MonitorParams,
  MonitorUptimeView,
  UptimeQuery,
} from "./schemas.ts";

const date = (s: string | undefined) => (s === undefined ? undefined : new Date(s));

const uptimeView = (u: Uptime) => ({
  from: u.from.toISOString(),
  to: u.to.toISOString(),
  uptime_pct: u.uptime_pct,
  total: u.total,
  up: u.up,
  down: u.down,
  degraded: u.degraded,
  timeout: u.timeout,
  unavailable: u.unavailable,
  downtime_seconds_estimate: u.downtime_seconds_estimate,
  locations: (u.locations ?? []).map((l) => ({ ...l, location_type: locationTypeOf(l.location) })),
});

/** A monitor's check results (list, detail, export), uptime and aggregates. Another organisation's monitor is 404. */
export const monitorResultRoutes = (deps: ApiDeps) =>
  new Elysia({ prefix: "/monitors", detail: { tags: ["monitors"] } }).use(authPlugin).guard({ requires: "monitors:read" }, (app) =>
    app
      .get(
        "/:id/checks",
        async ({ actor, params, query }) => {
          const { page, limit } = query;
          const result = await listMonitorChecks({ sql: deps.sql, actor }, params.id, {
            page,
            limit,
            status: query.status,
            location: query.location,
            from: date(query.from),
            to: date(query.to),
          });
          return toPage(result.items.map(toResultView), result.total, page, limit);
        },
        {
          params: MonitorParams,
          query: ChecksQuery,
          response: { 200: paginated(CheckResultView) },
          detail: {
            summary: "Raw check results, newest first by due time",
            description:
              "Filters: status, location (region name or runner id) and [from, to) by due time. Without `from` the range starts at the retention window (GET /retention); `to` defaults to now.",
          },
        },
      )
      .get(
        "/:id/checks/export",
        async ({ actor, params, query }) => {
          const out = await exportMonitorChecks({ sql: deps.sql, actor }, params.id, {
            format: query.format ?? "csv",
            status: query.status,
            location: query.location,
            from: date(query.from),
            to: date(query.to),
            onError: (err) => deps.log.error({ op: "results.export", monitorId: params.id, err }, "export failed after it started; the transfer is cut"),
          });
          return new Response(out.body, {
            headers: { "content-type": out.contentType, "content-disposition": `attachment; filename="${out.filename}"`, "cache-control": "no-store" },
          });
        },
        {
          params: MonitorParams,
          query: ExportQuery,
          detail: {
            summary: "Export check results as CSV or JSON, streamed",
            description:
              "Every result matching the filters in due-time order (oldest first), streamed from a database cursor a batch at a time. CSV columns: id, scheduled_at, checked_at, status, duration_ms, location, location_type, error, job_id, then `data.<field>` for each data field of the monitor's check type, then `data` (the whole object as JSON). Text cells starting with = + - @ are prefixed with ' (spreadsheet formula injection). JSON: an array of CheckResult.",
            responses: {
              200: {
                description: "The export, as an attachment",
                content: {
                  "text/csv": { schema: { type: "string" } },
                  "application/json": { schema: { type: "array", items: CheckResultView as never } },
                },
              },
            },
          },
        },
      )
      .get(
        "/:id/checks/:checkId",
        async ({ actor, params }) => toResultView(await getMonitorCheck({ sql: deps.sql, actor }, params.id, params.checkId)),
        { params: CheckParams, response: { 200: CheckResultView }, detail: { summary: "One check result with all its data" } },
      )
      .get(
        "/:id/uptime",
        async ({ actor, params, query }) => {
          const u = await getMonitorUptime({ sql: deps.sql, actor }, params.id, { from: date(query.from), to: date(query.to) });
          return {
            monitor_id: params.id,
            windows: {
              "24h": uptimeView(u.windows["24h"]),
              "7d": uptimeView(u.windows["7d"]),
              "30d": uptimeView(u.windows["30d"]),
              "90d": uptimeView(u.windows["90d"]),
            },
            range: u.range ? uptimeView(u.range) : null,
          };
        },
        {
          params: MonitorParams,
          query: UptimeQuery,
          response: { 200: MonitorUptimeView },
          detail: {
            summary: "Uptime over the last 24 h, 7, 30 and 90 days and an optional custom range, overall and per region or runner",
            description: "degraded counts as up, timeout as down, unavailable (monitoring gap) is left out; see docs/results-and-uptime.md.",
          },
        },
      )
      .get(
        "/:id/aggregates",
        async ({ actor, params, query }) => {
          const bucket = query.bucket ?? "hour";
          const a = await getMonitorAggregates({ sql: deps.sql, actor }, params.id, { bucket, from: date(query.from), to: date(query.to), location: query.location });
          return {
            monitor_id: params.id,
            bucket,
            from: a.from.toISOString(),
            to: a.to.toISOString(),
            location: query.location ?? null,
            data: a.buckets.map((b) => ({ ...b, start: b.start.toISOString() })),
          };
        },
        {
          params: MonitorParams,
          query: AggregatesQuery,
          response: { 200: AggregatesView },
          detail: { summary: "Hourly or daily buckets: check count, uptime %, average, p50, p95, p99 and maximum response time", description: "At most 10,000 buckets per request." },
        },
      ),
  );
