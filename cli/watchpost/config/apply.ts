import type { ApiClient } from "../client.ts";
import { CliError } from "../errors.ts";
import { KEY_TAG_PREFIX } from "../monitor-ref.ts";
import { MASK, resolveRefs } from "./env-refs.ts";
import { unsetOutsideSecrets, unsetForApply } from "./secret-paths.ts";
import type { DesiredMonitor } from "./load.ts";
import { channelBody } from "./channels.ts";
import type { Change, ChannelChange, MonitorChange, PageChange, Plan, PolicyChange, RuleChange, WindowChange } from "./plan.ts";
import { policyBody } from "./escalation.ts";
import { windowBody } from "./maintenance.ts";
import { layoutBody } from "./status-pages.ts";
import { type RefMaps, ruleBody } from "./rules.ts";

interface Applied {
  kind: Change["kind"];
  action: Change["action"];
  key: string;
  id: string;
  name: string;
}

export interface ApplyReport {
  applied: Applied[];
  failed: { kind: Change["kind"]; action: Change["action"]; key: string; name: string; error: string; code: string; details: Record<string, unknown> }[];
  /** Changes not attempted because an earlier step failed. */
  skipped: { kind: Change["kind"]; action: Change["action"]; key: string; name: string }[];
}

const BULK_MAX = 1000;

/** A change of a status page's layout (`sections`, or a leaf below it such as `sections[0].components[1].display_name`). */
const isSectionsPath = (path: string) => path === "sections" || path.startsWith("sections[") || path.startsWith("sections.");

/** The API body for a file entry: ${VAR}s resolved; an unset one keeps the stored secret (•••••••• back) on update. */
function bodyOf(d: DesiredMonitor, env: NodeJS.ProcessEnv, currentTags: string[] | null) {
  const missing = new Set<string>();
  const config = resolveRefs(d.config, env, missing, () => MASK) as Record<string, unknown>;
  if (missing.size && !currentTags) throw new CliError(`Monitor ${d.key}: set ${[...missing].join(", ")} to create it (the file references them)`, "MISSING_ENV", 1, { missing: [...missing] });
  // Only a stored secret can be kept by sending the mask back; any other field would be set to it (or refused by the API).
  const plain = unsetOutsideSecrets(d.config, env);
  if (plain.size) throw new CliError(`Monitor ${d.key}: set ${[...plain].join(", ")} to update it (the file references them outside a secret field, whose stored value cannot be kept)`, "MISSING_ENV", 1, { missing: [...plain] });
  const tags = [...(d.tags ?? (currentTags ?? []).filter((t) => !t.startsWith(KEY_TAG_PREFIX))), `${KEY_TAG_PREFIX}${d.key}`];
  return {
    name: d.name,
    type: d.type,
    config,
    tags,
    ...(d.interval_seconds !== undefined ? { interval_seconds: d.interval_seconds } : {}),
    ...(d.timeout_ms !== undefined ? { timeout_ms: d.timeout_ms } : {}),
    ...(d.regions !== undefined ? { regions: d.regions } : {}),
    ...(d.runner_ids !== undefined ? { runner_ids: d.runner_ids } : {}),
    ...(d.paused !== undefined ? { paused: d.paused } : {}),
  };
}


const failure = (c: Change, err: unknown) => {
  const e = err instanceof CliError ? err : new CliError(String((err as Error)?.message ?? err));
  return { kind: c.kind, action: c.action, key: c.key, name: c.name, error: e.message, code: e.code, details: e.details };
};

/**
 * Carries out a plan: channels first (monitors' rules send to them), monitor creations in bulk (all or none per
 * request of up to 1,000), monitor updates, then deletions — monitors before channels — one by one. Stops at the
 * first failure and reports what was applied, what failed and what was not tried.
 */
