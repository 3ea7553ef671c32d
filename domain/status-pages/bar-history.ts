import type { Sql } from "../../db/client.ts";
import { type DailyBar, dailyBars } from "../results/uptime.ts";
import { DAY_MS } from "../results/segments.ts";

/** Past days change only when a late result lands; they are kept this long, today's bar never. */
const HISTORY_TTL_MS = 10 * 60_000;
const MAX_ENTRIES = 2_000;

const history = new Map<string, { bars: Record<string, DailyBar[]>; expires: number }>();

/**
 * The 90-day bars of some monitors: the 89 finished days from a per-process cache (keyed by the
 * day and the monitor set), today's from the rollups on every call, so the page stays exact for
 * today while a render reads 50 rows instead of 4,500.
 */
export async function ninetyDayBars(sql: Sql, orgId: string, monitorIds: string[], now: Date): Promise<Record<string, DailyBar[]>> {
  if (monitorIds.length === 0) return {};
  const yesterday = new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS - 1);
  const key = `${orgId}:${yesterday.toISOString().slice(0, 10)}:${[...monitorIds].sort().join(",")}`;
  const t = Date.now();
  let past = history.get(key);
  const todayP = dailyBars(sql, orgId, monitorIds, { days: 1, now });
  if (!past || past.expires < t) {
    past = { bars: await dailyBars(sql, orgId, monitorIds, { days: 89, now: yesterday }), expires: t + HISTORY_TTL_MS };
    if (history.size >= MAX_ENTRIES) history.clear();
    history.set(key, past);
  }
  const today = await todayP;
  return Object.fromEntries(monitorIds.map((id) => [id, [...(past.bars[id] ?? []), ...(today[id] ?? [])]]));
}

export function clearBarHistory(): void {
  history.clear();
}
