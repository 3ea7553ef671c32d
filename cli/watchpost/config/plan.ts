import { Value } from "@sinclair/typebox/value";
import type { TSchema } from "@sinclair/typebox";
import { configSchemas } from "../../../schemas/check-types.ts";
import { KEY_TAG_PREFIX, keyOf, type Monitor } from "../monitor-ref.ts";
import { hasRef, isMasked, resolveRefs } from "./env-refs.ts";
import type { DesiredChannel, DesiredMonitor, DesiredPolicy, DesiredRule, DesiredState, DesiredStatusPage, DesiredWindow } from "./load.ts";
import { type Policy, policyAsFile } from "./escalation.ts";
import { fullWindow, type Window, windowAsFile } from "./maintenance.ts";
import { fullRule, type RefMaps, type Rule, ruleAsFile } from "./rules.ts";
import { fullSections, type Layout, layoutAsFile, type StatusPage } from "./status-pages.ts";
import { CliError } from "../errors.ts";
import { type Channel, comparableChannelConfig } from "./channels.ts";
import { isSecretPath, redactConfig, redactedValue, type UnsetVariable, unsetForApply } from "./secret-paths.ts";
import { fileKeyOf, inScope, projectOf, withProject } from "./project.ts";

interface FieldChange {
  path: string;
  before: unknown;
  after: unknown;
}

export type MonitorChange =
  | { kind: "monitor"; action: "create"; key: string; name: string; type: string; desired: DesiredMonitor }
  | { kind: "monitor"; action: "update"; key: string; id: string; name: string; changes: FieldChange[]; desired: DesiredMonitor; current: Monitor }
  | { kind: "monitor"; action: "delete"; key: string; id: string; name: string; current: Monitor };

export type ChannelChange =
  | { kind: "channel"; action: "create"; key: string; name: string; type: string; desired: DesiredChannel }
  | { kind: "channel"; action: "update"; key: string; id: string; name: string; changes: FieldChange[]; desired: DesiredChannel; current: Channel }
  | { kind: "channel"; action: "delete"; key: string; id: string; name: string; current: Channel };

export type RuleChange =
  | { kind: "rule"; action: "create"; key: string; name: string; type: string; desired: DesiredRule }
  | { kind: "rule"; action: "update"; key: string; id: string; name: string; changes: FieldChange[]; desired: DesiredRule; current: Rule }
  | { kind: "rule"; action: "delete"; key: string; id: string; name: string; current: Rule };

export type PageChange =
  | { kind: "status_page"; action: "create"; key: string; name: string; type: string; desired: DesiredStatusPage }
  | { kind: "status_page"; action: "update"; key: string; id: string; name: string; changes: FieldChange[]; desired: DesiredStatusPage; current: PageState };

export type WindowChange =
  | { kind: "maintenance"; action: "create"; key: string; name: string; type: string; desired: DesiredWindow }
  | { kind: "maintenance"; action: "update"; key: string; id: string; name: string; changes: FieldChange[]; desired: DesiredWindow; current: Window }
  | { kind: "maintenance"; action: "delete"; key: string; id: string; name: string; current: Window };

export type PolicyChange =
  | { kind: "escalation_policy"; action: "create"; key: string; name: string; type: string; desired: DesiredPolicy }
  | { kind: "escalation_policy"; action: "update"; key: string; id: string; name: string; changes: FieldChange[]; desired: DesiredPolicy; current: Policy }
  | { kind: "escalation_policy"; action: "delete"; key: string; id: string; name: string; current: Policy };

export type Change = MonitorChange | ChannelChange | PolicyChange | RuleChange | PageChange | WindowChange;

/** A status page and its layout, as the organisation has them. */
export interface PageState {
  page: StatusPage;
  layout: Layout | null;
}

export interface Plan {
  /** In the order apply runs them: channels created or updated, monitors, then deletions (monitors before channels). */
  changes: Change[];
  /** Resources in the file that already match. */
  unchanged: { kind: Change["kind"]; key: string; id: string; name: string }[];
  /** How many monitors (and channels, rules, when the file has those lists) no file entry names and that stay, besides other projects'. */
  unmanaged: number;
  /** How many items of other projects (stored key `<other>/…`) stay: never the file's to change or delete. */
  otherProjects: number;
  /** Variables apply would need that are unset where the plan ran (the plan job may not hold the secrets). */
  unsetForApply: UnsetVariable[];
  /** Keyed items of the file's scope that it no longer names, left alone without --prune (a renamed key's old item). */
  leftAlone: { kind: Change["kind"]; key: string; id: string; name: string }[];
  /** Keys → ids of the organisation's monitors and channels now (apply adds the ones it creates). */
  refs: RefMaps;
}

