import type { Actor } from "../access/actor.ts";
import type { Sql } from "../../db/client.ts";
import { countMonitorStates, latestResultsOf, type BarResult, type StateCounts } from "../../db/queries/monitor-overview.ts";
import { listMonitors, type MonitorFilter, type MonitorRow } from "../../db/queries/monitors.ts";
import { uptimeForMonitors } from "../results/uptime.ts";

/** Results older than this are not drawn in a monitor's bar (keeps the scan to the newest partitions). */
const BAR_LOOKBACK_MS = 7 * 24 * 3600_000;

export interface MonitorOverview {
  counts: StateCounts;
  rows: { monitor: MonitorRow; uptime24h: number | null; bar: BarResult[] }[];
  total: number;
}

/**
 * What the dashboard's first screen shows, in four set-based queries whatever the page size: the
 * bucket counts of the whole organisation, a page of monitors (worst first unless sorted otherwise),
 * their 24 h uptime, and the last `bars` results of each, oldest first.
 */
export async function monitorsOverview(
  { sql, actor }: { sql: Sql; actor: Actor },
  filter: MonitorFilter,
  page: { limit: number; offset: number; bars: number },
  now = new Date(),
): Promise<MonitorOverview> {
  const [counts, list] = await Promise.all([countMonitorStates(sql, actor.orgId), listMonitors(sql, actor.orgId, { sort: "status", ...filter }, page.limit, page.offset)]);
  const ids = list.rows.map((m) => m.id);
  const [uptime, results] = await Promise.all([
    ids.length ? uptimeForMonitors(sql, actor.orgId, ids, "24h", { now }) : Promise.resolve({} as Awaited<ReturnType<typeof uptimeForMonitors>>),
    latestResultsOf(sql, actor.orgId, ids, page.bars, new Date(now.getTime() - BAR_LOOKBACK_MS)),
  ]);
  const bars = new Map<string, BarResult[]>(ids.map((id) => [id, []]));
  for (const r of results) bars.get(r.monitor_id)!.push(r);
  return {
    counts,
    total: list.total,
    rows: list.rows.map((monitor) => ({ monitor, uptime24h: uptime[monitor.id]?.uptime_pct ?? null, bar: bars.get(monitor.id)!.sort((a, b) => a.scheduled_at.getTime() - b.scheduled_at.getTime()) })),
  };
}
