import { type ApiClient, allPages } from "../client.ts";
import { CliError } from "../errors.ts";
import type { DesiredRule } from "./load.ts";

/** An alert rule as the API shows it. */
export interface Rule {
  id: string;
  name: string;
  description: string | null;
  enabled: boolean;
  scope: Record<string, unknown>;
  condition: Record<string, unknown>;
  confirmation: { consecutive_failures: number; confirmation_regions: string[] | null };
  notifications: { on_recovery: boolean; recurring: boolean; recurring_interval_minutes: number | null };
  channels: { channel_id: string; delay_minutes: number }[];
  escalation_policy_id: string | null;
  key: string | null;
  created_at: string;
}

export async function listRules(client: ApiClient): Promise<Rule[]> {
  return allPages((page) => client.GET("/api/v1/alert-rules", { params: { query: { page, limit: 100 } } })) as Promise<Rule[]>;
}

/** Key ↔ id of monitors and channels, for rule references (the file names them by key, the API by id). */
export interface RefMaps {
  monitorId: Map<string, string>;
  channelId: Map<string, string>;
  policyId: Map<string, string>;
}

/** The rule in the file's form with every default spelled out, so two forms compare field by field. */
export function fullRule(d: DesiredRule) {
  return {
    name: d.name,
    description: d.description ?? null,
    enabled: d.enabled ?? true,
    scope: d.scope,
    condition: d.condition,
    confirmation: { consecutive_failures: d.confirmation?.consecutive_failures ?? 1, confirmation_regions: d.confirmation?.confirmation_regions ?? null },
    notifications: {
      on_recovery: d.notifications?.on_recovery ?? true,
      recurring: d.notifications?.recurring ?? false,
      recurring_interval_minutes: d.notifications?.recurring_interval_minutes ?? null,
    },
    channels: (d.channels ?? []).map((c) => ({ channel: c.channel, delay_minutes: c.delay_minutes ?? 0 })),
    escalation_policy: d.escalation_policy ?? null,
  };
}

const invert = (m: Map<string, string>) => new Map([...m].map(([k, v]) => [v, k]));

/** A stored rule in the file's form: ids become keys (an id no key names stays as `id:<id>`). */
export function ruleAsFile(r: Rule, refs: RefMaps): ReturnType<typeof fullRule> {
  const monitorKey = invert(refs.monitorId);
  const channelKey = invert(refs.channelId);
  const policyKey = invert(refs.policyId);
  const scope =
    r.scope.type === "monitor"
      ? { monitor: monitorKey.get(String(r.scope.monitor_id)) ?? `id:${r.scope.monitor_id}` }
      : r.scope.type === "monitor_group"
        ? { tag: String(r.scope.tag) }
        : ({ all_monitors: true } as const);
  return {
    name: r.name,
    description: r.description,
    enabled: r.enabled,
    scope,
    condition: r.condition,
    confirmation: r.confirmation,
    notifications: r.notifications,
    // A rule on a policy shows the policy's steps as its bindings: the policy is what the file names.
    channels: r.escalation_policy_id ? [] : r.channels.map((c) => ({ channel: channelKey.get(c.channel_id) ?? `id:${c.channel_id}`, delay_minutes: c.delay_minutes })),
    escalation_policy: r.escalation_policy_id ? (policyKey.get(r.escalation_policy_id) ?? `id:${r.escalation_policy_id}`) : null,
  };
}

/** The API body: keys resolved to ids (after creations, so a rule may watch a monitor made in the same apply). */
export function ruleBody(d: DesiredRule, refs: RefMaps) {
  const f = fullRule(d);
  const monitorId = (key: string) => {
    const id = refs.monitorId.get(key);
    if (!id) throw new CliError(`Rule ${d.key}: no monitor with key "${key}"`, "INVALID_CONFIG");
    return id;
  };
  const channelId = (key: string) => {
    const id = refs.channelId.get(key);
    if (!id) throw new CliError(`Rule ${d.key}: no channel with key "${key}"`, "INVALID_CONFIG");
    return id;
  };
  const policyIdOf = (key: string) => {
    const id = refs.policyId.get(key);
    if (!id) throw new CliError(`Rule ${d.key}: no escalation policy with key "${key}"`, "INVALID_CONFIG");
    return id;
  };
  const scope = "monitor" in d.scope ? { type: "monitor", monitor_id: monitorId(d.scope.monitor) } : "tag" in d.scope ? { type: "monitor_group", tag: d.scope.tag } : { type: "all_monitors" };
  return {
    key: d.key,
    name: f.name,
    description: f.description,
    enabled: f.enabled,
    scope,
    condition: f.condition,
    confirmation: f.confirmation,
    notifications: f.notifications,
    channels: f.channels.map((c) => ({ channel_id: channelId(c.channel), delay_minutes: c.delay_minutes })),
    escalation_policy_id: f.escalation_policy ? policyIdOf(f.escalation_policy) : null,
  };
}