export interface PlanOptions {
  prune: boolean;
  /** Treat every stored secret as changed (the API never shows them, so plan cannot compare them). */
  resendSecrets: boolean;
  env: NodeJS.ProcessEnv;
  /** The config file's path, named in errors about its content. */
  file?: string;
}

const slug = (name: string) =>
  name
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[^a-z0-9]+|-+$/g, "")
    .slice(0, 50) || "monitor";

/**
 * Each monitor's key: its `wp-key:` tag, else one derived from its name (the same `export` writes), made unique
 * in creation order — so an exported organisation plans with no changes before the CLI ever tagged it.
 */
export function monitorKeys(monitors: Monitor[]): Map<string, Monitor> {
  return keyed(monitors, keyOf);
}

export function channelKeys(channels: Channel[]): Map<string, Channel> {
  return keyed(channels, (c) => c.key);
}

export function ruleKeys(rules: Rule[]): Map<string, Rule> {
  return keyed(rules, (r) => r.key);
}

/** Key → id of the organisation's monitors and channels. */
export function refMaps(monitors: Monitor[], channels: Channel[], policies: Policy[] = []): RefMaps {
  return {
    monitorId: new Map([...monitorKeys(monitors)].map(([k, m]) => [k, m.id])),
    channelId: new Map([...channelKeys(channels)].map(([k, c]) => [k, c.id])),
    policyId: new Map([...keyed(policies, (p) => p.key)].map(([k, p]) => [k, p.id])),
  };
}

export function keyed<T extends { id: string; name: string; created_at: string }>(items: T[], storedKey: (item: T) => string | null): Map<string, T> {
  const byKey = new Map<string, T>();
  for (const m of items) {
    const k = storedKey(m);
    if (k && !byKey.has(k)) byKey.set(k, m);
  }
  const untagged = items.filter((m) => !storedKey(m)).sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  for (const m of untagged) {
    const base = slug(m.name);
    let k = base;
    for (let n = 2; byKey.has(k); n++) k = `${base}-${n}`;
    byKey.set(k, m);
  }
  return byKey;
}

/** The config the server would store for the file's entry: the type's defaults filled in, ${VAR}s resolved where set. */
function desiredConfig(d: DesiredMonitor, env: NodeJS.ProcessEnv): Record<string, unknown> {
  const resolved = resolveRefs(d.config, env, new Set(), (original) => original) as Record<string, unknown>;
  return Value.Default(configSchemas[d.type] as TSchema, structuredClone(resolved)) as Record<string, unknown>;
}

/** JSON with object keys sorted: PostgreSQL's jsonb gives keys back in its own order. */
const canonical = (v: unknown): string =>
  Array.isArray(v)
    ? `[${v.map(canonical).join(",")}]`
    : v && typeof v === "object"
      ? `{${Object.keys(v)
          .sort()
          .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
          .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
          .join(",")}}`
      : JSON.stringify(v);
export const same = (a: unknown, b: unknown) => canonical(a) === canonical(b);

const isPlainObject = (v: unknown): v is Record<string, unknown> => Boolean(v) && typeof v === "object" && !Array.isArray(v);

/**
 * The changes between two values as leaf paths (`confirmation.consecutive_failures`, `sections[0].components[1].display_name`):
 * objects by key, lists of the same length by position; a list that grew or shrank, or a changed type, whole.
 */
export function fieldChanges(path: string, before: unknown, after: unknown, out: FieldChange[] = []): FieldChange[] {
  if (same(before, after)) return out;
  if (isPlainObject(before) && isPlainObject(after)) {
    for (const k of new Set([...Object.keys(before), ...Object.keys(after)])) fieldChanges(`${path}.${k}`, before[k], after[k], out);
  } else if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    before.forEach((b, i) => fieldChanges(`${path}[${i}]`, b, after[i], out));
  } else out.push({ path, before, after });
  return out;
}

