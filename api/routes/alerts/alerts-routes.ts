import { Elysia, t } from "elysia";
import { type HistoryRow, listHistory } from "../../../db/queries/alert-deliveries.ts";
import { getAlertTimeline } from "../../../alerting/service/timeline.ts";
import { alertId } from "../../../schemas/alerting/alert-id.ts";
import type { ApiDeps } from "../../context.ts";
import { authPlugin } from "../../middleware/auth.ts";
import { Id, Obj, PaginationQuery, paginated, Timestamp, toPage, Int } from "../../schemas/common.ts";
import { AlertIdParams, AlertTimelineView } from "./schemas.ts";

const HistoryView = t.Object({
  id: t.String(),
  alert_id: t.Union([t.String(), t.Null()], { description: "The alert this attempt belongs to: GET /alerts/{id}/timeline (null for a test send)" }),
  delivery_id: t.String({ description: "Every attempt of one delivery shares it" }),
  rule_id: t.String(),
  monitor_id: t.String(),
  region: t.String(),
  channel_id: t.String(),
  channel_type: t.Union([t.String(), t.Null()]),
  kind: t.String({ description: "alert, escalation, reminder, recovery or acknowledgement" }),
  attempt: Int(),
  status: t.String({ description: "sent, retrying (failed, will retry) or failed (gave up)" }),
  http_status: t.Union([Int(), t.Null()]),
  error: t.Union([t.String(), t.Null()]),
  duration_ms: t.Union([Int(), t.Null()]),
  created_at: Timestamp,
});
const view = ({ incarnation, ...r }: HistoryRow) => ({
  ...r,
  alert_id: incarnation === null ? null : alertId({ ...r, incarnation }),
  created_at: r.created_at.toISOString(),
});

/** Alert history (every delivery attempt, failed or not) and the timeline of one alert. */
export const alertHistoryRoutes = (deps: ApiDeps) =>
  new Elysia({ prefix: "/alerts", detail: { tags: ["alerting"] } })
    .use(authPlugin)
    .guard({ requires: "alerts:read" }, (app) =>
      app.get(
        "/history",
        async ({ actor, query }) => {
          const { page, limit, ...filter } = query;
          const { rows, total } = await listHistory(deps.sql, actor.orgId, filter, limit, (page - 1) * limit);
          return toPage(
            rows.map((r) => {
              const { total: _t, org_id: _o, ...rest } = r as HistoryRow & { total?: number };
              return view(rest as HistoryRow);
            }),
            total,
            page,
            limit,
          );
        },
        {
          query: Obj({
            ...PaginationQuery,
            rule_id: t.Optional(Id),
            monitor_id: t.Optional(Id),
            channel_id: t.Optional(Id),
            region: t.Optional(t.String({ minLength: 1, maxLength: 64, description: "A cloud region or a runner id" })),
            delivery_id: t.Optional(t.String({ minLength: 1, maxLength: 64, description: "Every attempt of one delivery" })),
            kind: t.Optional(t.Union([t.Literal("alert"), t.Literal("escalation"), t.Literal("reminder"), t.Literal("recovery"), t.Literal("acknowledgement")])),
            status: t.Optional(t.Union([t.Literal("sent"), t.Literal("retrying"), t.Literal("failed")])),
            from: t.Optional(Timestamp),
            to: t.Optional(Timestamp),
          }),
          response: { 200: paginated(HistoryView) },
          detail: { summary: "Every notification attempt, newest first; filters rule_id, monitor_id, channel_id, region, delivery_id, kind, status, from (inclusive), to (exclusive)" },
        },
      ).get("/:id/timeline", ({ actor, params }) => getAlertTimeline({ sql: deps.sql, actor }, params.id), {
        params: AlertIdParams,
        response: { 200: AlertTimelineView },
        detail: { summary: "One alert from start to recovery: failing results, notifications with their delivery status, acknowledgements" },
      }),
    );
