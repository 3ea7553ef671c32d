import { useQueryClient, type QueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { authHeaders } from "../api/client";
import { refreshUptimeSoon, type UptimeRefreshOptions } from "./live-uptime";

export interface LiveEvent {
  id: string;
  type: string;
  at: string;
  data: Record<string, unknown>;
}

/**
 * Reads `/api/v1/events` with fetch rather than EventSource, because EventSource cannot send
 * X-Org-Id (the organisation switcher) — it resumes with Last-Event-ID the same way.
 */
function subscribeLive(onEvent: (e: LiveEvent) => void, onState: (live: boolean) => void): () => void {
  let stopped = false;
  let lastId: string | null = null;
  const ctrl = new AbortController();
  const run = async () => {
    while (!stopped) {
      try {
        const headers: Record<string, string> = { accept: "text/event-stream", ...authHeaders() };
        if (lastId) headers["last-event-id"] = lastId;
        const res = await fetch("/api/v1/events", { headers, credentials: "include", signal: ctrl.signal });
        if (!res.ok || !res.body) throw new Error(`events ${res.status}`);
        onState(true);
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buf = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += value;
          let cut: number;
          while ((cut = buf.indexOf("\n\n")) >= 0) {
            const frame = buf.slice(0, cut);
            buf = buf.slice(cut + 2);
            const dataLine = frame
              .split("\n")
              .filter((l) => l.startsWith("data: "))
              .map((l) => l.slice(6))
              .join("\n");
            if (!dataLine) continue;
            const e = JSON.parse(dataLine) as LiveEvent;
            lastId = e.id;
            onEvent(e);
          }
        }
      } catch {
        if (stopped) return;
      }
      onState(false);
      await new Promise((r) => setTimeout(r, 3000));
    }
  };
  void run();
  return () => {
    stopped = true;
    ctrl.abort();
  };
}

type MonitorPage = { data: Record<string, unknown>[]; pagination?: { hasMore?: boolean } };
/** The query key of a page of a monitor's check results: ["monitor-checks", id, filters]. */
export type ChecksFilters = { status?: string; location?: string; from?: string; to?: string; page: number };
type ChecksPage = { data: { id: string }[]; pagination: { total: number | string; limit: number | string } & Record<string, unknown> };

/** Applies a live event to the cached queries: monitor rows and result pages in place, the rest refetched. */
export function applyLiveEvent(qc: QueryClient, e: LiveEvent, uptime: UptimeRefreshOptions = {}) {
  const monitorId = e.data.monitor_id as string | undefined;
  if (e.type === "check.result" || e.type === "monitor.status_changed") {
    const patch =
      e.type === "check.result"
        ? { last_duration_ms: e.data.duration_ms, last_checked_at: e.data.checked_at }
        : { status: e.data.to, status_changed_at: e.data.at };
    // Unavailable results never change a monitor's state (docs/results-and-uptime.md).
    if (e.type === "monitor.status_changed" || e.data.status !== "unavailable") {
      // A list that holds the monitor is patched in place. A complete list that lacks it was cached before the
      // monitor was created: patching would mark it fresh and hide the new monitor, so it is refetched instead.
      let unknown = false;
      const lists = { queryKey: ["monitors"], predicate: (q: { queryKey: readonly unknown[] }) => q.queryKey[1] !== "overview" };
      qc.setQueriesData<{ pages: MonitorPage[] }>(lists, (old) => {
        if (!old?.pages) return undefined;
        if (!old.pages.some((p) => p.data.some((m) => m.id === monitorId))) {
          if (old.pages.at(-1)?.pagination?.hasMore !== true) unknown = true;
          return undefined;
        }
        return { ...old, pages: old.pages.map((p) => ({ ...p, data: p.data.map((m) => (m.id === monitorId ? { ...m, ...patch } : m)) })) };
      });
      if (unknown) void qc.invalidateQueries(lists);
      if (monitorId) qc.setQueryData<Record<string, unknown>>(["monitor", monitorId], (old) => (old ? { ...old, ...patch } : old));
    }
    if (monitorId) patchOverview(qc, monitorId, e, uptime);
    if (monitorId && e.type === "check.result") addLiveResult(qc, monitorId, e);
    if (monitorId && e.type === "monitor.status_changed") void qc.invalidateQueries({ queryKey: ["monitor-data", monitorId] });
  }
  if (e.type.startsWith("alert.")) {
    void qc.invalidateQueries({ queryKey: ["alerts"] });
    void qc.invalidateQueries({ queryKey: ["notifications"] });
  }
}

type Bar = { at: string; status: string; duration_ms: number | null; location: string };
type OverviewRow = { monitor: Record<string, unknown> & { id: string }; uptime_24h_pct?: number | null; bar: Bar[] } & Record<string, unknown>;
type OverviewPage = { counts: Record<string, number>; data: OverviewRow[] };
/** How many results each bar of the monitors overview holds (it asks the API for this many). */
export const OVERVIEW_BARS = 60;

/** The overview bucket a status falls in (paused monitors produce no events). */
const stateOfStatus = (status: string) => (status === "pending" ? "not_monitored" : status === "down" || status === "timeout" ? "down" : status === "degraded" ? "degraded" : "up");

/**
 * Live overview (queries ["monitors", "overview", …]): a result joins its monitor's bar and sets its
 * response time and 24 h uptime (lib/live-uptime.ts); a status change moves the monitor between the counts.
 */