/** Differences between the desired and the stored config, by path; masked secrets count as equal unless resendSecrets. */
function diffConfig(desired: unknown, current: unknown, raw: unknown, path: string[], root: Record<string, unknown>, o: PlanOptions, out: FieldChange[]) {
  const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);
  if (isObj(desired) && isObj(current)) {
    for (const k of new Set([...Object.keys(desired), ...Object.keys(current)])) diffConfig(desired[k], current[k], isObj(raw) ? raw[k] : undefined, [...path, k], root, o, out);
    return;
  }
  const secret = isSecretPath(path, root) || isMasked(current);
  if (isMasked(current) && typeof desired === "string") {
    if (o.resendSecrets) out.push({ path: `config.${path.join(".")}`, before: redactedValue, after: redactedValue });
    return;
  }
  if (same(desired, current)) return;
  const shown = (v: unknown) => (v === undefined ? undefined : secret ? redactedValue : v);
  // A field the file fills from ${VAR}s holds that variable's value on the server: never print it (the file's text is shown instead).
  const before = hasRef(raw) && current !== undefined ? redactedValue : shown(current);
  out.push({ path: `config.${path.join(".")}`, before, after: secret ? shown(desired) : hasRef(raw) ? raw : desired });
}

const userTags = (tags: string[]) => tags.filter((t) => !t.startsWith(KEY_TAG_PREFIX));
const sameSet = (a: string[], b: string[]) => same([...a].sort(), [...b].sort());

function diffMonitor(d: DesiredMonitor, m: Monitor, o: PlanOptions): FieldChange[] {
  const out: FieldChange[] = [];
  if (d.name !== m.name) out.push({ path: "name", before: m.name, after: d.name });
  if (d.type !== m.type) out.push({ path: "type", before: m.type, after: d.type });
  for (const f of ["interval_seconds", "timeout_ms", "paused"] as const) if (d[f] !== undefined && d[f] !== m[f]) out.push({ path: f, before: m[f], after: d[f] });
  for (const f of ["regions", "runner_ids"] as const) if (d[f] !== undefined && !sameSet(d[f], m[f])) out.push({ path: f, before: m[f], after: d[f] });
  if (d.tags !== undefined && !sameSet(d.tags, userTags(m.tags))) out.push({ path: "tags", before: userTags(m.tags), after: d.tags });
  if (d.type === m.type) diffConfig(desiredConfig(d, o.env), m.config, d.config, [], m.config, o, out);
  else out.push({ path: "config", before: redactConfig(m.config), after: redactConfig(d.config) });
  return out;
}

function diffChannel(d: DesiredChannel, c: Channel, o: PlanOptions): FieldChange[] {
  const out: FieldChange[] = [];
  if (d.name !== c.name) out.push({ path: "name", before: c.name, after: d.name });
  if (d.type !== c.type) out.push({ path: "type", before: c.type, after: d.type });
  if (d.enabled !== undefined && d.enabled !== c.enabled) out.push({ path: "enabled", before: c.enabled, after: d.enabled });
  const want = comparableChannelConfig(d, c, o.env, o.resendSecrets);
  for (const k of new Set([...Object.keys(want), ...Object.keys(c.config)])) {
    if (same(want[k], c.config[k])) continue;
    const secret = JSON.stringify(want[k] ?? c.config[k] ?? "").includes("••••") || want[k] === "(resent)";
    out.push({ path: `config.${k}`, before: secret ? redactedValue : c.config[k], after: secret ? (want[k] === undefined ? undefined : redactedValue) : hasRef(d.config[k]) ? d.config[k] : want[k] });
  }
  return out;
}

function diffRule(d: DesiredRule, r: Rule, refs: RefMaps): FieldChange[] {
  const want = fullRule(d) as Record<string, unknown>;
  const have = ruleAsFile(r, refs) as Record<string, unknown>;
  const out: FieldChange[] = [];
  for (const k of Object.keys(want)) fieldChanges(k, have[k], want[k], out);
  if (have.escalation_policy_id) out.push({ path: "escalation_policy_id", before: have.escalation_policy_id, after: null });
  return out;
}

