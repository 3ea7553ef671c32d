import { type Static, Type } from "@sinclair/typebox";
import { alertEventKinds } from "../channels/channel-spec.ts";

/**
 * Body of every generic webhook delivery (JSON, UTF-8). Version 1; fields may be added
 * without a version change, never removed or retyped. Included in the OpenAPI document.
 */
export const WebhookPayload = Type.Object(
  {
    version: Type.Literal(1),
    id: Type.String({ description: "Delivery id, the same on every retry of one delivery (also the webhook-id header); use it to drop duplicates" }),
    kind: Type.Union(alertEventKinds.map((k) => Type.Literal(k)), { description: "What happened (also the X-Watchpost-Event header)" }),
    dedup_key: Type.String({ description: "Stable for one alert incarnation: the alert, its escalations, reminders, acknowledgement and recovery share it" }),
    occurred_at: Type.String({ format: "date-time" }),
    started_at: Type.String({ format: "date-time", description: "When the alert started firing" }),
    org: Type.Object({ id: Type.String(), name: Type.String() }),
    rule: Type.Object({ id: Type.String(), name: Type.String() }),
    monitor: Type.Object({ id: Type.String(), name: Type.String(), type: Type.String(), target: Type.Optional(Type.String()) }),
    region: Type.String({ description: "Where the check ran: a region's id, a runner's id (run_…), heartbeat, or none (a monitor left with no region or runner)" }),
    region_name: Type.String({ description: "The same as people know it: the region's id, or `runner <its name>`" }),
    closed: Type.Optional(
      Type.Literal("location_removed", { description: "On a recovery that is not one: the monitor no longer checks from this location, so the alert there is closed" }),
    ),
    status: Type.String({ description: "Status of the check that caused this event: up, down, degraded, timeout, ..." }),
    condition: Type.String({ description: "The rule's condition in words" }),
    result: Type.Object({
      duration_ms: Type.Number(),
      error: Type.Optional(Type.String()),
      data: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: "Check-type specific result fields" })),
    }),
    links: Type.Object({
      monitor: Type.Optional(Type.String({ format: "uri" })),
      acknowledge: Type.Optional(Type.String({ format: "uri", description: "The dashboard's firing-alerts page, where a signed-in member acknowledges this alert (problems only: alert, escalation, reminder)" })),
    }),
    message: Type.Optional(
      Type.Object(
        {
          title: Type.Optional(Type.String({ description: "The channel's title template, rendered" })),
          body: Type.Optional(Type.String({ description: "The channel's body template, rendered" })),
        },
        { additionalProperties: false, description: "Present when the channel has a message template: its rendered title and body, plain text (values are not escaped beyond JSON)" },
      ),
    ),
  },
  { $id: "WebhookPayload", title: "Webhook channel delivery", additionalProperties: false },
);
export type WebhookPayload = Static<typeof WebhookPayload>;
