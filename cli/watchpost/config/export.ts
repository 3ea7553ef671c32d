import { Value } from "@sinclair/typebox/value";
import type { TSchema } from "@sinclair/typebox";
import YAML from "yaml";
import { configSchemas, type CheckType } from "../../../schemas/check-types.ts";
import { CONFIG_FILE_VERSION, CONFIG_SCHEMA_ID } from "../../../schemas/monitoring-config.ts";
import { KEY_TAG_PREFIX, type Monitor } from "../monitor-ref.ts";
import { isMasked } from "./env-refs.ts";
import type { DesiredChannel, DesiredMonitor, DesiredPolicy, DesiredRule, DesiredState, DesiredStatusPage, DesiredWindow } from "./load.ts";
import { channelKeys, keyed, monitorKeys, refMaps, ruleKeys, same } from "./plan.ts";
import type { Window } from "./maintenance.ts";
import { type Policy, policyAsFile } from "./escalation.ts";
import { type RefMaps, type Rule, ruleAsFile } from "./rules.ts";
import { layoutAsFile } from "./status-pages.ts";
import type { PageState } from "./plan.ts";
import { type Channel, secretFieldsOf } from "./channels.ts";
import { fileKeyOf, inScope, projectOf } from "./project.ts";


/** The config without the values the type's defaults would fill in again (a shorter, equivalent file). */
function withoutDefaults(schema: TSchema, config: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(config)) {
    const probe = structuredClone(config);
    delete probe[k];
    const filled = Value.Default(schema, probe) as Record<string, unknown>;
    if (!same(filled[k], v)) out[k] = v;
  }
  return out;
}

const envName = (key: string, path: string[]) => `WATCHPOST_${[key, ...path].join("_").toUpperCase().replace(/[^A-Z0-9]+/g, "_")}`;

/** Masked secrets become ${WATCHPOST_<KEY>_<PATH>} references; their names are collected in `refs`. */
function referenceSecrets(value: unknown, key: string, path: string[], refs: string[]): unknown {
  if (isMasked(value)) {
    const name = envName(key, path);
    refs.push(name);
    return `\${${name}}`;
  }
  if (Array.isArray(value)) return value.map((v, i) => referenceSecrets(v, key, [...path, String(i)], refs));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, referenceSecrets(v, key, [...path, k], refs)]));
  return value;
}

export interface Exported {
  state: DesiredState;
  /** Resources the file cannot hold, with the reason (a rule naming something since deleted). */
  left_out: string[];
  /** Environment variables the file references for secrets the API does not reveal. */
  secretRefs: string[];
}

/** Channel secrets (masked by the API) become ${WATCHPOST_CHANNEL_<KEY>_<FIELD>} references. */
function exportChannel(key: string, c: Channel, refs: string[]): DesiredChannel {
  // Stored as sent (the API fills in no channel defaults), so exported as stored.
  const config = structuredClone(c.config);
  for (const field of secretFieldsOf(c.type)) {
    const v = config[field];
    if (typeof v === "string") config[field] = ref(envName(`channel_${key}`, [field]), refs);
    else if (v && typeof v === "object") config[field] = Object.fromEntries(Object.keys(v).map((h) => [h, ref(envName(`channel_${key}`, [field, h]), refs)]));
  }
  return { key, name: c.name, type: c.type, config, ...(c.enabled ? {} : { enabled: false }) };
}

const ref = (name: string, refs: string[]) => {
  refs.push(name);
  return `\${${name}}`;
};

/**
 * Only the items of the file's scope, keyed as the file keys them: with a project, the project's items (prefix
 * stripped); without one, the items of no project. Counts what it leaves out per project in `skipped`.
 */
function inFile<C>(byKey: Map<string, C>, project: string | undefined, skipped: Map<string, number>): [string, C][] {
  const out: [string, C][] = [];
  for (const [key, c] of byKey) {
    if (inScope(key, project)) out.push([fileKeyOf(key, project), c]);
    else if (!project) skipped.set(projectOf(key)!, (skipped.get(projectOf(key)!) ?? 0) + 1);
  }
  return out;
}

