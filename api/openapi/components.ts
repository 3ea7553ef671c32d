import { Type } from "@sinclair/typebox";
import { configSchemas, dataSchemas } from "../../schemas/check-types.ts";
import { WebhookPayload } from "../../schemas/alerting/webhook-payload.ts";
import { channelConfigSchemas, channelSpecOf, channelTypes, type ChannelType } from "../../schemas/channel-types.ts";
import { conditionSchemas } from "../../schemas/alerting/conditions.ts";
import { allMetricNames, metricsByMonitorType } from "../../schemas/checks/metric-names.ts";
import { assertionOutcomeSchema, assertionSchema } from "../../schemas/checks/assertion-schema.ts";
import { scopeSchemas } from "../../schemas/alerting/rule-input.ts";
import { AlertEvent, CheckResultEvent, liveEventSchema, MonitorStatusChangedEvent } from "../../schemas/events/live-event-schemas.ts";
import type { LiveEventType } from "../../schemas/events/live-event-types.ts";
import { IncidentView } from "../routes/incidents/schemas.ts";
import { MonitorView } from "../routes/monitors/schemas.ts";
import { CheckResultView } from "../routes/monitor-results/schemas.ts";
import { RuleView } from "../routes/alert-rules/schemas.ts";
import { SsoConfigView } from "../routes/org/sso-schemas.ts";
import { PaginationMeta } from "../schemas/common.ts";
import { ChannelView } from "../routes/alert-channels/schemas.ts";
import { AlertTimelineView } from "../routes/alerts/schemas.ts";
import { pascal } from "./typed-config.ts";

/** Which event names each live-event schema carries (the discriminator of LiveEvent). */
const LIVE_EVENT_NAMES = {
  CheckResultEvent: ["check.result"],
  MonitorStatusChangedEvent: ["monitor.status_changed"],
  AlertEvent: ["alert.fired", "alert.recovered", "alert.acknowledged"],
  IncidentEvent: ["incident.created", "incident.updated", "incident.resolved"],
} as const satisfies Record<string, readonly LiveEventType[]>;
/** Type-checking fails here when a LiveEventType has no payload schema above. */
type Undocumented = Exclude<LiveEventType, (typeof LIVE_EVENT_NAMES)[keyof typeof LIVE_EVENT_NAMES][number]>;
const everyEventDocumented: [Undocumented] extends [never] ? true : Undocumented = true;
void everyEventDocumented;
const LIVE_EVENTS = Object.keys(LIVE_EVENT_NAMES);


/**
 * The component that types a value for each type, by registry: a body's `config` marked
 * `x-config-of: "check" | "channel"` becomes one variant per type, and a property marked
 * `x-one-of: "condition" | "scope"` one of that registry's schemas, in the document (api/openapi/typed-config.ts).
 */
export const typedConfigRefs: Record<string, Record<string, string>> = {
  check: Object.fromEntries(Object.keys(configSchemas).map((type) => [type, `${pascal(type)}Config`])),
  channel: Object.fromEntries(Object.keys(channelConfigSchemas).map((type) => [type, `${pascal(type)}ChannelConfig`])),
  // Answers show a channel's secret fields masked, which its request schema would refuse (a masked url is no URL).
  masked_channel: Object.fromEntries(channelTypes.map((type) => [type, `${pascal(type)}ChannelConfigMasked`])),
  condition: Object.fromEntries(Object.keys(conditionSchemas).map((type) => [type, `${pascal(type)}Condition`])),
  scope: Object.fromEntries(Object.keys(scopeSchemas).map((type) => [type, `${pascal(type)}Scope`])),
};

/** Parts several check types' configs and data share (http and keyword assertions): one component each, referred to by $ref. */
const SHARED_PARTS: Record<string, { title?: string }> = { HttpAssertion: assertionSchema, HttpAssertionOutcome: assertionOutcomeSchema };

/** A copy of a schema where each shared part (known by its title) is a $ref to its component. */
function referToSharedParts(node: unknown): unknown {
  if (!node || typeof node !== "object") return node;
  if (Array.isArray(node)) return node.map(referToSharedParts);
  const title = (node as { title?: unknown }).title;
  if (typeof title === "string" && SHARED_PARTS[title] === node) return { $ref: `#/components/schemas/${title}` };
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, referToSharedParts(v)]));
}

