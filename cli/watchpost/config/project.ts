import type { DesiredState } from "./load.ts";

/**
 * A file's `project` (docs/cli.md): every item the file manages is stored under the key `<project>/<key>`, so
 * files of several repositories share an organisation and `--prune` deletes only the file's own items.
 */
const PROJECT_SEPARATOR = "/";

/** The project a stored key belongs to (`shop/api` → `shop`); null for a key of no project. */
export const projectOf = (key: string): string | null => {
  const i = key.indexOf(PROJECT_SEPARATOR);
  return i < 0 ? null : key.slice(0, i);
};

/** Whether a stored key is the file's to prune: with a project, `<project>/…`; without one, a key of no project. */
export const inScope = (key: string, project: string | undefined): boolean => (project ? key.startsWith(`${project}${PROJECT_SEPARATOR}`) : projectOf(key) === null);

/** The stored key of a file key: `<project>/<key>`, or the key itself without a project. */
const storedKeyOf = (key: string, project: string | undefined) => (project ? `${project}${PROJECT_SEPARATOR}${key}` : key);

/** The file key of a stored key of the project (`shop/api` → `api`); any other key stays as it is. */
export const fileKeyOf = (key: string, project: string | undefined) => (project && inScope(key, project) ? key.slice(project.length + 1) : key);

/**
 * The file with every key as stored: each item's key prefixed with the project, and every reference to an item of
 * the same file rewritten to match. A reference to an item the file does not hold stays as written (an
 * organisation-wide channel, another project's monitor). Without a project the file is returned as it is.
 */
export function withProject(desired: DesiredState): DesiredState {
  const project = desired.project;
  if (!project) return desired;
  const p = (key: string) => storedKeyOf(key, project);
  const monitors = new Set(desired.monitors.map((m) => m.key));
  const channels = new Set((desired.channels ?? []).map((c) => c.key));
  const policies = new Set((desired.escalation_policies ?? []).map((e) => e.key));
  const monitor = (k: string) => (monitors.has(k) ? p(k) : k);
  const channel = (k: string) => (channels.has(k) ? p(k) : k);
  const policy = (k: string) => (policies.has(k) ? p(k) : k);
  return {
    ...desired,
    monitors: desired.monitors.map((m) => ({ ...m, key: p(m.key) })),
    ...(desired.channels ? { channels: desired.channels.map((c) => ({ ...c, key: p(c.key) })) } : {}),
    ...(desired.escalation_policies
      ? { escalation_policies: desired.escalation_policies.map((e) => ({ ...e, key: p(e.key), steps: e.steps.map((s) => ({ ...s, channels: s.channels.map(channel) })) })) }
      : {}),
    ...(desired.rules
      ? {
          rules: desired.rules.map((r) => ({
            ...r,
            key: p(r.key),
            scope: "monitor" in r.scope ? { monitor: monitor(r.scope.monitor) } : r.scope,
            ...(r.channels ? { channels: r.channels.map((c) => ({ ...c, channel: channel(c.channel) })) } : {}),
            ...(r.escalation_policy !== undefined ? { escalation_policy: policy(r.escalation_policy) } : {}),
          })),
        }
      : {}),
    ...(desired.status_pages
      ? {
          status_pages: desired.status_pages.map((pg) => ({
            ...pg,
            ...(pg.sections ? { sections: pg.sections.map((s) => ({ ...s, components: s.components.map((c) => ("monitor" in c ? { ...c, monitor: monitor(c.monitor) } : c)) })) } : {}),
          })),
        }
      : {}),
    ...(desired.maintenance ? { maintenance: desired.maintenance.map((w) => ({ ...w, key: p(w.key), ...(w.monitors ? { monitors: w.monitors.map(monitor) } : {}) })) } : {}),
  };
}
