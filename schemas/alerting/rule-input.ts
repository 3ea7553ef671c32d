import { type TObject, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { allMetricNames, metricsByMonitorType } from "../checks/metric-names.ts";
import type { Issue as ValidationIssue } from "../validation.ts";
import { type Condition, conditionSchemas } from "./conditions.ts";

/** Which monitors a rule watches. */
export type Scope = { type: "monitor"; monitor_id: string } | { type: "monitor_group"; tag: string } | { type: "all_monitors" };

/** One channel a rule notifies, after an optional delay. */
export interface ChannelBinding {
  channel_id: string;
  delay_minutes: number;
}

const strict = { additionalProperties: false } as const;
export const scopeSchemas = {
  monitor: Type.Object({ type: Type.Literal("monitor"), monitor_id: Type.String({ minLength: 1, maxLength: 64 }) }, strict),
  monitor_group: Type.Object({ type: Type.Literal("monitor_group"), tag: Type.String({ minLength: 1, maxLength: 64 }) }, strict),
  all_monitors: Type.Object({ type: Type.Literal("all_monitors") }, strict),
} satisfies Record<Scope["type"], unknown>;

export interface RuleDefinition {
  name: string;
  description: string | null;
  enabled: boolean;
  scope: Scope;
  condition: Condition;
  confirmation: { consecutive_failures: number; confirmation_regions: string[] | null };
  notifications: { on_recovery: boolean; recurring: boolean; recurring_interval_minutes: number | null };
  channels: ChannelBinding[];
  escalation_policy_id: string | null;
}

/** What a client may send; everything optional here, the checks below say what is required. */
export interface RuleInput {
  name?: string;
  description?: string | null;
  enabled?: boolean;
  scope?: Record<string, unknown>;
  condition?: Record<string, unknown>;
  confirmation?: { consecutive_failures?: number; confirmation_regions?: string[] | null };
  notifications?: { on_recovery?: boolean; recurring?: boolean; recurring_interval_minutes?: number | null };
  channels?: { channel_id: string; delay_minutes?: number }[];
  escalation_policy_id?: string | null;
}

/** `http: response_time, duration_ms, …; ping: …` for messages. */
const describeMetrics = () =>
  Object.entries(metricsByMonitorType)
    .map(([type, names]) => `${type}: ${names.join(", ")}`)
    .join("; ");

function typed(path: string, value: Record<string, unknown> | undefined, schemas: Record<string, TObject>, issues: ValidationIssue[]): unknown {
  if (value === undefined) {
    issues.push({ path, message: "is required" });
    return undefined;
  }
  const type = value.type;
  const schema = typeof type === "string" ? schemas[type] : undefined;
  if (!schema) {
    issues.push({ path: `${path}.type`, message: `must be one of ${Object.keys(schemas).join(", ")}` });
    return undefined;
  }
  const seen = new Set<string>();
  for (const e of Value.Errors(schema, value)) {
    const p = `${path}${e.path.replaceAll("/", ".")}`;
    if (!seen.has(p)) issues.push({ path: p, message: e.message });
    seen.add(p);
  }
  return value;
}

/** Fills every default and checks every rule of the spec that a schema cannot; paths are `body.<field>`. */
export function normaliseRule(input: RuleInput, issues: ValidationIssue[]): RuleDefinition {
  if (!input.name) issues.push({ path: "body.name", message: "is required" });
  const scope = typed("body.scope", input.scope, scopeSchemas, issues) as Scope;
  const condition = typed("body.condition", input.condition, conditionSchemas, issues) as Condition;
  if (condition?.type === "metric_threshold" && typeof condition.metric === "string" && !allMetricNames.includes(condition.metric)) {
    issues.push({ path: "body.condition.metric", message: `unknown metric "${condition.metric}"; valid metrics by monitor type: ${describeMetrics()}` });
  }
  const confirmation = {
    consecutive_failures: input.confirmation?.consecutive_failures ?? 1,
    confirmation_regions: input.confirmation?.confirmation_regions ?? null,
  };
  const notifications = {
    on_recovery: input.notifications?.on_recovery ?? true,
    recurring: input.notifications?.recurring ?? false,
    recurring_interval_minutes: input.notifications?.recurring_interval_minutes ?? null,
  };
  const policy = input.escalation_policy_id ?? null;
  const channels = (input.channels ?? []).map((c) => ({ channel_id: c.channel_id, delay_minutes: c.delay_minutes ?? 0 }));
  if (policy && channels.length > 0) issues.push({ path: "body.channels", message: "give either channels or escalation_policy_id, not both" });
  if (!policy && channels.length === 0) issues.push({ path: "body.channels", message: "at least one channel binding (or an escalation_policy_id) is required" });
  const seen = new Set<string>();
  channels.forEach((c, i) => {
    if (seen.has(c.channel_id)) issues.push({ path: `body.channels.${i}.channel_id`, message: "is bound twice; one binding per channel" });
    seen.add(c.channel_id);
  });
  return {
    name: input.name ?? "",
    description: input.description ?? null,
    enabled: input.enabled ?? true,
    scope,
    condition,
    confirmation,
    notifications,
    channels,
    escalation_policy_id: policy,
  };
}

