import type { AlertRuleRow } from "../../db/queries/alert-rules.ts";
import type { EscalationPolicyRow } from "../../db/queries/alert-escalation-policies.ts";
import { type Condition, describeCondition } from "./conditions.ts";
import type { MachineBinding, MachineRule } from "./state-machine.ts";
import type { ChannelBinding, Scope } from "./rule.ts";
import { PAGING_TYPES } from "../../schemas/channel-types.ts";

/** Channel types whose incidents follow our alert state (each spec's `paging`, schemas/channel-types.ts). */

export interface ChannelInfo {
  id: string;
  type: string;
  enabled: boolean;
}

export interface CompiledRule {
  id: string;
  orgId: string;
  name: string;
  scope: Scope;
  condition: Condition;
  conditionText: string;
  machine: MachineRule;
}

/**
 * A policy's steps become bindings: every channel of a step with that step's delay. A channel
 * in several steps is notified at each; the same (channel, delay) twice counts once.
 */
function expandBindings(rule: Pick<AlertRuleRow, "channels" | "escalation_policy_id">, policies: Map<string, EscalationPolicyRow>): ChannelBinding[] {
  if (!rule.escalation_policy_id) return rule.channels;
  const policy = policies.get(rule.escalation_policy_id);
  if (!policy) return [];
  const seen = new Set<string>();
  const out: ChannelBinding[] = [];
  for (const step of policy.steps) {
    for (const channel_id of step.channel_ids) {
      const key = `${channel_id}@${step.delay_minutes}`;
      if (!seen.has(key)) out.push({ channel_id, delay_minutes: step.delay_minutes });
      seen.add(key);
    }
  }
  return out;
}

/** Disabled or deleted channels drop out of the bindings: they are sent nothing. */
export function compileRule(row: AlertRuleRow, policies: Map<string, EscalationPolicyRow>, channels: Map<string, ChannelInfo>): CompiledRule {
  const conf = row.confirmation as { consecutive_failures: number };
  const notes = row.notifications as { on_recovery: boolean; recurring: boolean; recurring_interval_minutes: number | null };
  const bindings: MachineBinding[] = expandBindings(row, policies)
    .filter((b) => channels.get(b.channel_id)?.enabled)
    .map((b) => ({ channelId: b.channel_id, delayMinutes: b.delay_minutes, paging: PAGING_TYPES.has(channels.get(b.channel_id)!.type) }));
  const condition = row.condition as unknown as Condition;
  return {
    id: row.id,
    orgId: row.org_id,
    name: row.name,
    scope: row.scope as unknown as Scope,
    condition,
    conditionText: describeCondition(condition),
    machine: {
      enabled: row.enabled,
      consecutiveFailures: conf.consecutive_failures,
      onRecovery: notes.on_recovery,
      recurring: notes.recurring,
      recurringIntervalMinutes: notes.recurring_interval_minutes,
      bindings,
    },
  };
}
