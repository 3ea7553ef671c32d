import { Elysia, t } from "elysia";
import { notFound } from "../../../core/errors.ts";
import { countUnread, listNotifications, markAllRead, markRead, type NotificationRow } from "../../../db/queries/alert-notifications.ts";
import type { ApiDeps } from "../../context.ts";
import { authPlugin } from "../../middleware/auth.ts";
import { IdParams, Obj, PaginationQuery, paginated, Timestamp, toPage, Int } from "../../schemas/common.ts";

const NotificationView = t.Object({
  id: t.String(),
  type: t.String({
    description:
      "alert.fired, alert.recovered, delivery.failed (a notification given up on); runner.offline, runner.online; billing.subscribed, billing.plan_changed, billing.payment_failed, billing.payment_recovered, billing.past_due, billing.cancellation_scheduled, billing.resumed, billing.cancelled, billing.overlap",
  }),
  title: t.String(),
  body: t.String(),
  data: t.Record(t.String(), t.Unknown()),
  read: t.Boolean(),
  read_at: t.Union([Timestamp, t.Null()]),
  created_at: Timestamp,
});
const view = (r: NotificationRow) => ({
  id: r.id,
  type: r.type,
  title: r.title,
  body: r.body,
  data: r.data,
  read: r.read_at !== null,
  read_at: r.read_at?.toISOString() ?? null,
  created_at: r.created_at.toISOString(),
});

/** The organisation's in-app feed: alerts fired and recovered, deliveries that failed for good, runners going offline, billing events. */
export const notificationRoutes = (deps: ApiDeps) =>
  new Elysia({ prefix: "/notifications", detail: { tags: ["alerting"] } })
    .use(authPlugin)
    .guard({ requires: "alerts:read" }, (app) =>
      app
        .get(
          "",
          async ({ actor, query }) => {
            const { rows, total } = await listNotifications(deps.sql, actor.orgId, query.unread ?? false, query.limit, (query.page - 1) * query.limit);
            return toPage(rows.map(view), total, query.page, query.limit);
          },
          {
            query: Obj({ ...PaginationQuery, unread: t.Optional(t.Boolean({ description: "Only unread ones" })) }),
            response: { 200: paginated(NotificationView) },
            detail: { summary: "In-app notifications, newest first" },
          },
        )
        .get("/unread-count", async ({ actor }) => ({ unread: await countUnread(deps.sql, actor.orgId) }), {
          response: { 200: t.Object({ unread: Int() }) },
          detail: { summary: "How many notifications are unread" },
        })
        .post(
          "/:id/read",
          async ({ actor, params }) => {
            const row = await markRead(deps.sql, actor.orgId, params.id);
            if (!row) throw notFound("Notification");
            return view(row);
          },
          { params: IdParams, response: { 200: NotificationView }, detail: { summary: "Mark one notification read (harmless to repeat)" } },
        )
        .post("/read-all", async ({ actor }) => ({ marked: await markAllRead(deps.sql, actor.orgId) }), {
          response: { 200: t.Object({ marked: Int() }) },
          detail: { summary: "Mark every notification read" },
        }),
    );
