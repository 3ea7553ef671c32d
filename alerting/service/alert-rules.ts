import type { Actor } from "../../domain/access/actor.ts";
import { type Sql, withTx } from "../../db/client.ts";
import { AppError, conflict, notFound, type ValidationIssue } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { assertQuota } from "../../billing/entitlements.ts";
import { findAlertChannels } from "../../db/queries/alert-channels.ts";
import { findEscalationPolicy } from "../../db/queries/alert-escalation-policies.ts";
import {
  type AlertRuleFilter,
  type AlertRuleRow,
  deleteAlertRule,
  findAlertRule,
  insertAlertRule,
  listAlertRules,
  ruleConfigKeyTaken,
  updateAlertRule,
} from "../../db/queries/alert-rules.ts";
import { findMonitor } from "../../db/queries/monitors.ts";
import { type CheckType, dataFieldNames } from "../../schemas/check-types.ts";
import { metricsByMonitorType } from "../../schemas/checks/metric-names.ts";
import { normaliseRule, type RuleDefinition, type RuleInput } from "../../schemas/alerting/rule-input.ts";

export type RuleView = RuleDefinition & { id: string; key: string | null; disabled_reason: string | null; created_at: string; updated_at: string };

/** A rule's fields plus the config file's stable key for it (null clears it). */
export type RuleKeyedInput = RuleInput & { key?: string | null };

interface Ctx {
  sql: Sql;
  actor: Actor;
}

