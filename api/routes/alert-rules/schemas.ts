import { t } from "elysia";
import { allMetricNames, metricsByMonitorType } from "../../../schemas/checks/metric-names.ts";
import { Id, Obj, PaginationQuery, Timestamp, DisplayName, Int } from "../../schemas/common.ts";

const Name = DisplayName(200);
const Scope = t.Object(
  { type: t.String({ description: "monitor (with monitor_id), monitor_group (with tag) or all_monitors" }) },
  { additionalProperties: true, description: "Exactly one of {type: monitor, monitor_id}, {type: monitor_group, tag}, {type: all_monitors}", "x-one-of": "scope" },
);
const Metric = t.String({
  enum: [...allMetricNames],
  description: `metric_threshold only. By monitor type: ${Object.entries(metricsByMonitorType)
    .map(([type, names]) => `${type}: ${names.join(", ")}`)
    .join("; ")}. Another name is refused with 400 (details.metrics_by_monitor_type).`,
});
const Condition = t.Object(
  {
    type: t.String({ description: "status_change, metric_threshold, ssl_expiry, domain_expiry, keyword_missing, certificate_changed, monitoring_unavailable" }),
    metric: t.Optional(Metric),
  },
  {
    additionalProperties: true,
    description:
      "status_change {to: [up|down|degraded|timeout]+, from?}; metric_threshold {metric, operator: gt|lt|eq|neq|gte|lte, threshold}; ssl_expiry / domain_expiry {days_before ≥ 1}; keyword_missing {keyword}; certificate_changed; monitoring_unavailable",
    "x-one-of": "condition",
  },
);
const Confirmation = Obj({
  consecutive_failures: t.Optional(Int({ minimum: 1, maximum: 1000, description: "Default 1" })),
  confirmation_regions: t.Optional(t.Union([t.Array(t.String({ minLength: 1, maxLength: 64 }), { maxItems: 32 }), t.Null()], { description: "Stored; no effect on evaluation" })),
});
const Notifications = Obj({
  on_recovery: t.Optional(t.Boolean({ description: "Default true" })),
  recurring: t.Optional(t.Boolean({ description: "Default false" })),
  recurring_interval_minutes: t.Optional(t.Union([Int({ minimum: 1, maximum: 10_080 }), t.Null()], { description: "At least 1; needed for recurring to take effect" })),
});
const Binding = Obj({ channel_id: Id, delay_minutes: t.Optional(Int({ minimum: 0, maximum: 10_080, description: "Default 0 (immediately)" })) });

const Key = t.String({ pattern: "^(?:[a-z0-9][a-z0-9_-]{0,23}/)?[a-z0-9][a-z0-9._-]{0,56}$", description: "A stable key for monitoring as code (the watchpost CLI's config file; <project>/<key> when the file has a project): unique in the organisation; renaming keeps it" });

const fields = {
  key: t.Optional(t.Union([Key, t.Null()], { description: "A stable key for monitoring as code (the watchpost CLI's config file): lower-case letters, digits, '.', '_' and '-', at most 57; unique in the organisation (409 CONFLICT otherwise); null clears it" })),
  name: Name,
  description: t.Optional(t.Union([t.String({ maxLength: 2000 }), t.Null()])),
  enabled: t.Optional(t.Boolean()),
  scope: Scope,
  condition: Condition,
  confirmation: t.Optional(Confirmation),
  notifications: t.Optional(Notifications),
  channels: t.Optional(t.Array(Binding, { maxItems: 50, description: "Required unless escalation_policy_id is given" })),
  escalation_policy_id: t.Optional(t.Union([Id, t.Null()], { description: "Instead of channels: the policy's steps become the bindings" })),
};

export const RuleCreateBody = Obj(fields);
export const RulePatchBody = Obj({ ...fields, name: t.Optional(Name), scope: t.Optional(Scope), condition: t.Optional(Condition) });

export const RuleView = t.Object({
  id: t.String(),
  name: t.String(),
  description: t.Union([t.String(), t.Null()]),
  enabled: t.Boolean(),
  scope: t.Record(t.String(), t.Unknown(), { description: "What the rule watches (components.schemas.<Type>Scope)", "x-one-of": "scope" }),
  condition: t.Record(t.String(), t.Unknown(), { description: "When it fires (components.schemas.<Type>Condition)", "x-one-of": "condition" }),
  confirmation: t.Object({ consecutive_failures: Int(), confirmation_regions: t.Union([t.Array(t.String()), t.Null()]) }),
  notifications: t.Object({ on_recovery: t.Boolean(), recurring: t.Boolean(), recurring_interval_minutes: t.Union([Int(), t.Null()]) }),
  channels: t.Array(t.Object({ channel_id: t.String(), delay_minutes: Int() })),
  escalation_policy_id: t.Union([t.String(), t.Null()]),
  key: t.Union([Key, t.Null()]),
  disabled_reason: t.Union([t.String(), t.Null()], { description: "Why Watchpost disabled the rule (its monitor was deleted); null when a person set `enabled`" }),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const RuleListQuery = Obj({
  ...PaginationQuery,
  enabled: t.Optional(t.Boolean()),
  scope_type: t.Optional(t.Union([t.Literal("monitor"), t.Literal("monitor_group"), t.Literal("all_monitors")])),
  monitor_id: t.Optional(t.String({ minLength: 1, maxLength: 64, description: "Rules that watch this monitor now: scoped to it, to a tag it carries, or to all monitors (add scope_type=monitor for rules scoped to it alone)" })),
  channel_id: t.Optional(t.String({ minLength: 1, maxLength: 64, description: "Rules that send to this channel, directly or through their escalation policy" })),
});

export const AckBody = Obj({ monitor_id: Id, region: t.Optional(t.String({ minLength: 1, maxLength: 64 })) });
export const AckResult = t.Object({
  acknowledged: t.Array(t.Object({ region: t.String(), already: t.Boolean() }), { description: "Firing regions now acknowledged; `already` when they were before" }),
});

export const ActiveAlertRow = t.Object({
  alert_id: t.String({ description: "Its timeline: GET /alerts/{id}/timeline" }),
  rule_id: t.String(),
  rule_name: t.String(),
  monitor_id: t.String(),
  monitor_name: t.String(),
  region: t.String(),
  acknowledged: t.Boolean(),
  since: Timestamp,
  last_notified_at: t.Union([Timestamp, t.Null()]),
  consecutive: Int({ description: "Consecutive checks the condition has held" }),
});
export const ActiveQuery = Obj({ ...PaginationQuery, rule_id: t.Optional(Id), monitor_id: t.Optional(Id), acknowledged: t.Optional(t.Boolean()) });