export async function applyPlan(client: ApiClient, plan: Plan, env: NodeJS.ProcessEnv): Promise<ApplyReport> {
  // Every variable the changes need, before the first one is made (not one resource at a time, half applied).
  const unset = unsetForApply(plan.changes, env);
  if (unset.length) {
    const names = [...new Set(unset.map((u) => u.variable))];
    const needers = [...new Set(unset.map((u) => `${u.kind} ${u.key}`))];
    throw new CliError(`set ${names.join(", ")}: apply needs them (${needers.join(", ")}); nothing was changed`, "MISSING_ENV", 1, { missing: names, needed_by: unset });
  }
  const report: ApplyReport = { applied: [], failed: [], skipped: [] };
  const isMonitorCreate = (c: Change) => c.kind === "monitor" && c.action === "create";
  const creates = plan.changes.filter(isMonitorCreate);
  const channelWrites: Change[] = plan.changes.filter((c) => (c.kind === "channel" || c.kind === "escalation_policy") && c.action !== "delete");
  const rest = plan.changes.filter((c) => !isMonitorCreate(c) && !channelWrites.includes(c));
  const queue: Change[][] = channelWrites.map((c) => [c]);
  for (let i = 0; i < creates.length; i += BULK_MAX) queue.push(creates.slice(i, i + BULK_MAX));
  for (const c of rest) queue.push([c]);
  for (let step = 0; step < queue.length; step++) {
    const batch = queue[step]!;
    const first = batch[0]!;
    try {
      if (first.kind === "channel") {
        const done = await applyChannel(client, first as ChannelChange, env);
        if (done.action === "create") plan.refs.channelId.set(done.key, done.id);
        report.applied.push(done);
      } else if (first.kind === "rule") report.applied.push(await applyRule(client, first, plan.refs));
      else if (first.kind === "status_page") report.applied.push(await applyPage(client, first, plan.refs));
      else if (first.kind === "maintenance") report.applied.push(await applyWindow(client, first, plan.refs));
      else if (first.kind === "escalation_policy") {
        const done = await applyPolicy(client, first, plan.refs);
        if (done.action === "create") plan.refs.policyId.set(done.key, done.id);
        report.applied.push(done);
      }
      else if (first.action === "create") {
        const bodies = batch.map((c) => bodyOf((c as Extract<MonitorChange, { action: "create" }>).desired, env, null));
        const res = await client.POST("/api/v1/monitors/bulk", { body: { monitors: bodies as never } });
        res.data!.data.forEach((m, i) => {
          plan.refs.monitorId.set(batch[i]!.key, m.id);
          report.applied.push({ kind: "monitor", action: "create", key: batch[i]!.key, id: m.id, name: m.name });
        });
      } else if (first.action === "update") {
        const m = await client.PATCH("/api/v1/monitors/{id}", { params: { path: { id: first.id } }, body: bodyOf(first.desired, env, first.current.tags) as never });
        report.applied.push({ kind: "monitor", action: "update", key: first.key, id: m.data!.id, name: m.data!.name });
      } else {
        await client.DELETE("/api/v1/monitors/{id}", { params: { path: { id: first.id } } });
        report.applied.push({ kind: "monitor", action: "delete", key: first.key, id: first.id, name: first.name });
      }
    } catch (err) {
      const f = failure(first, err);
      if (batch.length === 1) report.failed.push(f);
      else {
        // A bulk creation is all or none: name the entries the API's issues point at (body.monitors[i]…), or the whole batch.
        const culprits = new Set(((f.details.issues ?? []) as { path: string }[]).map((i) => /^body\.monitors\[(\d+)\]/.exec(i.path)?.[1]).filter((i) => i !== undefined).map(Number));
        if (culprits.size) for (const i of culprits) report.failed.push({ ...failure(batch[i]!, err), details: { issues: ((f.details.issues ?? []) as { path: string }[]).filter((it) => it.path.startsWith(`body.monitors[${i}]`)) } });
        else report.failed.push({ ...f, key: batch.map((c) => c.key).join(", "), name: `${batch.length} monitors created together (all or none)` });
        for (const [i, c] of batch.entries()) if (culprits.size && !culprits.has(i)) report.skipped.push({ kind: c.kind, action: c.action, key: c.key, name: c.name });
      }
      for (const later of queue.slice(step + 1).flat()) report.skipped.push({ kind: later.kind, action: later.action, key: later.key, name: later.name });
      break;
    }
  }
  return report;
}

