import type { Sql } from "../../db/client.ts";
import type { Logger } from "../../core/log.ts";
import { orgAlertRules } from "../../db/queries/alert-rules.ts";
import { orgEscalationPolicies } from "../../db/queries/alert-escalation-policies.ts";
import type { MonitorView } from "../engine/rule.ts";
import { type ChannelInfo, type CompiledRule, compileRule } from "../engine/compile.ts";

export interface OrgAlerting {
  orgName: string;
  rules: CompiledRule[];
  byId: Map<string, CompiledRule>;
  channels: Map<string, ChannelInfo>;
  /** Enabled rules whose scope covers the monitor, from an index by scope (no scan of every rule). */
  matching(monitor: MonitorView): CompiledRule[];
  /** Whether any rule is enabled: without one, no result of the organisation can change an alert state. */
  anyEnabled: boolean;
}

/** Indexes enabled rules by monitor id, by tag, and "all monitors". */
export function indexRules(rules: CompiledRule[]): (monitor: MonitorView) => CompiledRule[] {
  const all: CompiledRule[] = [];
  const byMonitor = new Map<string, CompiledRule[]>();
  const byTag = new Map<string, CompiledRule[]>();
  const push = (m: Map<string, CompiledRule[]>, k: string, r: CompiledRule) => (m.get(k) ?? m.set(k, []).get(k)!).push(r);
  for (const r of rules) {
    if (!r.machine.enabled) continue;
    if (r.scope.type === "all_monitors") all.push(r);
    else if (r.scope.type === "monitor") push(byMonitor, r.scope.monitor_id, r);
    else push(byTag, r.scope.tag, r);
  }
  return (monitor) => {
    const out = [...all, ...(byMonitor.get(monitor.id) ?? [])];
    const seen = new Set<string>();
    for (const tag of monitor.tags) {
      for (const r of byTag.get(tag) ?? []) {
        if (!seen.has(r.id)) out.push(r);
        seen.add(r.id);
      }
    }
    return out;
  };
}

/**
 * Compiled rules per organisation. A trigger NOTIFYs `alerting_config` on every change to
 * rules, channels or policies, which drops that organisation; the TTL covers a lost connection.
 */
export class RuleCache {
  private readonly entries = new Map<string, { at: number; value: Promise<OrgAlerting> }>();
  private unlisten: (() => Promise<void>) | null = null;

  constructor(
    private readonly sql: Sql,
    private readonly log: Logger,
    private readonly ttlMs = 30_000,
  ) {}

  async listen(): Promise<void> {
    const sub = await this.sql.listen("alerting_config", (orgId) => this.invalidate(orgId), () => this.entries.clear());
    this.unlisten = () => sub.unlisten();
  }

  invalidate(orgId?: string) {
    if (orgId) this.entries.delete(orgId);
    else this.entries.clear();
  }

  get(orgId: string): Promise<OrgAlerting> {
    const hit = this.entries.get(orgId);
    if (hit && Date.now() - hit.at < this.ttlMs) return hit.value;
    const value = this.load(orgId);
    this.entries.set(orgId, { at: Date.now(), value });
    value.catch(() => this.entries.delete(orgId));
    return value;
  }

  private async load(orgId: string): Promise<OrgAlerting> {
    const [rules, policies, channels, org] = await Promise.all([
      orgAlertRules(this.sql, orgId),
      orgEscalationPolicies(this.sql, orgId),
      this.sql<ChannelInfo[]>`select id, type, enabled from alert_channels where org_id = ${orgId}`,
      this.sql<{ name: string }[]>`select name from organisations where id = ${orgId}`,
    ]);
    const channelMap = new Map(channels.map((c) => [c.id, c]));
    const policyMap = new Map(policies.map((p) => [p.id, p]));
    const compiled = rules.map((r) => compileRule(r, policyMap, channelMap));
    this.log.debug({ op: "alerting.rules.load", orgId, rules: compiled.length }, "rules loaded");
    return {
      orgName: org[0]?.name ?? "",
      rules: compiled,
      byId: new Map(compiled.map((r) => [r.id, r])),
      channels: channelMap,
      matching: indexRules(compiled),
      anyEnabled: compiled.some((r) => r.machine.enabled),
    };
  }

  async close(): Promise<void> {
    await this.unlisten?.();
  }
}
