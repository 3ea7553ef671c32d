import { paint, type Output } from "../output.ts";
import type { ApplyReport } from "./apply.ts";
import type { Plan } from "./plan.ts";
import { redactConfig, redactedValue } from "./secret-paths.ts";
import { secretFieldsOf } from "./channels.ts";
import type { DesiredChannel } from "./load.ts";

/** A channel's config fit to print: its secret fields as "(secret)". */
const redactChannel = (d: DesiredChannel) => Object.fromEntries(Object.entries(d.config).map(([k, v]) => [k, secretFieldsOf(d.type).includes(k) ? redactedValue : v]));
const configShown = (c: Extract<Plan["changes"][number], { action: "create" }>) =>
  c.kind === "channel" ? redactChannel(c.desired) : c.kind === "monitor" ? redactConfig(c.desired.config) : undefined;

const show = (v: unknown) => (v === undefined ? "(unset)" : JSON.stringify(v));

/** The plan as a per-monitor diff: + create, ~ update (field: before → after), - delete. */
export function renderPlan(o: Output, plan: Plan): string {
  const lines: string[] = [];
  for (const c of plan.changes) {
    if (c.action === "create") {
      lines.push(paint(o, "green", `+ create ${c.kind} ${c.key} (${c.type} "${c.name}")`));
      const { key: _k, slug: _s, ...rest } = c.desired as unknown as Record<string, unknown>;
      const shown = c.kind === "monitor" || c.kind === "channel" ? { ...rest, config: configShown(c) } : rest;
      for (const [f, v] of Object.entries(shown)) lines.push(paint(o, "green", `    ${f}: ${show(v)}`));
    } else if (c.action === "update") {
      lines.push(paint(o, "yellow", `~ update ${c.kind} ${c.key} (${c.id} "${c.name}")`));
      for (const f of c.changes) lines.push(`    ${f.path}: ${paint(o, "red", show(f.before))} → ${paint(o, "green", show(f.after))}`);
    } else {
      lines.push(paint(o, "red", `- delete ${c.kind} ${c.key} (${c.id} "${c.name}")`));
    }
  }
  const n = (a: string) => plan.changes.filter((c) => c.action === a).length;
  const summary = `Plan: ${n("create")} to create, ${n("update")} to update, ${n("delete")} to delete, ${plan.unchanged.length} unchanged.`;
  const unmanaged =
    (plan.unmanaged ? ` ${plan.unmanaged} other resource${plan.unmanaged === 1 ? "" : "s"} of the organisation left alone.` : "") +
    (plan.otherProjects ? ` ${plan.otherProjects} resource${plan.otherProjects === 1 ? "" : "s"} of other projects left alone.` : "");
  // Made from this file once (a key since renamed or removed) and still running: say so, one line each.
  const left = plan.leftAlone.map((l) => paint(o, "gray", `  ${l.kind} ${l.key} ("${l.name}") is no longer in the file: left alone; apply --prune deletes it`));
  const leftBlock = left.length ? `\n${left.join("\n")}` : "";
  // The plan job may run without the secrets; apply refuses until they are set, so say which before it does.
  const unset = plan.unsetForApply.map((u) => `${u.variable} (${u.kind} ${u.key})`);
  const unsetBlock = unset.length ? `\n${paint(o, "yellow", `apply needs these variables, unset here: ${unset.join(", ")}`)}` : "";
  if (!plan.changes.length) return `No changes: the organisation matches the file.${unmanaged}${leftBlock}`;
  return `${lines.join("\n")}\n\n${paint(o, "bold", summary)}${unmanaged}${leftBlock}${unsetBlock}`;
}

/** The JSON form of a plan (no file values beyond what renderPlan shows: secrets stay redacted). */
export function planJson(plan: Plan) {
  return {
    changes: plan.changes.map((c) =>
      c.action === "create"
        ? { kind: c.kind, action: c.action, key: c.key, name: c.name, type: c.type, ...(c.kind === "monitor" || c.kind === "channel" ? { config: configShown(c) } : {}) }
        : c.action === "update"
          ? { kind: c.kind, action: c.action, key: c.key, id: c.id, name: c.name, changes: c.changes }
          : { kind: c.kind, action: c.action, key: c.key, id: c.id, name: c.name },
    ),
    unchanged: plan.unchanged,
    unmanaged: plan.unmanaged,
    other_projects: plan.otherProjects,
    left_alone: plan.leftAlone,
    unset_for_apply: plan.unsetForApply,
    summary: { create: plan.changes.filter((c) => c.action === "create").length, update: plan.changes.filter((c) => c.action === "update").length, delete: plan.changes.filter((c) => c.action === "delete").length, unchanged: plan.unchanged.length },
  };
}

export function renderApply(o: Output, r: ApplyReport): string {
  const verb = { create: "created", update: "updated", delete: "deleted" } as const;
  const lines = r.applied.map((a) => `${paint(o, "green", "✓")} ${verb[a.action]} ${a.kind} ${a.key} (${a.id})`);
  for (const f of r.failed) {
    lines.push(`${paint(o, "red", "✗")} ${f.action} ${f.kind} ${f.key} failed: ${f.error} (${f.code})`);
    for (const i of (f.details.issues ?? []) as { path: string; message: string }[]) lines.push(`    ${i.path}: ${i.message}`);
  }
  for (const s of r.skipped) lines.push(`${paint(o, "gray", "-")} ${s.action} ${s.kind} ${s.key} not attempted`);
  lines.push("", `Applied ${r.applied.length} change${r.applied.length === 1 ? "" : "s"}${r.failed.length ? `; ${r.failed.length} failed, ${r.skipped.length} not attempted` : "."}`);
  return lines.join("\n");
}