function patchOverview(qc: QueryClient, monitorId: string, e: LiveEvent, uptime: UptimeRefreshOptions) {
  let unknown = false;
  let uptimeMoved = false;
  qc.setQueriesData<{ pages: OverviewPage[] }>({ queryKey: ["monitors", "overview"] }, (old) => {
    if (!old?.pages) return undefined;
    // Every monitor loaded and this one not among them: it is new since the overview was fetched (its counts
    // and its row come from a refetch, not from patching counts that never included it).
    const loaded = old.pages.reduce((n, p) => n + p.data.length, 0);
    if (loaded >= (old.pages[0]?.counts.total ?? 0) && !old.pages.some((p) => p.data.some((r) => r.monitor.id === monitorId))) {
      unknown = true;
      return undefined;
    }
    const pages = old.pages.map((p) => {
      let counts = p.counts;
      if (e.type === "monitor.status_changed") {
        const from = stateOfStatus(String(e.data.from)), to = stateOfStatus(String(e.data.to));
        if (from !== to) counts = { ...counts, [from]: Math.max(0, (counts[from] ?? 0) - 1), [to]: (counts[to] ?? 0) + 1 };
      }
      const data = p.data.map((row) => {
        if (row.monitor.id !== monitorId) return row;
        if (e.type === "monitor.status_changed") return { ...row, monitor: { ...row.monitor, status: e.data.to, status_changed_at: e.data.at } };
        const bar: Bar = { at: String(e.data.scheduled_at ?? e.data.checked_at), status: String(e.data.status), duration_ms: (e.data.duration_ms as number | null) ?? null, location: String(e.data.location ?? "") };
        if (row.bar.some((b) => b.at === bar.at && b.location === bar.location)) return row;
        const bars = [...row.bar, bar].slice(-OVERVIEW_BARS);
        if (bar.status === "unavailable") return { ...row, bar: bars };
        const monitor = { ...row.monitor, last_duration_ms: bar.duration_ms, last_checked_at: e.data.checked_at };
        // A passing result keeps a flawless (or empty) 24 h at 100 %; any other moves it by an amount only the API
        // knows (the window's other results), so this monitor's uptime is read again.
        const passed = bar.status === "up" || bar.status === "degraded";
        if (passed && (row.uptime_24h_pct == null || row.uptime_24h_pct === 100)) return { ...row, monitor, uptime_24h_pct: 100, bar: bars };
        uptimeMoved = true;
        return { ...row, monitor, bar: bars };
      });
      return { ...p, counts, data };
    });
    return { ...old, pages };
  });
  if (unknown) void qc.invalidateQueries({ queryKey: ["monitors", "overview"] });
  if (uptimeMoved) refreshUptimeSoon(qc, monitorId, uptime);
}

/**
 * Reads a query again once its read in flight is over. Invalidating it now would not do: a first read (no data yet)
 * is not cancelled by a refetch but shared, and its answer clears the invalidation.
 */
function readAgainWhenDone(qc: QueryClient, key: readonly unknown[]) {
  const query = qc.getQueryCache().find({ queryKey: key, exact: true });
  if (!query || waitingToReadAgain.has(query)) return;
  waitingToReadAgain.add(query);
  const unsubscribe = qc.getQueryCache().subscribe((event) => {
    if (event.query !== query || (event.type !== "removed" && query.state.fetchStatus !== "idle")) return;
    unsubscribe();
    waitingToReadAgain.delete(query);
    if (event.type !== "removed") void qc.invalidateQueries({ queryKey: key, exact: true });
  });
}
const waitingToReadAgain = new WeakSet<object>();

/** Puts a live result at the top of each cached first page of that monitor's results it belongs on. */
function addLiveResult(qc: QueryClient, monitorId: string, e: LiveEvent) {
  const row: Record<string, unknown> & { id: string } = { ...e.data, id: String(e.data.id ?? `live-${e.id}`), scheduled_at: e.data.checked_at, location_type: String(e.data.location ?? "").startsWith("run_") ? "runner" : "region" };
  for (const [key, old] of qc.getQueriesData<ChecksPage>({ queryKey: ["monitor-checks", monitorId] })) {
    const f = key[2] as ChecksFilters | undefined;
    if (!f || f.page !== 1 || f.to || (f.status && f.status !== row.status) || (f.location && f.location !== row.location)) continue;
    // A read in flight may have started before this result was stored (it is stored before its event is sent) and
    // would replace the page without it: read again instead, from now.
    if (qc.getQueryState(key)?.fetchStatus === "fetching") {
      readAgainWhenDone(qc, key);
      continue;
    }
    if (!old || old.data.some((r) => r.id === row.id)) continue;
    const limit = Number(old.pagination.limit) || 100;
    qc.setQueryData<ChecksPage>(key, { ...old, data: [row as never, ...old.data].slice(0, limit), pagination: { ...old.pagination, total: Number(old.pagination.total) + 1 } });
  }
}

/** One stream per signed-in page (the layout's): each event patches the query caches. */
export function useLiveEvents(enabled: boolean, orgId: string | null) {
  const qc = useQueryClient();
  const [live, setLive] = useState(false);
  useEffect(() => {
    if (!enabled || !orgId) return;
    return subscribeLive((e) => applyLiveEvent(qc, e), setLive);
  }, [enabled, orgId, qc]);
  return live;
}