/** A rule may name only monitors and channels the file or the organisation has. */
function checkRuleReferences(desired: DesiredState, refs: RefMaps, filePath = "The file") {
  const monitors = new Set([...refs.monitorId.keys(), ...desired.monitors.map((m) => m.key)]);
  const channels = new Set([...refs.channelId.keys(), ...(desired.channels ?? []).map((c) => c.key)]);
  const policies = new Set([...refs.policyId.keys(), ...(desired.escalation_policies ?? []).map((p) => p.key)]);
  const issues: { path: string; message: string }[] = [];
  (desired.escalation_policies ?? []).forEach((p, i) =>
    p.steps.forEach((st, j) =>
      st.channels.forEach((k, m) => {
        if (!channels.has(k)) issues.push({ path: `escalation_policies[${i}].steps[${j}].channels[${m}]`, message: `no channel with key "${k}" in the file or the organisation` });
      }),
    ),
  );
  (desired.rules ?? []).forEach((r, i) => {
    if ("monitor" in r.scope && !monitors.has(r.scope.monitor)) issues.push({ path: `rules[${i}].scope.monitor`, message: `no monitor with key "${r.scope.monitor}" in the file or the organisation` });
    (r.channels ?? []).forEach((c, j) => {
      if (!channels.has(c.channel)) issues.push({ path: `rules[${i}].channels[${j}].channel`, message: `no channel with key "${c.channel}" in the file or the organisation` });
    });
    if (r.escalation_policy && !policies.has(r.escalation_policy)) issues.push({ path: `rules[${i}].escalation_policy`, message: `no escalation policy with key "${r.escalation_policy}" in the file or the organisation` });
  });
  (desired.maintenance ?? []).forEach((w, i) =>
    (w.monitors ?? []).forEach((k, j) => {
      if (!monitors.has(k)) issues.push({ path: `maintenance[${i}].monitors[${j}]`, message: `no monitor with key "${k}" in the file or the organisation` });
    }),
  );
  (desired.status_pages ?? []).forEach((p, i) =>
    (p.sections ?? []).forEach((sec, j) =>
      sec.components.forEach((c, k) => {
        if ("monitor" in c && !monitors.has(c.monitor)) issues.push({ path: `status_pages[${i}].sections[${j}].components[${k}].monitor`, message: `no monitor with key "${c.monitor}" in the file or the organisation` });
      }),
    ),
  );
  if (issues.length) throw new CliError(`${filePath} names ${issues.length} key${issues.length === 1 ? "" : "s"} that no item of the file or the organisation has`, "INVALID_CONFIG", 1, { issues });
}

function diffPage(d: DesiredStatusPage, p: PageState, refs: RefMaps): FieldChange[] {
  const out: FieldChange[] = [];
  if (d.name !== p.page.name) out.push({ path: "name", before: p.page.name, after: d.name });
  if (d.description !== undefined && d.description !== p.page.description) out.push({ path: "description", before: p.page.description, after: d.description });
  if (d.theme_id !== undefined && d.theme_id !== p.page.theme_id) out.push({ path: "theme_id", before: p.page.theme_id, after: d.theme_id });
  if (d.sections !== undefined) {
    const have = p.layout ? layoutAsFile(p.layout, refs) : [];
    fieldChanges("sections", have, fullSections(d.sections), out);
  }
  return out;
}

function diffWindow(d: DesiredWindow, w: Window, refs: RefMaps): FieldChange[] {
  const want = fullWindow(d) as Record<string, unknown>;
  const have = windowAsFile(w, refs, fullWindow(d)) as Record<string, unknown>;
  return Object.keys(want).flatMap((k) => fieldChanges(k, have[k], want[k]));
}

/** One resource kind of the plan: its file entries, the organisation's by key, and how to compare them. */
interface KindPlan<D extends { name: string }, C> {
  kind: Change["kind"];
  desired: D[];
  /** A file entry's key; default its `key` field. */
  keyOf?: (d: D) => string;
  byKey: Map<string, C>;
  id: (c: C) => string;
  name: (c: C) => string;
  type: (d: D) => string;
  diff: (d: D, c: C) => FieldChange[];
  /**
   * The key stored on a resource (set by the CLI or a user), null for one known by a derived key. `--prune` may
   * delete only a resource whose stored key is in the file's scope (project.ts inScope). Omitted: this kind is
   * never deleted nor counted unmanaged.
   */
  stored?: (c: C) => string | null;
  /** Resources a file entry adopts (their stored key of no project becomes `<project>/<key>`), with their stored key. */
  adopted?: Map<C, string>;
}

