import { Elysia, t } from "elysia";
import { monitorMaintenanceSpans } from "../../../domain/maintenance/spans.ts";
import type { ApiDeps } from "../../context.ts";
import { authPlugin } from "../../middleware/auth.ts";
import { IdParams, Obj, Timestamp } from "../../schemas/common.ts";

const SpanView = t.Object({
  window_id: t.String(),
  name: t.String(),
  starts_at: Timestamp,
  ends_at: Timestamp,
  pause_monitors: t.Boolean(),
  suppress_alerts: t.Boolean(),
});

/** The maintenance occurrences covering one monitor: what its charts shade grey. */
export const monitorMaintenanceRoutes = (deps: ApiDeps) =>
  new Elysia({ prefix: "/monitors", detail: { tags: ["maintenance"] } }).use(authPlugin).guard({ requires: "monitors:read" }, (app) =>
    app.get(
      "/:id/maintenance-spans",
      async ({ actor, params, query }) => {
        const to = query.to ? new Date(query.to) : new Date();
        const from = query.from ? new Date(query.from) : new Date(to.getTime() - 86_400_000);
        const spans = await monitorMaintenanceSpans({ sql: deps.sql, actor }, params.id, from, to);
        return { data: spans.map((s) => ({ ...s, starts_at: s.starts_at.toISOString(), ends_at: s.ends_at.toISOString() })) };
      },
      {
        params: IdParams,
        query: Obj({
          from: t.Optional(t.String({ format: "date-time", description: "Start (inclusive); default 24 h before `to`" })),
          to: t.Optional(t.String({ format: "date-time", description: "End (exclusive); default now; at most 400 days after `from`" })),
        }),
        response: { 200: t.Object({ data: t.Array(SpanView, { description: "Oldest first, at most 1,000" }) }) },
        detail: { summary: "Occurrences of the maintenance windows covering the monitor that overlap [from, to)" },
      },
    ),
  );
