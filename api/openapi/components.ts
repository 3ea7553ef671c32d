import { Type } from "@sinclair/typebox";
import { configSchemas } from "../../runner/checks/config-schemas.ts";
import { dataSchemas } from "../../runner/checks/data-schemas.ts";
import { WebhookPayload } from "../../alerting/channels/webhook/payload.ts";

const pascal = (s: string) => s.replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase());

/** Schemas the routes reference by name rather than inline: per-type monitor configs and result data, events, webhook payload. */
export const openApiComponents: Record<string, unknown> = {
  ...Object.fromEntries(Object.entries(configSchemas).map(([type, schema]) => [`${pascal(type)}Config`, schema])),
  ...Object.fromEntries(Object.entries(dataSchemas).map(([type, schema]) => [`${pascal(type)}Data`, schema])),
  LiveEvent: Type.Object(
    {
      id: Type.String({ description: "<ms>-<seq>-<process>; send back as Last-Event-ID to resume" }),
      type: Type.Union(
        ["check.result", "monitor.status_changed", "alert.fired", "alert.recovered", "alert.acknowledged", "incident.created", "incident.updated", "incident.resolved"].map((k) =>
          Type.Literal(k),
        ),
      ),
      org_id: Type.String(),
      at: Type.String({ format: "date-time" }),
      data: Type.Record(Type.String(), Type.Unknown(), {
        description:
          "check.result: { monitor_id, location, status, duration_ms, error, checked_at, data }; monitor.status_changed: { monitor_id, from, to, at }; alert.*: { rule_id, monitor_id, region }; incident.*: the incident",
      }),
    },
    { title: "LiveEvent" },
  ),
  WebhookPayload,
};
