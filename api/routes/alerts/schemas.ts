import { t } from "elysia";
import { Int, Timestamp } from "../../schemas/common.ts";

const nullable = <S extends Parameters<typeof t.Union>[0][number]>(s: S) => t.Union([s, t.Null()]);

export const AlertIdParams = t.Object({
  id: t.String({ minLength: 7, maxLength: 210, description: "`<rule_id>~<monitor_id>~<region>~<incarnation>`: the `alert_id` of active alerts, alert history and notifications" }),
});

export const AlertTimelineView = t.Object(
  {
    id: t.String(),
    rule: t.Object({ id: t.String(), name: t.String() }),
    monitor: t.Object({ id: t.String(), name: t.String(), type: t.String() }),
    region: t.String({ description: "A cloud region or a runner id" }),
    incarnation: Int({ minimum: 1, description: "Which firing period of this rule × monitor × region" }),
    status: t.Union([t.Literal("firing"), t.Literal("acknowledged"), t.Literal("recovered")]),
    started_at: Timestamp,
    recovered_at: nullable(Timestamp),
    checks: t.Array(
      t.Object({
        id: t.String({ description: "The result: GET /monitors/{id}/checks/{checkId}" }),
        checked_at: Timestamp,
        status: t.String({ description: "down, degraded, timeout or unavailable; the last one is `up` when it is the result that cleared the alert" }),
        duration_ms: Int({ minimum: 0 }),
        error: nullable(t.String()),
      }),
      { description: "The failing results from the region, from the run that led to the alert (at most 24 h back) to recovery, at most 500, oldest first; then the passing result that cleared it" },
    ),
    notifications: t.Array(
      t.Object({
        id: t.String({ description: "The delivery; its attempts: GET /alerts/history?delivery_id=" }),
        channel_id: t.String(),
        channel_name: nullable(t.String({ description: "Null when the channel was deleted" })),
        channel_type: nullable(t.String()),
        kind: t.String({ description: "alert, escalation, reminder, recovery or acknowledgement" }),
        seq: Int({ minimum: 0, description: "Which escalation step or reminder" }),
        status: t.Union([t.Literal("pending"), t.Literal("sent"), t.Literal("failed")]),
        attempts: Int({ minimum: 0 }),
        error: nullable(t.String({ description: "The last attempt's error" })),
        created_at: Timestamp,
        sent_at: nullable(Timestamp),
      }),
      { description: "Every notification decided for this alert, in decision order" },
    ),
    acknowledgements: t.Array(t.Object({ by: t.String({ description: "The member's email or the API key's name" }), actor_type: t.Union([t.Literal("user"), t.Literal("api_key")]), at: Timestamp })),
  },
  { description: "One alert (rule × monitor × region, one firing period) from start to recovery" },
);