/** Create what the file has and the organisation lacks, update what differs, delete (--prune) what the file no longer has. */
function planKind<D extends { name: string }, C>(k: KindPlan<D, C>, plan: Plan, o: PlanOptions, project: string | undefined): { writes: Change[]; deletes: Change[] } {
  const writes: Change[] = [];
  const deletes: Change[] = [];
  const named = new Set<C>();
  for (const d of k.desired) {
    const key = k.keyOf ? k.keyOf(d) : (d as unknown as { key: string }).key;
    const c = k.byKey.get(key);
    if (c === undefined) {
      writes.push({ kind: k.kind, action: "create", key, name: d.name, type: k.type(d), desired: d } as unknown as Change);
      continue;
    }
    named.add(c);
    const was = k.adopted?.get(c);
    const changes = [...(was !== undefined ? [{ path: "key", before: was, after: key }] : []), ...k.diff(d, c)];
    if (changes.length) writes.push({ kind: k.kind, action: "update", key, id: k.id(c), name: k.name(c), changes, desired: d, current: c } as unknown as Change);
    else plan.unchanged.push({ kind: k.kind, key, id: k.id(c), name: k.name(c) });
  }
  if (k.stored) {
    for (const [key, c] of k.byKey) {
      if (named.has(c)) continue;
      const stored = k.stored(c);
      const other = stored !== null && projectOf(stored) !== null && projectOf(stored) !== (project ?? null);
      const ours = stored === key && inScope(key, project);
      if (o.prune && ours) deletes.push({ kind: k.kind, action: "delete", key, id: k.id(c), name: k.name(c), current: c } as unknown as Change);
      else if (ours) plan.leftAlone.push({ kind: k.kind, key, id: k.id(c), name: k.name(c) });
      else if (other) plan.otherProjects++;
      else plan.unmanaged++;
    }
  }
  return { writes, deletes };
}

const byId = <C extends { id: string }>(c: C) => c.id;
const byName = <C extends { name: string }>(c: C) => c.name;
const none = { writes: [] as Change[], deletes: [] as Change[] };
const idsOf = <C extends { id: string }>(byKey: Map<string, C>) => new Map([...byKey].map(([k, c]) => [k, c.id]));

/**
 * Adoption of a file applied before it had a project: a file entry's `<project>/<key>` that no resource holds takes
 * the resource whose stored key is `<key>` (of no project). `byKey` is re-keyed in place; returns each adopted
 * resource with its stored key, so the plan shows the key change and apply writes the new key.
 */
function adopt<C>(byKey: Map<string, C>, keys: string[], project: string | undefined, stored: (c: C) => string | null): Map<C, string> {
  const adopted = new Map<C, string>();
  if (!project) return adopted;
  for (const key of keys) {
    if (byKey.has(key)) continue;
    const was = fileKeyOf(key, project);
    const c = byKey.get(was);
    if (c === undefined || was === key || stored(c) !== was) continue;
    byKey.delete(was);
    byKey.set(key, c);
    adopted.set(c, was);
  }
  return adopted;
}

