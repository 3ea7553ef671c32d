import { Elysia } from "elysia";
import { runMonitorNow } from "../../../domain/monitors/run-now.ts";
import { testMonitorConfig } from "../../../domain/monitors/test-config.ts";
import {
  BULK_CREATE_MAX,
  bulkMonitors,
  createMonitor,
  createMonitors,
  getMonitor,
  listOrgMonitors,
  patchMonitor,
  removeMonitor,
  setMonitorPaused,
} from "../../../domain/monitors/service.ts";
import type { ApiDeps } from "../../context.ts";
import { authPlugin } from "../../middleware/auth.ts";
import { IdParams, paginated, toPage } from "../../schemas/common.ts";
import {
  BulkBody,
  BulkCreateBody,
  BulkCreateResult,
  BulkResult,
  MonitorCreateBody,
  MonitorListQuery,
  MonitorPatchBody,
  MonitorTestBody,
  MonitorTestResult,
  MonitorView,
  RunNowResult,
} from "./schemas.ts";
import { toMonitorView } from "./views.ts";

const baseUrlOf = (deps: ApiDeps) => deps.publicBaseUrl;

/** Monitors of every check type: CRUD, pause/resume (single and bulk), run-now. */
export const monitorRoutes = (deps: ApiDeps) => {
  const settings = { regions: deps.config.REGIONS.split(",") };
  const view = (row: Parameters<typeof toMonitorView>[0]) => toMonitorView(row, deps.box, baseUrlOf(deps));
  const ctx = (actor: Parameters<typeof getMonitor>[0]["actor"]) => ({ sql: deps.sql, actor, box: deps.box, settings });
  return new Elysia({ prefix: "/monitors", detail: { tags: ["monitors"] } })
    .use(authPlugin)
    .guard({ requires: "monitors:read" }, (app) =>
      app
        .get(
          "",
          async ({ actor, query }) => {
            const { page, limit, ...filter } = query;
            const { rows, total } = await listOrgMonitors({ sql: deps.sql, actor }, filter, limit, (page - 1) * limit);
            return toPage(rows.map(view), total, page, limit);
          },
          { query: MonitorListQuery, response: { 200: paginated(MonitorView) }, detail: { summary: "List monitors with filters, newest first unless `sort` says otherwise" } },
        )
        .get("/:id", async ({ actor, params }) => view(await getMonitor({ sql: deps.sql, actor }, params.id)), {
          params: IdParams,
          response: { 200: MonitorView },
          detail: { summary: "One monitor" },
        }),
    )
    .guard({ requires: "monitors:write" }, (app) =>
      app
        .post(
          "",
          async ({ actor, body, set }) => {
            set.status = 201;
            return view(await createMonitor(ctx(actor), body));
          },
          { body: MonitorCreateBody, response: { 201: MonitorView }, detail: { summary: "Create a monitor of any check type" } },
        )
        .post(
          "/test",
          async ({ actor, body }) => {
            const r = await testMonitorConfig({ ...ctx(actor), bus: deps.bus }, body);
            return { status: r.status, duration_ms: r.duration_ms, ...(r.error ? { error: r.error } : {}), data: r.data as Record<string, unknown>, checked_at: r.checked_at, location: r.location };
          },
          {
            body: MonitorTestBody,
            response: { 200: MonitorTestResult },
            detail: { summary: "Run the check of a monitor before saving it, once, and return the result; nothing is stored" },
          },
        )
        .post(
          "/bulk",
          async ({ actor, body, set }) => {
            set.status = 201;
            return { data: (await createMonitors(ctx(actor), body.monitors)).map(view) };
          },
          {
            body: BulkCreateBody,
            response: { 201: BulkCreateResult },
            detail: {
              summary: `Create up to ${BULK_CREATE_MAX} monitors at once, all or none`,
              description: `Every monitor is validated first; any problem refuses the whole request with 400 VALIDATION_ERROR listing each one under body.monitors[i]. Quotas are checked for the batch as a whole (403 ENTITLEMENT_REQUIRED when it does not fit). Answers the created monitors in the order sent. Their first checks are not run in the request: the scheduler runs up to 20 new monitors a second at once and gives the rest their usual slot in the first interval (spread evenly by monitor id).`,
            },
          },
        )
        .patch("/:id", async ({ actor, params, body }) => view(await patchMonitor(ctx(actor), params.id, body)), {
          params: IdParams,
          body: MonitorPatchBody,
          response: { 200: MonitorView },
          detail: { summary: "Change a monitor; edits take effect from its next check" },
        })
        .delete(
          "/:id",
          async ({ actor, params, set }) => {
            await removeMonitor({ sql: deps.sql, actor }, params.id);
            set.status = 204;
          },
          { params: IdParams, detail: { summary: "Delete a monitor and its results" } },
        )
        .post("/:id/pause", async ({ actor, params }) => view(await setMonitorPaused({ sql: deps.sql, actor }, params.id, true)), {
          params: IdParams,
          response: { 200: MonitorView },
          detail: { summary: "Pause a monitor (harmless when already paused)" },
        })
        .post("/:id/resume", async ({ actor, params }) => view(await setMonitorPaused({ sql: deps.sql, actor }, params.id, false)), {
          params: IdParams,
          response: { 200: MonitorView },
          detail: { summary: "Resume a paused monitor" },
        })
        .post(
          "/:id/run",
          async ({ actor, params }) => {
            const r = await runMonitorNow({ sql: deps.sql, bus: deps.bus, log: deps.log }, await getMonitor({ sql: deps.sql, actor }, params.id));
            return { id: r.id, status: r.status, duration_ms: r.duration_ms, ...(r.error ? { error: r.error } : {}), data: r.data as Record<string, unknown>, checked_at: r.checked_at, location: r.location, recorded: r.recorded };
          },
          {
            params: IdParams,
            response: { 200: RunNowResult },
            detail: {
              summary: "Run the check now where the monitor runs and return the result; it is also recorded like a scheduled check (stored, moves the status, evaluated by alert rules) unless the monitor is paused or suspended",
              description:
                "The check runs on the monitor's first assigned runner that is online, else on a worker of its first region (for browser monitors, one with a browser of the monitor's engine), exactly as a scheduled check. The API runs no checks itself. When no worker of the region is connected the answer is 503 SERVICE_UNAVAILABLE with details.reason no_worker (and the engine for browser monitors); when the worker or runner does not answer within the check's timeout plus a grace, 503 with reason timeout; with no region and no online runner, 503 runner_offline (or no_location when it has neither). 503s carry Retry-After; the monitor keeps running on schedule. A failed browser check's screenshot is stored with the recorded result (GET /monitors/:id/checks/:checkId/screenshot).",
            },
          },
        )
        .post("/bulk/pause", ({ actor, body }) => bulkMonitors({ sql: deps.sql, actor }, "pause", body), {
          body: BulkBody,
          response: { 200: BulkResult },
          detail: { summary: "Pause every monitor matching ids and/or tag" },
        })
        .post("/bulk/resume", ({ actor, body }) => bulkMonitors({ sql: deps.sql, actor }, "resume", body), {
          body: BulkBody,
          response: { 200: BulkResult },
          detail: { summary: "Resume every monitor matching ids and/or tag" },
        })
        .post("/bulk/delete", ({ actor, body }) => bulkMonitors({ sql: deps.sql, actor }, "delete", body), {
          body: BulkBody,
          response: { 200: BulkResult },
          detail: { summary: "Delete every monitor matching ids and/or tag" },
        }),
    );
};

