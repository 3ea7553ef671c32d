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
import { isSecretPath, redactConfig, redactedValue } from "./secret-paths.ts";

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
  /** How many monitors (and channels, rules, when the file has those lists) no file entry names and that stay. */
  unmanaged: number;
  /** Keys → ids of the organisation's monitors and channels now (apply adds the ones it creates). */
  refs: RefMaps;
}

export interface PlanOptions {
  prune: boolean;
  /** Treat every stored secret as changed (the API never shows them, so plan cannot compare them). */
  resendSecrets: boolean;
  env: NodeJS.ProcessEnv;
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
  out.push({ path: `config.${path.join(".")}`, before: shown(current), after: secret ? shown(desired) : hasRef(raw) ? raw : desired });
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
  for (const k of Object.keys(want)) if (!same(want[k], have[k])) out.push({ path: k, before: have[k], after: want[k] });
  if (have.escalation_policy_id) out.push({ path: "escalation_policy_id", before: have.escalation_policy_id, after: null });
  return out;
}

/** A rule may name only monitors and channels the file or the organisation has. */
function checkRuleReferences(desired: DesiredState, refs: RefMaps) {
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
  if (issues.length) throw new CliError(`The file's rules and status pages name ${issues.length} unknown monitor or channel key${issues.length === 1 ? "" : "s"}`, "INVALID_CONFIG", 1, { issues });
}

/** What apply would do: create what the file has and the organisation lacks, update what differs, delete (--prune) what the CLI manages and the file no longer has. */
function diffPage(d: DesiredStatusPage, p: PageState, refs: RefMaps): FieldChange[] {
  const out: FieldChange[] = [];
  if (d.name !== p.page.name) out.push({ path: "name", before: p.page.name, after: d.name });
  if (d.description !== undefined && d.description !== p.page.description) out.push({ path: "description", before: p.page.description, after: d.description });
  if (d.theme_id !== undefined && d.theme_id !== p.page.theme_id) out.push({ path: "theme_id", before: p.page.theme_id, after: d.theme_id });
  if (d.sections !== undefined) {
    const have = p.layout ? layoutAsFile(p.layout, refs) : [];
    if (!same(fullSections(d.sections), have)) out.push({ path: "sections", before: have, after: fullSections(d.sections) });
  }
  return out;
}

function diffWindow(d: DesiredWindow, w: Window, refs: RefMaps): FieldChange[] {
  const want = fullWindow(d) as Record<string, unknown>;
  const have = windowAsFile(w, refs, fullWindow(d)) as Record<string, unknown>;
  return Object.keys(want)
    .filter((k) => !same(want[k], have[k]))
    .map((k) => ({ path: k, before: have[k], after: want[k] }));
}