/** Schemas the routes reference by name rather than inline: per-type monitor and channel configs, result data, events, webhook payload. */
export const openApiComponents: Record<string, unknown> = {
  ...SHARED_PARTS,
  ...Object.fromEntries(Object.entries(configSchemas).map(([type, schema]) => [`${pascal(type)}Config`, referToSharedParts(schema)])),
  ...Object.fromEntries(Object.entries(channelConfigSchemas).map(([type, schema]) => [`${pascal(type)}ChannelConfig`, schema])),
  ...Object.fromEntries(channelTypes.map((type) => [`${pascal(type)}ChannelConfigMasked`, maskedChannelConfig(type)])),
  ...Object.fromEntries(Object.entries(conditionSchemas).map(([type, schema]) => [`${pascal(type)}Condition`, schema])),
  MetricThresholdCondition: metricThresholdCondition(),
  ...Object.fromEntries(Object.entries(scopeSchemas).map(([type, schema]) => [`${pascal(type)}Scope`, schema])),
  ...Object.fromEntries(Object.entries(dataSchemas).map(([type, schema]) => [`${pascal(type)}Data`, referToSharedParts(schema)])),
  CheckResultEvent,
  MonitorStatusChangedEvent,
  AlertEvent,
  IncidentEvent: liveEventSchema(
    [...LIVE_EVENT_NAMES.IncidentEvent],
    IncidentView,
    "IncidentEvent",
    "An incident was created, changed (including a posted update) or resolved; data is the incident as GET /incidents/{id} answers it.",
  ),
  LiveEvent: {
    title: "LiveEvent",
    description: "One message of GET /events: the SSE `event` field is `type`, the SSE `id` field is `id`, and the SSE `data` field is this whole object as JSON.",
    oneOf: LIVE_EVENTS.map((name) => ({ $ref: `#/components/schemas/${name}` })),
    discriminator: {
      propertyName: "type",
      mapping: Object.fromEntries(
        Object.entries(LIVE_EVENT_NAMES).flatMap(([schema, types]) => types.map((type) => [type, `#/components/schemas/${schema}`])),
      ),
    },
  },
  WebhookPayload,
  // Shapes many responses share: the document names them and responses refer to them (api/openapi/document.ts);
  // a `config` marked x-config-of makes one component per type (HttpMonitor, WebhookAlertChannel) (api/openapi/typed-config.ts).
  Monitor: MonitorView,
  CheckResult: CheckResultView,
  AlertRule: RuleView,
  AlertChannel: ChannelView,
  Pagination: PaginationMeta,
  SsoConfig: SsoConfigView,
  AlertTimeline: AlertTimelineView,
};

/** metric_threshold names a metric its monitor's type reports: the document enumerates them (schemas/checks/metric-names.ts). */
function metricThresholdCondition() {
  const schema = conditionSchemas.metric_threshold;
  const byType = Object.entries(metricsByMonitorType).map(([type, names]) => `${type}: ${names.join(", ")}`).join("; ");
  const metric = { ...schema.properties.metric, enum: [...allMetricNames], description: `By monitor type: ${byType}. Another name is refused with 400 (details.metrics_by_monitor_type).` };
  return { ...schema, properties: { ...schema.properties, metric } };
}

type PropertySchema = { type?: string; description?: string };
/**
 * A channel's config as answers show it (alerting/service/channel-config.ts, maskSecrets): each secret field
 * is `••••` (plus its last 4 characters when it has 12 or more), a secret record (webhook headers) keeps its
 * names and masks each value; the other fields are as the request schema says.
 */
function maskedChannelConfig(type: ChannelType) {
  const spec = channelSpecOf(type);
  const properties = Object.fromEntries(
    Object.entries(spec.config.properties as Record<string, PropertySchema>).map(([name, p]) => {
      if (!spec.secretFields.includes(name)) return [name, p];
      const description = `${p.description ? `${p.description}. ` : ""}Answered masked: •••• plus the last 4 characters when it has 12 or more; send the masked value back to keep it.`;
      return [name, p.type === "object" ? { type: "object", additionalProperties: { type: "string" }, description } : { type: "string", description }];
    }),
  );
  return {
    ...spec.config,
    title: `${pascal(type)}ChannelConfigMasked`,
    description: `${pascal(type)}ChannelConfig as answers show it: secret fields (${spec.secretFields.join(", ") || "none"}) masked.`,
    properties,
  };
}