/**
 * The organisation's monitors (and alert channels, when it has any) as a config file (same keys `plan` matches them by).
 * With `project`, only that project's items, keyed without the prefix, and no status pages (they belong to no project);
 * without it, no item of a project.
 */
export function exportState(monitors: Monitor[], channels: Channel[] = [], rules: Rule[] = [], pages: PageState[] = [], windows: Window[] = [], policies: Policy[] = [], project?: string): Exported {
  const secretRefs: string[] = [];
  const entries: DesiredMonitor[] = [];
  const skipped = new Map<string, number>();
  for (const [key, m] of inFile(monitorKeys(monitors), project, skipped)) {
    const tags = m.tags.filter((t) => !t.startsWith(KEY_TAG_PREFIX));
    entries.push({
      key,
      name: m.name,
      type: m.type,
      config: referenceSecrets(withoutDefaults(configSchemas[m.type as CheckType] as TSchema, m.config), key, [], secretRefs) as Record<string, unknown>,
      interval_seconds: m.interval_seconds,
      timeout_ms: m.timeout_ms,
      ...(m.regions.length ? { regions: m.regions } : {}),
      ...(m.runner_ids.length ? { runner_ids: m.runner_ids } : {}),
      ...(tags.length ? { tags } : {}),
      ...(m.paused ? { paused: true } : {}),
    });
  }
  entries.sort((a, b) => a.key.localeCompare(b.key));
  const channelEntries = inFile(channelKeys(channels), project, skipped)
    .map(([key, c]) => exportChannel(key, c, secretRefs))
    .sort((a, b) => a.key.localeCompare(b.key));
  const refs = fileRefs(refMaps(monitors, channels, policies), project);
  const left_out: string[] = [];
  const policyEntries: DesiredPolicy[] = inFile(keyed(policies, (p) => p.key), project, skipped)
    .map(([key, p]) => ({ key, ...policyAsFile(p, refs) }))
    .sort((a, b) => a.key.localeCompare(b.key));
  const ruleEntries: DesiredRule[] = [];
  for (const [key, r] of inFile(ruleKeys(rules), project, skipped)) {
    const f = ruleAsFile(r, refs);
    // A reference no key names (a rule on a monitor since deleted) cannot be written as a key.
    const dangling = JSON.stringify([f.scope, f.channels, f.escalation_policy]).includes('"id:');
    if (dangling) {
      left_out.push(`rule "${r.name}" (${r.id}): it names a monitor, channel or policy that no longer exists${project ? ", or one outside the project whose key the project also uses" : ""}`);
      continue;
    }
    ruleEntries.push(shortRule(key, f));
  }
  ruleEntries.sort((a, b) => a.key.localeCompare(b.key));
  if (project && pages.length) left_out.push(`${pages.length} status page${pages.length === 1 ? "" : "s"}: status pages belong to no project (add one to the file by hand to manage it here)`);
  const pageEntries: DesiredStatusPage[] = (project ? [] : pages)
    .map(({ page, layout }) => ({
      slug: page.slug,
      name: page.name,
      ...(page.description ? { description: page.description } : {}),
      theme_id: page.theme_id,
      sections: (layout ? layoutAsFile(layout, refs) : []).map((s) => ({ name: s.name, components: s.components.map(({ description, ...c }) => (description ? { ...c, description } : c)) })),
    }))
    .sort((a, b) => a.slug.localeCompare(b.slug));
  const keyOfMonitor = new Map([...refs.monitorId].map(([k, id]) => [id, k]));
  const windowEntries: DesiredWindow[] = inFile(keyed(windows, (w) => w.key), project, skipped)
    .map(([key, w]) => ({
      key,
      name: w.name,
      ...(w.description ? { description: w.description } : {}),
      ...(w.starts_at ? { starts_at: w.starts_at } : {}),
      ...(w.ends_at ? { ends_at: w.ends_at } : {}),
      ...(w.rrule ? { rrule: w.rrule } : {}),
      ...(w.cron ? { cron: w.cron } : {}),
      ...(w.duration_minutes ? { duration_minutes: w.duration_minutes } : {}),
      ...(w.timezone !== "UTC" ? { timezone: w.timezone } : {}),
      ...(w.monitor_ids.length ? { monitors: w.monitor_ids.map((id) => keyOfMonitor.get(id) ?? `id:${id}`) } : {}),
      ...(w.tags.length ? { tags: w.tags } : {}),
      ...(w.pause_monitors ? { pause_monitors: true } : {}),
      ...(w.suppress_alerts ? {} : { suppress_alerts: false }),
    }))
    .sort((a, b) => a.key.localeCompare(b.key));
  for (const [p, n] of [...skipped].sort(([a], [b]) => a.localeCompare(b))) left_out.push(`${n} item${n === 1 ? "" : "s"} of project ${p}: export ${n === 1 ? "it" : "them"} with --project ${p}`);
  return {
    state: {
      version: CONFIG_FILE_VERSION,
      ...(project ? { project } : {}),
      monitors: entries,
      ...(windowEntries.length ? { maintenance: windowEntries } : {}),
      ...(channelEntries.length ? { channels: channelEntries } : {}),
      ...(policyEntries.length ? { escalation_policies: policyEntries } : {}),
      ...(ruleEntries.length ? { rules: ruleEntries } : {}),
      ...(pageEntries.length ? { status_pages: pageEntries } : {}),
    },
    secretRefs,
    left_out,
  };
}