export function computePlan(
  desired: DesiredState,
  monitors: Monitor[],
  channels: Channel[],
  rules: Rule[],
  o: PlanOptions,
  pages: PageState[] = [],
  windows: Window[] = [],
  policies: Policy[] = [],
): Plan {
  const refs = refMaps(monitors, channels, policies);
  checkRuleReferences(desired, refs);
  const plan: Plan = { changes: [], unchanged: [], unmanaged: 0, refs };
  const deletions: Change[] = [];
  if (desired.channels) {
    const byKey = channelKeys(channels);
    const named = new Set<string>();
    for (const d of desired.channels) {
      const c = byKey.get(d.key);
      if (!c) {
        plan.changes.push({ kind: "channel", action: "create", key: d.key, name: d.name, type: d.type, desired: d });
        continue;
      }
      named.add(c.id);
      const changes = diffChannel(d, c, o);
      if (changes.length) plan.changes.push({ kind: "channel", action: "update", key: d.key, id: c.id, name: c.name, changes, desired: d, current: c });
      else plan.unchanged.push({ kind: "channel", key: d.key, id: c.id, name: c.name });
    }
    for (const [key, c] of byKey) {
      if (named.has(c.id)) continue;
      if (o.prune && c.key === key) deletions.push({ kind: "channel", action: "delete", key, id: c.id, name: c.name, current: c });
      else plan.unmanaged++;
    }
  }
  const policyDeletes: Change[] = [];
  if (desired.escalation_policies) {
    const byPolicyKey = keyed(policies, (p) => p.key);
    const namedPolicies = new Set<string>();
    for (const d of desired.escalation_policies) {
      const p = byPolicyKey.get(d.key);
      if (!p) {
        plan.changes.push({ kind: "escalation_policy", action: "create", key: d.key, name: d.name, type: `${d.steps.length} steps`, desired: d });
        continue;
      }
      namedPolicies.add(p.id);
      const want = { name: d.name, steps: d.steps };
      const have = policyAsFile(p, refs);
      const changes = (["name", "steps"] as const).filter((k) => !same(want[k], have[k])).map((k) => ({ path: k, before: have[k], after: want[k] }));
      if (changes.length) plan.changes.push({ kind: "escalation_policy", action: "update", key: d.key, id: p.id, name: p.name, changes, desired: d, current: p });
      else plan.unchanged.push({ kind: "escalation_policy", key: d.key, id: p.id, name: p.name });
    }
    for (const [key, p] of byPolicyKey) {
      if (namedPolicies.has(p.id)) continue;
      if (o.prune && p.key === key) policyDeletes.push({ kind: "escalation_policy", action: "delete", key, id: p.id, name: p.name, current: p });
      else plan.unmanaged++;
    }
  }
  const byKey = monitorKeys(monitors);
  const named = new Set<string>();
  for (const d of desired.monitors) {
    const m = byKey.get(d.key);
    if (!m) {
      plan.changes.push({ kind: "monitor", action: "create", key: d.key, name: d.name, type: d.type, desired: d });
      continue;
    }
    named.add(m.id);
    const changes = diffMonitor(d, m, o);
    if (changes.length) plan.changes.push({ kind: "monitor", action: "update", key: d.key, id: m.id, name: m.name, changes, desired: d, current: m });
    else plan.unchanged.push({ kind: "monitor", key: d.key, id: m.id, name: m.name });
  }
  for (const [key, m] of byKey) {
    if (named.has(m.id)) continue;
    // Only monitors the CLI tagged are its to delete; the rest were made elsewhere.
    if (o.prune && keyOf(m) === key) plan.changes.push({ kind: "monitor", action: "delete", key, id: m.id, name: m.name, current: m });
    else plan.unmanaged++;
  }
  if (desired.rules) {
    const byRuleKey = ruleKeys(rules);
    const namedRules = new Set<string>();
    const ruleDeletions: Change[] = [];
    for (const d of desired.rules) {
      const r = byRuleKey.get(d.key);
      if (!r) {
        plan.changes.push({ kind: "rule", action: "create", key: d.key, name: d.name, type: String(d.condition.type), desired: d });
        continue;
      }
      namedRules.add(r.id);
      const changes = diffRule(d, r, refs);
      if (changes.length) plan.changes.push({ kind: "rule", action: "update", key: d.key, id: r.id, name: r.name, changes, desired: d, current: r });
      else plan.unchanged.push({ kind: "rule", key: d.key, id: r.id, name: r.name });
    }
    for (const [key, r] of byRuleKey) {
      if (namedRules.has(r.id)) continue;
      if (o.prune && r.key === key) ruleDeletions.push({ kind: "rule", action: "delete", key, id: r.id, name: r.name, current: r });
      else plan.unmanaged++;
    }
    // Rules go before the monitors and channels they name.
    const firstDelete = plan.changes.findIndex((c) => c.action === "delete");
    plan.changes.splice(firstDelete < 0 ? plan.changes.length : firstDelete, 0, ...ruleDeletions);
  }
  // Status pages show monitors, so they come after them; they are never deleted (--prune leaves them).
  const bySlug = new Map(pages.map((p) => [p.page.slug, p]));
  const pageWrites: Change[] = [];
  for (const d of desired.status_pages ?? []) {
    const p = bySlug.get(d.slug);
    if (!p) {
      pageWrites.push({ kind: "status_page", action: "create", key: d.slug, name: d.name, type: "status page", desired: d });
      continue;
    }
    const changes = diffPage(d, p, refs);
    if (changes.length) pageWrites.push({ kind: "status_page", action: "update", key: d.slug, id: p.page.id, name: p.page.name, changes, desired: d, current: p });
    else plan.unchanged.push({ kind: "status_page", key: d.slug, id: p.page.id, name: p.page.name });
  }
  // Maintenance windows name monitors too: written after them, deleted (--prune, keyed ones) before them.
  const windowWrites: Change[] = [];
  const windowDeletes: Change[] = [];
  if (desired.maintenance) {
    const byWindowKey = keyed(windows, (w) => w.key);
    const named = new Set<string>();
    for (const d of desired.maintenance) {
      const w = byWindowKey.get(d.key);
      if (!w) {
        windowWrites.push({ kind: "maintenance", action: "create", key: d.key, name: d.name, type: d.rrule ? "rrule" : d.cron ? "cron" : "once", desired: d });
        continue;
      }
      named.add(w.id);
      const changes = diffWindow(d, w, refs);
      if (changes.length) windowWrites.push({ kind: "maintenance", action: "update", key: d.key, id: w.id, name: w.name, changes, desired: d, current: w });
      else plan.unchanged.push({ kind: "maintenance", key: d.key, id: w.id, name: w.name });
    }
    for (const [key, w] of byWindowKey) {
      if (named.has(w.id)) continue;
      if (o.prune && w.key === key) windowDeletes.push({ kind: "maintenance", action: "delete", key, id: w.id, name: w.name, current: w });
      else plan.unmanaged++;
    }
  }
  const firstDelete = plan.changes.findIndex((c) => c.action === "delete");
  plan.changes.splice(firstDelete < 0 ? plan.changes.length : firstDelete, 0, ...pageWrites, ...windowWrites, ...windowDeletes);
  // Policies, then channels go last: rules and policies may send to them until they are gone.
  plan.changes.push(...policyDeletes, ...deletions);
  return plan;
}
