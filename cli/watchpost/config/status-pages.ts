import { type ApiClient, allPages, data } from "../client.ts";
import { CliError } from "../errors.ts";
import type { DesiredComponent, DesiredStatusPage } from "./load.ts";
import type { RefMaps } from "./rules.ts";

/** A status page as the API shows it, with its layout (read for the pages a file names). */
export interface StatusPage {
  id: string;
  name: string;
  slug: string;
  description: string;
  theme_id: string;
}

export interface Layout {
  sections: { id: string; name: string; components: { id: string; monitor_id: string | null; tag: string | null; display_name: string; description: string }[] }[];
}

export async function listStatusPages(client: ApiClient): Promise<StatusPage[]> {
  return allPages((page) => client.GET("/api/v1/status-pages", { params: { query: { page, limit: 100 } } })) as Promise<StatusPage[]>;
}

export async function getLayout(client: ApiClient, id: string): Promise<Layout> {
  return data(await client.GET("/api/v1/status-pages/{id}/layout", { params: { path: { id } } })) as Layout;
}

type FileSections = { name: string; components: DesiredComponent[] }[];

/** The desired sections with every default spelled out (description ""), in the file's form. */
export const fullSections = (sections: FileSections): FileSections =>
  sections.map((s) => ({ name: s.name, components: s.components.map((c) => ({ ...("monitor" in c ? { monitor: c.monitor } : { tag: c.tag }), display_name: c.display_name, description: c.description ?? "" })) }));

/** A stored layout in the file's form: monitor ids become keys (`id:<id>` when no key names one). */
export function layoutAsFile(layout: Layout, refs: RefMaps): FileSections {
  const keyOf = new Map([...refs.monitorId].map(([k, id]) => [id, k]));
  return layout.sections.map((s) => ({
    name: s.name,
    components: s.components.map((c) => ({
      ...(c.monitor_id ? { monitor: keyOf.get(c.monitor_id) ?? `id:${c.monitor_id}` } : { tag: c.tag ?? "" }),
      display_name: c.display_name,
      description: c.description,
    })),
  }));
}

/**
 * The layout body for PUT /status-pages/{id}/layout: keys resolved to ids, and the ids of sections (by name)
 * and components (by what they show) the page already has, so they — and their history — are kept.
 */
export function layoutBody(d: DesiredStatusPage, current: Layout | null, refs: RefMaps) {
  const sectionIds = new Map((current?.sections ?? []).map((s) => [s.name, s]));
  return {
    sections: fullSections(d.sections ?? []).map((s) => {
      const existing = sectionIds.get(s.name);
      const componentIds = new Map((existing?.components ?? []).map((c) => [c.monitor_id ? `m:${c.monitor_id}` : `t:${c.tag}`, c.id]));
      return {
        ...(existing ? { id: existing.id } : {}),
        name: s.name,
        components: s.components.map((c) => {
          const monitorId = "monitor" in c ? refs.monitorId.get(c.monitor) : undefined;
          if ("monitor" in c && !monitorId) throw new CliError(`Status page ${d.slug}: no monitor with key "${c.monitor}"`, "INVALID_CONFIG");
          const id = componentIds.get(monitorId ? `m:${monitorId}` : `t:${"tag" in c ? c.tag : ""}`);
          return { ...(id ? { id } : {}), ...(monitorId ? { monitor_id: monitorId } : { tag: (c as { tag: string }).tag }), display_name: c.display_name, description: c.description };
        }),
      };
    }),
  };
}
