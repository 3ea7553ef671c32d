import { type Static, type TSchema, Type } from "@sinclair/typebox";

/**
 * The payloads of the live stream (`events.<orgId>`, GET /api/v1/events), one schema per event
 * name. Publishers build them from these types and the OpenAPI document publishes the same
 * schemas, so the two cannot drift apart (a test validates emitted events against them).
 */

const ResultStatus = Type.Union(["up", "down", "degraded", "timeout", "unavailable"].map((s) => Type.Literal(s)), {
  description: "unavailable = monitoring_unavailable: no region or runner could run the check (a gap, not downtime)",
});
const MonitorStatus = Type.Union(["pending", "up", "down", "degraded", "timeout"].map((s) => Type.Literal(s)), {
  description: "pending until the first result",
});
const Time = Type.String({ format: "date-time" });

export const CheckResultEventData = Type.Object(
  {
    id: Type.String({ description: "The stored result's id (GET /monitors/{id}/checks/{checkId})" }),
    monitor_id: Type.String(),
    location: Type.String({ description: "Region name or runner id the check ran from" }),
    location_type: Type.Union([Type.Literal("region"), Type.Literal("runner")]),
    scheduled_at: Type.String({ format: "date-time", description: "The due time the check was planned for" }),
    status: ResultStatus,
    duration_ms: Type.Integer({ minimum: 0 }),
    error: Type.Union([Type.String(), Type.Null()]),
    checked_at: Time,
    data: Type.Record(Type.String(), Type.Unknown(), { description: "The check type's measurements: components.schemas.<Type>Data (e.g. HttpData)" }),
  },
  { additionalProperties: false },
);

export const MonitorStatusChangedEventData = Type.Object(
  {
    monitor_id: Type.String(),
    from: MonitorStatus,
    to: MonitorStatus,
    at: Type.String({ format: "date-time", description: "checked_at of the result that changed it" }),
  },
  { additionalProperties: false },
);

const AlertEventData = Type.Object(
  {
    rule_id: Type.String(),
    rule_name: Type.String(),
    monitor_id: Type.String(),
    monitor_name: Type.String(),
    region: Type.String({ description: "The location (region name or runner id) whose results drive this alert state" }),
    incarnation: Type.Integer({ minimum: 0, description: "Counts the alert's firings; acknowledgements and recoveries carry the one they end" }),
    at: Time,
  },
  { additionalProperties: false },
);

export type CheckResultEventData = Static<typeof CheckResultEventData>;
export type MonitorStatusChangedEventData = Static<typeof MonitorStatusChangedEventData>;

/** The envelope every event travels in, with `type` fixed to the given names and `data` of the given schema. */
export function liveEventSchema(types: string[], data: TSchema, title: string, description: string) {
  return Type.Object(
    {
      id: Type.String({ description: "<ms>-<seq>-<process>; also the SSE id: send it back as Last-Event-ID to resume" }),
      type: types.length === 1 ? Type.Literal(types[0]!) : Type.Union(types.map((t) => Type.Literal(t))),
      org_id: Type.String(),
      at: Type.String({ format: "date-time", description: "When the event was published" }),
      data,
    },
    { title, description },
  );
}

export const CheckResultEvent = liveEventSchema(["check.result"], CheckResultEventData, "CheckResultEvent", "A check result was stored (once per result, also for unavailable ones).");
export const MonitorStatusChangedEvent = liveEventSchema(
  ["monitor.status_changed"],
  MonitorStatusChangedEventData,
  "MonitorStatusChangedEvent",
  "A monitor's current status changed (unavailable results never change it).",
);
export const AlertEvent = liveEventSchema(
  ["alert.fired", "alert.recovered", "alert.acknowledged"],
  AlertEventData,
  "AlertEvent",
  "An alert state of a rule and monitor (and region) fired, recovered or was acknowledged.",
);
