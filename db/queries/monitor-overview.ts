import type { Sql } from "../client.ts";
import { MONITOR_STATE_SQL, type MonitorState } from "./monitors.ts";

export type StateCounts = Record<MonitorState, number> & { total: number };

/** How many of an organisation's monitors are in each overview bucket, in one counting query. */
export async function countMonitorStates(sql: Sql, orgId: string): Promise<StateCounts> {
  const rows = await sql<{ state: MonitorState; n: number }[]>`
    select ${sql.unsafe(MONITOR_STATE_SQL)} as state, count(*)::int as n from monitors where org_id = ${orgId} group by 1`;
  const counts: StateCounts = { up: 0, down: 0, degraded: 0, paused: 0, not_monitored: 0, total: 0 };
  for (const r of rows) {
    counts[r.state] = r.n;
    counts.total += r.n;
  }
  return counts;
}

export interface BarResult {
  monitor_id: string;
  scheduled_at: Date;
  status: string;
  duration_ms: number | null;
  location: string;
}

/**
 * The last `count` results of each monitor (from every location, newest first), within `since`,
 * in one query: a lateral index scan per monitor on (org_id, monitor_id, scheduled_at desc).
 */
export async function latestResultsOf(sql: Sql, orgId: string, monitorIds: readonly string[], count: number, since: Date): Promise<BarResult[]> {
  if (monitorIds.length === 0) return [];
  return sql<BarResult[]>`
    select m.id as monitor_id, r.scheduled_at, r.status, r.duration_ms, r.location
    from unnest(${monitorIds as string[]}::text[]) as m(id)
    cross join lateral (
      select scheduled_at, status, duration_ms, location from check_results
      where org_id = ${orgId} and monitor_id = m.id and scheduled_at >= ${since}
      order by scheduled_at desc limit ${count}
    ) r`;
}
