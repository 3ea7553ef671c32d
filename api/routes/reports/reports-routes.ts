import { Elysia } from "elysia";
import { createReport, getReport, listOrgReports, patchReport, removeReport, sendReportNow } from "../../../domain/reports/service.ts";
import type { ApiDeps } from "../../context.ts";
import { authPlugin } from "../../middleware/auth.ts";
import { IdParams, paginated, toPage } from "../../schemas/common.ts";
import { ReportCreateBody, ReportListQuery, ReportPatchBody, ReportSendBody, ReportSendResult, ReportView } from "./schemas.ts";
import { toReportView } from "./views.ts";

/** Scheduled report emails (weekly or monthly, per organisation or status page); the alerting role sends them. */
export const reportRoutes = (deps: ApiDeps) =>
  new Elysia({ prefix: "/reports", detail: { tags: ["reports"] } })
    .use(authPlugin)
    .guard({ requires: "alerts:read" }, (app) =>
      app
        .get(
          "",
          async ({ actor, query }) => {
            const { rows, total } = await listOrgReports({ sql: deps.sql, actor }, query.limit, (query.page - 1) * query.limit);
            return toPage(rows.map(toReportView), total, query.page, query.limit);
          },
          { query: ReportListQuery, response: { 200: paginated(ReportView) }, detail: { summary: "List scheduled reports, oldest first" } },
        )
        .get("/:id", async ({ actor, params }) => toReportView(await getReport({ sql: deps.sql, actor }, params.id)), {
          params: IdParams,
          response: { 200: ReportView },
          detail: { summary: "One scheduled report with its recipients and next send" },
        }),
    )
    .guard({ requires: "alerts:write" }, (app) =>
      app
        .post(
          "",
          async ({ actor, body, set }) => {
            set.status = 201;
            return toReportView(await createReport({ sql: deps.sql, actor }, body));
          },
          { body: ReportCreateBody, response: { 201: ReportView }, detail: { summary: "Schedule a weekly or monthly report email" } },
        )
        .patch("/:id", async ({ actor, params, body }) => toReportView(await patchReport({ sql: deps.sql, actor }, params.id, body)), {
          params: IdParams,
          body: ReportPatchBody,
          response: { 200: ReportView },
          detail: { summary: "Change a report; the next send follows the new schedule" },
        })
        .delete(
          "/:id",
          async ({ actor, params, set }) => {
            await removeReport({ sql: deps.sql, actor }, params.id);
            set.status = 204;
          },
          { params: IdParams, detail: { summary: "Delete a report" } },
        )
        .post(
          "/:id/send",
          async ({ actor, params, body, set }) => {
            const { queued, period } = await sendReportNow({ sql: deps.sql, actor }, { box: deps.box, baseUrl: deps.publicBaseUrl }, params.id, body?.to ?? "me");
            set.status = 202;
            return { queued, period_start: period.from.toISOString(), period_end: period.to.toISOString() };
          },
          {
            params: IdParams,
            body: ReportSendBody,
            response: { 202: ReportSendResult },
            detail: { summary: "Send now: the last complete period's report as a preview, to you (default) or to every recipient" },
          },
        ),
    );