/** What apply would do: create what the file has and the organisation lacks, update what differs, delete (--prune) what the CLI manages and the file no longer has. */
export function computePlan(
  file: DesiredState,
  monitors: Monitor[],
  channels: Channel[],
  rules: Rule[],
  o: PlanOptions,
  pages: PageState[] = [],
  windows: Window[] = [],
  policies: Policy[] = [],
): Plan {
  // Every key as stored (`<project>/<key>`), references to the file's own items alike.
  const desired = withProject(file);
  const project = desired.project;
  const storedKey = (c: { key: string | null }) => c.key;
  const keysOf = (list: { key: string }[] | undefined) => (list ?? []).map((d) => d.key);
  const monitorMap = monitorKeys(monitors);
  const channelMap = channelKeys(channels);
  const policyMap = keyed(policies, storedKey);
  const ruleMap = ruleKeys(rules);
  const windowMap = keyed(windows, storedKey);
  const adoptedMonitors = adopt(monitorMap, keysOf(desired.monitors), project, keyOf);
  const adoptedChannels = adopt(channelMap, keysOf(desired.channels), project, storedKey);
  const adoptedPolicies = adopt(policyMap, keysOf(desired.escalation_policies), project, storedKey);
  const adoptedRules = adopt(ruleMap, keysOf(desired.rules), project, storedKey);
  const adoptedWindows = adopt(windowMap, keysOf(desired.maintenance), project, storedKey);
  // Adopted resources are known by their new key already, so references to them compare as unchanged.
  const refs: RefMaps = { monitorId: idsOf(monitorMap), channelId: idsOf(channelMap), policyId: idsOf(policyMap) };
  checkRuleReferences(desired, refs, o.file);
  const plan: Plan = { changes: [], unchanged: [], unmanaged: 0, otherProjects: 0, leftAlone: [], unsetForApply: [], refs };
  const channelPlan = desired.channels
    ? planKind(
        { kind: "channel", desired: desired.channels, byKey: channelMap, id: byId, name: byName, type: (d) => d.type, diff: (d, c) => diffChannel(d, c, o), stored: storedKey, adopted: adoptedChannels },
        plan,
        o,
        project,
      )
    : none;
  const policyPlan = desired.escalation_policies
    ? planKind(
        {
          kind: "escalation_policy",
          desired: desired.escalation_policies,
          byKey: policyMap,
          id: byId,
          name: byName,
          type: (d) => `${d.steps.length} steps`,
          diff: (d, p) => {
            const want = { name: d.name, steps: d.steps };
            const have = policyAsFile(p, refs);
            return (["name", "steps"] as const).filter((f) => !same(want[f], have[f])).map((f) => ({ path: f, before: have[f], after: want[f] }));
          },
          stored: storedKey,
          adopted: adoptedPolicies,
        },
        plan,
        o,
        project,
      )
    : none;
  // Only monitors the CLI tagged are its to delete; the rest were made elsewhere.
  const monitorPlan = planKind(
    { kind: "monitor", desired: desired.monitors, byKey: monitorMap, id: byId, name: byName, type: (d) => d.type, diff: (d, m) => diffMonitor(d, m, o), stored: keyOf, adopted: adoptedMonitors },
    plan,
    o,
    project,
  );
  const rulePlan = desired.rules
    ? planKind(
        { kind: "rule", desired: desired.rules, byKey: ruleMap, id: byId, name: byName, type: (d) => String(d.condition.type), diff: (d, r) => diffRule(d, r, refs), stored: storedKey, adopted: adoptedRules },
        plan,
        o,
        project,
      )
    : none;
  // Status pages are keyed by slug and never deleted (--prune leaves them).
  const pagePlan = planKind(
    {
      kind: "status_page",
      desired: desired.status_pages ?? [],
      keyOf: (d) => d.slug,
      byKey: new Map(pages.map((p) => [p.page.slug, p])),
      id: (p) => p.page.id,
      name: (p) => p.page.name,
      type: () => "status page",
      diff: (d, p) => diffPage(d, p, refs),
    },
    plan,
    o,
    project,
  );
  const windowPlan = desired.maintenance
    ? planKind(
        {
          kind: "maintenance",
          desired: desired.maintenance,
          byKey: windowMap,
          id: byId,
          name: byName,
          type: (d) => (d.rrule ? "rrule" : d.cron ? "cron" : "once"),
          diff: (d, w) => diffWindow(d, w, refs),
          stored: storedKey,
          adopted: adoptedWindows,
        },
        plan,
        o,
        project,
      )
    : none;
  // In the order apply runs them: channel and policy writes, monitor and rule writes; status pages and maintenance
  // windows name monitors, so they are written after them and windows deleted before them; rules go before the
  // monitors they name; then monitor deletions; policies, then channels last: rules and policies may send to them
  // until they are gone.
  plan.changes.push(
    ...channelPlan.writes,
    ...policyPlan.writes,
    ...monitorPlan.writes,
    ...rulePlan.writes,
    ...pagePlan.writes,
    ...windowPlan.writes,
    ...windowPlan.deletes,
    ...rulePlan.deletes,
    ...monitorPlan.deletes,
    ...policyPlan.deletes,
    ...channelPlan.deletes,
  );
  plan.unsetForApply = unsetForApply(plan.changes, o.env);
  return plan;
}
