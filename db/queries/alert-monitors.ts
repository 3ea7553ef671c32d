import type { Sql } from "../client.ts";

/** What the alerting engine knows of a monitor: names for messages, tags for rule scopes and maintenance windows. */
export interface MonitorInfo {
  id: string;
  org_id: string;
  name: string;
  type: string;
  tags: string[];
  target: string | null;
}

/** A join on unnest, not `= any()`: with stale statistics `any` on a seq scan compares every row with every id. */
export async function loadMonitors(sql: Sql, ids: string[]): Promise<Map<string, MonitorInfo>> {
  if (ids.length === 0) return new Map();
  const rows = await sql<MonitorInfo[]>`
    select m.id, m.org_id, m.name, m.type, m.tags, coalesce(m.config->>'url', m.config->>'host', m.config->>'hostname', m.config->>'domain') as target
    from monitors m join unnest(${ids}::text[]) as i(id) using (id)`;
  return new Map(rows.map((m) => [m.id, m]));
}