/**
 * Key ↔ id maps as the file names them: the project's keys without the prefix; any other key as stored (a
 * reference to it stays as written). An outside key of no project that a project key also becomes is dropped: the
 * file could not tell the two apart (a reference to it is then left out, like one to a deleted item).
 */
function fileRefs(refs: RefMaps, project: string | undefined): RefMaps {
  if (!project) return refs;
  const rekey = (m: Map<string, string>) => {
    const own = new Set([...m.keys()].filter((k) => inScope(k, project)).map((k) => fileKeyOf(k, project)));
    return new Map([...m].filter(([k]) => inScope(k, project) || !own.has(k)).map(([k, id]) => [fileKeyOf(k, project), id]));
  };
  return { monitorId: rekey(refs.monitorId), channelId: rekey(refs.channelId), policyId: rekey(refs.policyId) };
}

/** A rule without the values its defaults give (a shorter, equivalent entry). */
function shortRule(key: string, f: ReturnType<typeof ruleAsFile>): DesiredRule {
  const confirmation = { ...(f.confirmation.consecutive_failures !== 1 ? { consecutive_failures: f.confirmation.consecutive_failures } : {}), ...(f.confirmation.confirmation_regions !== null ? { confirmation_regions: f.confirmation.confirmation_regions } : {}) };
  const n = f.notifications;
  const notifications = { ...(n.on_recovery ? {} : { on_recovery: false }), ...(n.recurring ? { recurring: true } : {}), ...(n.recurring_interval_minutes !== null ? { recurring_interval_minutes: n.recurring_interval_minutes } : {}) };
  return {
    key,
    name: f.name,
    ...(f.description !== null ? { description: f.description } : {}),
    ...(f.enabled ? {} : { enabled: false }),
    scope: f.scope,
    condition: f.condition,
    ...(Object.keys(confirmation).length ? { confirmation } : {}),
    ...(Object.keys(notifications).length ? { notifications } : {}),
    ...(f.escalation_policy ? { escalation_policy: f.escalation_policy } : { channels: f.channels.map((c) => (c.delay_minutes ? c : { channel: c.channel })) }),
  };
}

export function formatState(state: DesiredState, format: "yaml" | "json"): string {
  if (format === "json") return `${JSON.stringify({ $schema: CONFIG_SCHEMA_ID, ...state }, null, 2)}\n`;
  return `# yaml-language-server: $schema=${CONFIG_SCHEMA_ID}\n${YAML.stringify(state, { lineWidth: 0 })}`;
}
