import type { Actor } from "../../domain/access/actor.ts";
import { type Sql, withTx } from "../../db/client.ts";
import { conflict, notFound, type ValidationIssue, validationError } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { findAlertChannels } from "../../db/queries/alert-channels.ts";
import {
  deleteEscalationPolicy,
  type EscalationPolicyRow,
  type EscalationStep,
  findEscalationPolicy,
  insertEscalationPolicy,
  listEscalationPolicies,
  policyRuleIds,
  policyConfigKeyTaken,
  updateEscalationPolicy,
} from "../../db/queries/alert-escalation-policies.ts";

interface Ctx {
  sql: Sql;
  actor: Actor;
}

export interface PolicyView {
  id: string;
  name: string;
  steps: EscalationStep[];
  key: string | null;
  created_at: string;
  updated_at: string;
}

const toPolicyView = (r: EscalationPolicyRow): PolicyView => ({
  id: r.id,
  name: r.name,
  steps: r.steps,
  key: r.config_key ?? null,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
});

async function checkSteps(sql: Sql, orgId: string, steps: EscalationStep[]): Promise<void> {
  const issues: ValidationIssue[] = [];
  const ids = [...new Set(steps.flatMap((s) => s.channel_ids))];
  const found = new Set((await findAlertChannels(sql, orgId, ids)).map((c) => c.id));
  steps.forEach((s, i) => {
    s.channel_ids.forEach((c, j) => {
      if (!found.has(c)) issues.push({ path: `body.steps.${i}.channel_ids.${j}`, message: `no alert channel ${c} in this organisation` });
    });
    if (i > 0 && s.delay_minutes <= steps[i - 1]!.delay_minutes) issues.push({ path: `body.steps.${i}.delay_minutes`, message: "each step's delay must be longer than the step before" });
  });
  if (issues.length > 0) throw validationError(issues);
}

/** 409 when another policy of the organisation has the key (the config file's keys are unique). */
async function assertKeyFree(sql: Sql, orgId: string, key: string | null | undefined, exceptId: string | null) {
  if (key && (await policyConfigKeyTaken(sql, orgId, key, exceptId))) throw conflict(`Another escalation policy has the key "${key}"`, { key });
}

export async function createPolicy(ctx: Ctx, input: { name: string; steps: EscalationStep[]; key?: string | null }): Promise<PolicyView> {
  await checkSteps(ctx.sql, ctx.actor.orgId, input.steps);
  await assertKeyFree(ctx.sql, ctx.actor.orgId, input.key, null);
  return toPolicyView(await insertEscalationPolicy(ctx.sql, ctx.actor.orgId, newId("esc"), { name: input.name, steps: input.steps, configKey: input.key ?? null }));
}

export async function getPolicy(ctx: Ctx, id: string): Promise<PolicyView> {
  const row = await findEscalationPolicy(ctx.sql, ctx.actor.orgId, id);
  if (!row) throw notFound("Escalation policy");
  return toPolicyView(row);
}

export async function listPolicies(ctx: Ctx, limit: number, offset: number) {
  const { rows, total } = await listEscalationPolicies(ctx.sql, ctx.actor.orgId, limit, offset);
  return { rows: rows.map(toPolicyView), total };
}

export async function patchPolicy(ctx: Ctx, id: string, patch: { name?: string; steps?: EscalationStep[]; key?: string | null }): Promise<PolicyView> {
  return withTx(ctx.sql, async (tx) => {
    const row = await findEscalationPolicy(tx, ctx.actor.orgId, id);
    if (!row) throw notFound("Escalation policy");
    await assertKeyFree(tx, ctx.actor.orgId, patch.key, id);
    const next = { name: patch.name ?? row.name, steps: patch.steps ?? row.steps, configKey: patch.key === undefined ? (row.config_key ?? null) : patch.key };
    await checkSteps(tx, ctx.actor.orgId, next.steps);
    return toPolicyView((await updateEscalationPolicy(tx, ctx.actor.orgId, id, next))!);
  });
}

/** Refuses (409) while rules use the policy. */
export async function removePolicy(ctx: Ctx, id: string): Promise<void> {
  await withTx(ctx.sql, async (tx) => {
    if (!(await findEscalationPolicy(tx, ctx.actor.orgId, id))) throw notFound("Escalation policy");
    const rules = await policyRuleIds(tx, ctx.actor.orgId, id);
    if (rules.length > 0) throw conflict("The escalation policy is used by alert rules; change them first", { rule_ids: rules });
    await deleteEscalationPolicy(tx, ctx.actor.orgId, id);
  });
}
