import { conditionSchemas, type ConditionType } from "../../../../schemas/alerting/conditions.ts";
import { allMetricNames } from "../../../../schemas/checks/metric-names.ts";
import { normaliseRule, type RuleInput } from "../../../../schemas/alerting/rule-input.ts";
import { FormIssuesError } from "../../lib/form-issues";
import { describeFields, readFields, type FormField } from "../../lib/schema-form";

export type { ConditionType };
export const CONDITION_TYPES = Object.keys(conditionSchemas) as ConditionType[];

export const CONDITION_LABELS: Record<ConditionType, string> = {
  status_change: "The status becomes…",
  metric_threshold: "A measurement crosses a threshold",
  ssl_expiry: "The SSL certificate is about to expire",
  domain_expiry: "The domain registration is about to expire",
  keyword_missing: "The page lacks a keyword",
  certificate_changed: "The certificate changed",
  monitoring_unavailable: "The check could not run (no region or runner)",
};

const cache = new Map<ConditionType, FormField[]>();
/** A condition's own settings (all but `type`), from the schema the API validates with. */
export function conditionFields(type: ConditionType): FormField[] {
  let f = cache.get(type);
  if (!f) {
    const { type: _t, ...properties } = conditionSchemas[type].properties as Record<string, unknown>;
    f = describeFields({ ...conditionSchemas[type], properties, required: (conditionSchemas[type].required ?? []).filter((r: string) => r !== "type") } as never, "", { to: "Statuses", from: "Only after these statuses" });
    // The metric is typed in; offer every metric the check types report (schemas/checks/metric-names.ts).
    if (type === "metric_threshold") f = f.map((field) => (field.key === "metric" ? { ...field, suggestions: [...allMetricNames] } : field));
    cache.set(type, f);
  }
  return f;
}

const int = (v: FormDataEntryValue | null) => (v == null || String(v).trim() === "" ? undefined : Number(v));

/**
 * Reads the rule form into the API's body and runs the API's own normalisation over it
 * (`normaliseRule`: scope and condition schemas, either channels or a policy, no channel twice).
 */
export function readRuleForm(f: FormData): RuleInput & { name: string } {
  const issues: { path: string; message: string }[] = [];
  const scopeType = String(f.get("scope.type") ?? "all_monitors");
  const scope =
    scopeType === "monitor"
      ? { type: scopeType, monitor_id: String(f.get("scope.monitor_id") ?? "") }
      : scopeType === "monitor_group"
        ? { type: scopeType, tag: String(f.get("scope.tag") ?? "").trim() }
        : { type: scopeType };
  const conditionType = String(f.get("condition.type") ?? "status_change") as ConditionType;
  const parsed: { path: string; message: string }[] = [];
  const condition = { type: conditionType, ...readFields(conditionFields(conditionType), f, "condition", parsed) };
  issues.push(...parsed.map((i) => ({ ...i, path: `body.${i.path}` })));
  const recurring = f.has("notifications.recurring");
  const interval = int(f.get("notifications.recurring_interval_minutes"));
  const viaPolicy = f.get("delivery") === "policy";
  const body: RuleInput & { name: string } = {
    name: String(f.get("name") ?? "").trim(),
    description: String(f.get("description") ?? "").trim() || null,
    enabled: f.has("enabled"),
    scope,
    condition,
    confirmation: { consecutive_failures: int(f.get("confirmation.consecutive_failures")) ?? 1 },
    notifications: { on_recovery: f.has("notifications.on_recovery"), recurring, recurring_interval_minutes: interval ?? null },
    ...(viaPolicy
      ? { escalation_policy_id: String(f.get("escalation_policy_id") ?? "") || null, channels: [] }
      : {
          escalation_policy_id: null,
          channels: f.getAll("channel_id").map((id) => ({ channel_id: String(id), delay_minutes: int(f.get(`delay.${String(id)}`)) ?? 0 })),
        }),
  };
  normaliseRule(body, issues);
  if (scopeType === "monitor" && !body.scope!.monitor_id) issues.push({ path: "body.scope.monitor_id", message: "pick a monitor" });
  const failures = body.confirmation!.consecutive_failures!;
  if (!Number.isInteger(failures) || failures < 1 || failures > 1000) issues.push({ path: "body.confirmation.consecutive_failures", message: "must be a whole number from 1 to 1000" });
  if (recurring && (interval === undefined || !Number.isInteger(interval) || interval < 1)) issues.push({ path: "body.notifications.recurring_interval_minutes", message: "reminders need an interval of at least 1 minute" });
  for (const [i, c] of (body.channels ?? []).entries())
    if (!Number.isInteger(c.delay_minutes) || c.delay_minutes! < 0 || c.delay_minutes! > 10_080) issues.push({ path: `body.channels.${i}.delay_minutes`, message: "must be 0 to 10080 minutes" });
  if (issues.length) throw new FormIssuesError(dedupe(issues));
  return body;
}

const dedupe = (issues: { path: string; message: string }[]) => [...new Map(issues.map((i) => [i.path, i])).values()];

type RuleLike = {
  scope: Record<string, unknown>;
  condition: Record<string, unknown>;
  confirmation: { consecutive_failures: number | string };
  channels: { channel_id: string; delay_minutes: number | string }[];
  escalation_policy_id: string | null;
};
const SYMBOL: Record<string, string> = { gt: ">", gte: "≥", lt: "<", lte: "≤", eq: "=", neq: "≠" };

/** One line a person reads: which monitors, what fires, after how many checks, who hears. */
export function describeRule(r: RuleLike, names: { channels: Map<string, string>; policies: Map<string, string>; monitors?: Map<string, string> }): string {
  const s = r.scope;
  const scope =
    s.type === "monitor" ? `Monitor ${names.monitors?.get(String(s.monitor_id)) ?? String(s.monitor_id)}` : s.type === "monitor_group" ? `Monitors tagged “${String(s.tag)}”` : "Every monitor";
  const c = r.condition;
  const condition =
    c.type === "status_change"
      ? `status becomes ${(c.to as string[]).join(" or ")}`
      : c.type === "metric_threshold"
        ? `${String(c.metric)} ${SYMBOL[String(c.operator)] ?? String(c.operator)} ${String(c.threshold)}`
        : c.type === "ssl_expiry" || c.type === "domain_expiry"
          ? `${c.type === "ssl_expiry" ? "certificate" : "domain"} expires within ${String(c.days_before)} days`
          : c.type === "keyword_missing"
            ? `“${String(c.keyword)}” missing`
            : String(c.type).replace(/_/g, " ");
  const n = Number(r.confirmation.consecutive_failures);
  const after = n > 1 ? ` ${n} checks in a row` : "";
  const who = r.escalation_policy_id
    ? `policy ${names.policies.get(r.escalation_policy_id) ?? r.escalation_policy_id}`
    : r.channels.map((b) => `${names.channels.get(b.channel_id) ?? b.channel_id}${Number(b.delay_minutes) ? ` after ${String(b.delay_minutes)} min` : ""}`).join(", ");
  return `${scope}: ${condition}${after} → ${who || "nobody"}`;
}
