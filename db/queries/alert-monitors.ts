import type { Sql } from "../client.ts";

/** What the alerting engine knows of a monitor: names for messages, tags for rule scopes and maintenance windows. */
export interface MonitorInfo {
  id: string;
  org_id: string;
  name: string;
  type: string;
  tags: string[];
  target: string | null;
  /** Where its checks run (domain/monitors/locations.ts turns them into the locations its results come from). */
  regions: string[];
  runner_ids: string[];
  /** Checked nowhere now: paused by a person, or suspended over quota by billing. */
  paused: boolean;
  /** When it last stopped being checked and was checked again (db/migrations/…_monitor_pause_times.sql). */
  paused_at: Date | null;
  resumed_at: Date | null;
}

/** A join on unnest, not `= any()`: with stale statistics `any` on a seq scan compares every row with every id. */
export async function loadMonitors(sql: Sql, ids: string[]): Promise<Map<string, MonitorInfo>> {
  if (ids.length === 0) return new Map();
  const rows = await sql<MonitorInfo[]>`
    select m.id, m.org_id, m.name, m.type, m.tags, coalesce(m.config->>'url', m.config->>'host', m.config->>'hostname', m.config->>'domain') as target,
           m.regions, m.runner_ids, m.paused or m.suspended as paused, m.paused_at, m.resumed_at
    from monitors m join unnest(${ids}::text[]) as i(id) using (id)`;
  return new Map(rows.map((m) => [m.id, m]));
}

/** A runner's name, for messages that name the location an alert is in; undefined for an id no runner has. */
export async function runnerName(sql: Sql, orgId: string, runnerId: string): Promise<string | undefined> {
  const [row] = await sql<{ name: string }[]>`select name from runners where org_id = ${orgId} and id = ${runnerId}`;
  return row?.name;
}
