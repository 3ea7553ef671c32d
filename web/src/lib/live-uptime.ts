import type { QueryClient } from "@tanstack/react-query";
import { api, data } from "../api/client";

/** Reads the 24 h uptime of at most 100 monitors in one call (GET /monitors/uptime). */
export type ReadUptimes = (ids: string[]) => Promise<{ monitor_id: string; uptime_pct: number | null }[]>;

const readUptimesFromApi: ReadUptimes = (ids) =>
  api.GET("/api/v1/monitors/uptime", { params: { query: { ids: ids.join(",") } } }).then((r) => data(r).data);

/** GET /monitors/uptime takes at most this many ids. */
const MAX_IDS = 100;
/** At most one uptime read per this long per page, whatever the event rate (a session's budget is 600 calls a minute). */
const UPTIME_REFRESH_MS = 2000;

export type UptimeRefreshOptions = { read?: ReadUptimes; delayMs?: number };

const pending = new WeakMap<QueryClient, Set<string>>();

/**
 * Asks again, soon, for the 24 h uptime of a monitor shown in the overview, whose new result changed it: the
 * monitors that changed within `delayMs` are read together, 100 at a time, one read at a time, and their rows
 * patched in every cached overview — never the whole list again.
 */
export function refreshUptimeSoon(qc: QueryClient, monitorId: string, { read = readUptimesFromApi, delayMs = UPTIME_REFRESH_MS }: UptimeRefreshOptions = {}) {
  const ids = pending.get(qc);
  if (ids) {
    ids.add(monitorId);
    return;
  }
  pending.set(qc, new Set([monitorId]));
  setTimeout(() => void flush(qc, read, delayMs), delayMs);
}

async function flush(qc: QueryClient, read: ReadUptimes, delayMs: number) {
  const ids = pending.get(qc)!;
  const batch = [...ids].slice(0, MAX_IDS);
  for (const id of batch) ids.delete(id);
  try {
    const figures = new Map((await read(batch)).map((f) => [f.monitor_id, f.uptime_pct]));
    setOverviewUptime(qc, figures);
  } catch {
    // The row keeps its figure until the monitor's next result or the overview's next read.
  }
  // Monitors that changed meanwhile (or past the first 100) are read after the same pause.
  if (ids.size > 0) setTimeout(() => void flush(qc, read, delayMs), delayMs);
  else pending.delete(qc);
}

type Row = { monitor: { id: string }; uptime_24h_pct?: number | null };
function setOverviewUptime(qc: QueryClient, figures: Map<string, number | null>) {
  qc.setQueriesData<{ pages: { data: Row[] }[] }>({ queryKey: ["monitors", "overview"] }, (old) => {
    // Nothing to change: left alone (returning it would mark a stale overview fresh).
    if (!old?.pages?.some((p) => p.data.some((r) => figures.has(r.monitor.id)))) return undefined;
    return {
      ...old,
      pages: old.pages.map((p) => ({ ...p, data: p.data.map((r) => (figures.has(r.monitor.id) ? { ...r, uptime_24h_pct: figures.get(r.monitor.id)! } : r)) })),
    };
  });
}