function toRuleView(row: AlertRuleRow): RuleView {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    enabled: row.enabled,
    scope: row.scope as RuleDefinition["scope"],
    condition: row.condition as RuleDefinition["condition"],
    confirmation: row.confirmation as RuleDefinition["confirmation"],
    notifications: row.notifications as RuleDefinition["notifications"],
    channels: row.channels,
    escalation_policy_id: row.escalation_policy_id,
    key: row.config_key ?? null,
    disabled_reason: row.disabled_reason ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** The result field a condition reads (alerting/engine/conditions.ts); a monitor type whose data lacks it can never fire it. */
const FIELD_READ: Partial<Record<RuleDefinition["condition"]["type"], string>> = {
  ssl_expiry: "ssl_days_remaining",
  domain_expiry: "domain_days_remaining",
  certificate_changed: "fingerprint_sha256",
};

/** References must exist in the caller's organisation; another organisation's id reads as unknown. */
async function checkReferences(sql: Sql, orgId: string, def: RuleDefinition, issues: ValidationIssue[], keptScope = false): Promise<void> {
  // A disabled rule whose monitor was deleted stays editable; enabling it needs a scope that exists.
  const scopeToCheck = !(keptScope && !def.enabled);
  if (scopeToCheck && def.scope?.type === "monitor") {
    const monitor = await findMonitor(sql, orgId, def.scope.monitor_id);
    if (!monitor) issues.push({ path: "body.scope.monitor_id", message: `no monitor ${def.scope.monitor_id} in this organisation${keptScope ? " (it was deleted): give the rule another scope to enable it" : ""}` });
    else if (def.condition.type in FIELD_READ && !dataFieldNames(monitor.type as CheckType).includes(FIELD_READ[def.condition.type]!)) {
      const field = FIELD_READ[def.condition.type]!;
      issues.push({ path: "body.condition.type", message: `${def.condition.type} reads ${field}, which ${monitor.type} monitors never report; monitor "${monitor.name}" would never fire it` });
    } else if (def.condition.type === "keyword_missing") {
      // The rule's keyword is what it checks, and only a keyword monitor looking for it can answer.
      const config = monitor.config as { keyword?: string; case_sensitive?: boolean };
      // Browser Lite compares with case; the keyword check only when case_sensitive is set.
      const withCase = monitor.type === "browser_lite" || config.case_sensitive === true;
      const same = typeof config.keyword === "string" && (withCase ? config.keyword === def.condition.keyword : config.keyword.toLowerCase() === def.condition.keyword.toLowerCase());
      if (monitor.type !== "keyword" && !(monitor.type === "browser_lite" && typeof config.keyword === "string")) {
        issues.push({ path: "body.condition.keyword", message: `keyword_missing reads what a keyword monitor (or a Browser Lite monitor with a keyword) found; monitor "${monitor.name}" is of type ${monitor.type}` });
      }
      else if (!same) issues.push({ path: "body.condition.keyword", message: `monitor "${monitor.name}" looks for "${config.keyword}", not "${def.condition.keyword}"; set the monitor's keyword or the rule's to the same text` });
    } else if (def.condition.type === "metric_threshold") {
      const reported = metricsByMonitorType[monitor.type as CheckType] ?? [];
      if (!reported.includes(def.condition.metric)) {
        issues.push({ path: "body.condition.metric", message: `${monitor.type} monitors do not report ${def.condition.metric}; they report ${reported.join(", ")}` });
      }
    }
  }
  const found = new Set((await findAlertChannels(sql, orgId, def.channels.map((c) => c.channel_id))).map((c) => c.id));
  def.channels.forEach((c, i) => {
    if (!found.has(c.channel_id)) issues.push({ path: `body.channels.${i}.channel_id`, message: `no alert channel ${c.channel_id} in this organisation` });
  });
  if (def.escalation_policy_id && !(await findEscalationPolicy(sql, orgId, def.escalation_policy_id))) {
    issues.push({ path: "body.escalation_policy_id", message: `no escalation policy ${def.escalation_policy_id} in this organisation` });
  }
}

async function validated(sql: Sql, orgId: string, input: RuleInput, keptScope = false): Promise<RuleDefinition> {
  const issues: ValidationIssue[] = [];
  const def = normaliseRule(input, issues);
  if (issues.length === 0) await checkReferences(sql, orgId, def, issues, keptScope);
  if (issues.length > 0) {
    // A wrong metric name comes back with the list to choose from, per monitor type.
    const metricIssue = issues.some((i) => i.path === "body.condition.metric");
    throw new AppError(400, "VALIDATION_ERROR", "Request validation failed", { issues, ...(metricIssue ? { metrics_by_monitor_type: metricsByMonitorType } : {}) });
  }
  return def;
}

/** 409 when another rule of the organisation has the key (the config file's keys are unique). */
async function assertKeyFree(tx: Sql, orgId: string, key: string | null | undefined, exceptId: string | null) {
  if (key && (await ruleConfigKeyTaken(tx, orgId, key, exceptId))) throw conflict(`Another alert rule has the key "${key}"`, { key });
}

export async function createRule(ctx: Ctx, { key, ...input }: RuleKeyedInput): Promise<RuleView> {
  return withTx(ctx.sql, async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtext(${`alert_rules:${ctx.actor.orgId}`}))`;
    const def = await validated(tx, ctx.actor.orgId, input);
    await assertQuota(tx, ctx.actor.orgId, "alert_rules", 1);
    await assertKeyFree(tx, ctx.actor.orgId, key, null);
    return toRuleView(await insertAlertRule(tx, ctx.actor.orgId, newId("rule"), { ...def, config_key: key ?? null }));
  });
}

async function getRuleRow(sql: Sql, orgId: string, id: string): Promise<AlertRuleRow> {
  const row = await findAlertRule(sql, orgId, id);
  if (!row) throw notFound("Alert rule");
  return row;
}

export const getRule = async (ctx: Ctx, id: string) => toRuleView(await getRuleRow(ctx.sql, ctx.actor.orgId, id));

export async function listRules(ctx: Ctx, filter: AlertRuleFilter, limit: number, offset: number): Promise<{ rows: RuleView[]; total: number }> {
  const { rows, total } = await listAlertRules(ctx.sql, ctx.actor.orgId, filter, limit, offset);
  return { rows: rows.map(toRuleView), total };
}

/**
 * Top-level fields replace; confirmation and notifications merge field by field. Giving
 * channels clears escalation_policy_id and the other way round, unless both are given.
 */
export async function patchRule(ctx: Ctx, id: string, { key, ...patch }: RuleKeyedInput): Promise<RuleView> {
  return withTx(ctx.sql, async (tx) => {
    if (key) {
      await tx`select pg_advisory_xact_lock(hashtext(${`alert_rules:${ctx.actor.orgId}`}))`;
      await assertKeyFree(tx, ctx.actor.orgId, key, id);
    }
    const row = await findAlertRule(tx, ctx.actor.orgId, id, true);
    if (!row) throw notFound("Alert rule");
    const current = toRuleView(row);
    const switchingToPolicy = patch.escalation_policy_id !== undefined && patch.escalation_policy_id !== null && patch.channels === undefined;
    const switchingToChannels = patch.channels !== undefined && patch.escalation_policy_id === undefined;
    const merged: RuleInput = {
      name: patch.name ?? current.name,
      description: patch.description !== undefined ? patch.description : current.description,
      enabled: patch.enabled ?? current.enabled,
      scope: patch.scope ?? current.scope,
      condition: patch.condition ?? (current.condition as unknown as Record<string, unknown>),
      confirmation: { ...current.confirmation, ...patch.confirmation },
      notifications: { ...current.notifications, ...patch.notifications },
      channels: switchingToPolicy ? [] : (patch.channels ?? current.channels),
      escalation_policy_id: switchingToChannels ? null : patch.escalation_policy_id !== undefined ? patch.escalation_policy_id : current.escalation_policy_id,
    };
    const keptScope = patch.scope === undefined;
    const def = await validated(tx, ctx.actor.orgId, merged, keptScope);
    // The reason stays while the rule stays disabled on the scope that lost its monitor.
    const disabledReason = keptScope && !def.enabled ? row.disabled_reason : null;
    return toRuleView((await updateAlertRule(tx, ctx.actor.orgId, id, { ...def, disabled_reason: disabledReason, config_key: key === undefined ? row.config_key : key }))!);
  });
}

export async function removeRule(ctx: Ctx, id: string): Promise<void> {
  if (!(await deleteAlertRule(ctx.sql, ctx.actor.orgId, id))) throw notFound("Alert rule");
}