/** The collections whose resources the CLI writes alike: POST to create, PATCH and DELETE on `{id}`. */
type Collection = "/api/v1/escalation-policies" | "/api/v1/maintenance-windows" | "/api/v1/alert-rules" | "/api/v1/alert-channels";

/** Creates, updates or deletes one resource of a collection; `body` is built only for a write. */
async function writeResource(client: ApiClient, c: PolicyChange | WindowChange | RuleChange | ChannelChange, collection: Collection, body: () => unknown): Promise<Applied> {
  const item = `${collection}/{id}`;
  if (c.action === "delete") {
    await client.DELETE(item as never, { params: { path: { id: c.id } } } as never);
    return { kind: c.kind, action: "delete", key: c.key, id: c.id, name: c.name };
  }
  const res = c.action === "create" ? await client.POST(collection as never, { body: body() } as never) : await client.PATCH(item as never, { params: { path: { id: c.id } }, body: body() } as never);
  const { id, name } = (res as { data?: { id: string; name: string } }).data!;
  return { kind: c.kind, action: c.action, key: c.key, id, name };
}

const applyPolicy = (client: ApiClient, c: PolicyChange, refs: RefMaps) => writeResource(client, c, "/api/v1/escalation-policies", () => policyBody((c as Exclude<PolicyChange, { action: "delete" }>).desired, refs));
const applyWindow = (client: ApiClient, c: WindowChange, refs: RefMaps) => writeResource(client, c, "/api/v1/maintenance-windows", () => windowBody((c as Exclude<WindowChange, { action: "delete" }>).desired, refs));
const applyRule = (client: ApiClient, c: RuleChange, refs: RefMaps) => writeResource(client, c, "/api/v1/alert-rules", () => ruleBody((c as Exclude<RuleChange, { action: "delete" }>).desired, refs));

async function applyPage(client: ApiClient, c: PageChange, refs: RefMaps): Promise<Applied> {
  const d = c.desired;
  const fields = { name: d.name, ...(d.description !== undefined ? { description: d.description } : {}), ...(d.theme_id !== undefined ? { theme_id: d.theme_id } : {}) };
  let id: string;
  let layout = null;
  if (c.action === "create") id = (await client.POST("/api/v1/status-pages", { body: { ...fields, slug: d.slug } })).data!.id;
  else {
    id = c.id;
    layout = c.current.layout;
    if (c.changes.some((f) => !isSectionsPath(f.path))) await client.PATCH("/api/v1/status-pages/{id}", { params: { path: { id } }, body: fields });
  }
  if (d.sections !== undefined && (c.action === "create" || c.changes.some((f) => isSectionsPath(f.path)))) {
    await client.PUT("/api/v1/status-pages/{id}/layout", { params: { path: { id } }, body: layoutBody(d, layout, refs) as never });
  }
  return { kind: "status_page", action: c.action, key: d.slug, id, name: d.name };
}

function applyChannel(client: ApiClient, c: ChannelChange, env: NodeJS.ProcessEnv): Promise<Applied> {
  return writeResource(client, c, "/api/v1/alert-channels", () => {
    const w = c as Exclude<ChannelChange, { action: "delete" }>;
    const missing = new Set<string>();
    const current = w.action === "update" ? w.current : null;
    const body = channelBody(w.desired, current, env, missing);
    if (missing.size && !current) throw new CliError(`Channel ${c.key}: set ${[...missing].join(", ")} to create it (the file references them)`, "MISSING_ENV", 1, { missing: [...missing] });
    return body;
  });
}
