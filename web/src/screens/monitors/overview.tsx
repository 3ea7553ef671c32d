import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useDeferredValue, useEffect, useMemo, useRef, useState } from "react";
import { api } from "../../api/client";
import { EmptyState, ErrorMessage, fmtMs, fmtPct, Loading, StatusBadge } from "../../components/ui";
import { Link } from "../../lib/router";
import { useMonitorPages, useUptimeFor, type Monitor, type MonitorFilters } from "./use-monitors";

type SortKey = "name" | "status" | "uptime" | "response";
const STATUS_RANK: Record<string, number> = { down: 0, timeout: 1, degraded: 2, pending: 3, up: 4 };
const ROW_HEIGHT = 52;

export function MonitorsOverview() {
  const [searchText, setSearchText] = useState("");
  const search = useDeferredValue(searchText.trim());
  const [status, setStatus] = useState("");
  const [type, setType] = useState("");
  const [sort, setSort] = useState<SortKey>("status");
  const filters: MonitorFilters = { ...(search ? { search } : {}), ...(status === "paused" ? { paused: true } : status ? { status } : {}), ...(type ? { type } : {}) };
  const q = useMonitorPages(filters);
  const pages = useMemo(() => (q.data?.pages ?? []).map((p) => p.data), [q.data]);
  const uptime = useUptimeFor(pages);
  const total = Number(q.data?.pages[0]?.pagination.total ?? 0);
  const rows = useMemo(() => sortRows(pages.flat(), sort, uptime), [pages, sort, uptime]);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const qc = useQueryClient();
  const bulk = useMutation({
    mutationFn: async (action: "pause" | "resume" | "delete") => {
      if (action === "delete" && !confirm(`Delete ${selected.size} monitor(s)? Their history goes too.`)) return;
      await api.POST(`/api/v1/monitors/bulk/${action}`, { body: { ids: [...selected] } });
      setSelected(new Set());
    },
    onSettled: () => qc.invalidateQueries({ queryKey: ["monitors"] }),
  });

  const scrollRef = useRef<HTMLDivElement>(null);
  const searchRef = useRef<HTMLInputElement>(null);
  useEffect(() => {
    // "/" jumps to the search box, as on most dashboards.
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "/" && !(e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement || e.target instanceof HTMLSelectElement)) {
        e.preventDefault();
        searchRef.current?.focus();
      }
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, []);
  const virtual = useVirtualizer({ count: rows.length, getScrollElement: () => scrollRef.current, estimateSize: () => ROW_HEIGHT, overscan: 10 });
  const items = virtual.getVirtualItems();
  const lastIndex = items[items.length - 1]?.index ?? 0;
  useEffect(() => {
    if (lastIndex >= rows.length - 20 && q.hasNextPage && !q.isFetchingNextPage) void q.fetchNextPage();
  }, [lastIndex, rows.length, q.hasNextPage, q.isFetchingNextPage]);

  const filtered = Boolean(search || status || type);
  if (q.isPending) return <Loading what="monitors" />;
  if (q.isError) return <ErrorMessage error={q.error} />;
  if (total === 0 && !filtered) return <FirstMonitor />;

  const toggle = (id: string) => setSelected((s) => (s.has(id) ? (s.delete(id), new Set(s)) : new Set(s.add(id))));
  return (
    <section aria-labelledby="monitors-h">
      <header className="page-head">
        <h1 id="monitors-h">Monitors</h1>
        <span className="muted" data-testid="monitor-count">
          {total} monitor{total === 1 ? "" : "s"}
        </span>
        <Link className="button primary" to="/monitors/new">
          New monitor
        </Link>
      </header>
      <div className="toolbar" role="search">
        <input ref={searchRef} type="search" aria-label="Search monitors by name" placeholder="Search by name (press /)" value={searchText} onChange={(e) => setSearchText(e.target.value)} />
        <select aria-label="Filter by status" value={status} onChange={(e) => setStatus(e.target.value)}>
          <option value="">All statuses</option>
          {["up", "down", "degraded", "timeout", "pending", "paused"].map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
        <select aria-label="Filter by type" value={type} onChange={(e) => setType(e.target.value)}>
          <option value="">All types</option>
          {["http", "keyword", "ssl", "tcp", "dns", "ping", "domain", "heartbeat", "browser_lite", "browser_flow"].map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
        <select aria-label="Sort by" value={sort} onChange={(e) => setSort(e.target.value as SortKey)}>
          <option value="status">Worst status first</option>
          <option value="name">Name</option>
          <option value="uptime">Lowest uptime first</option>
          <option value="response">Slowest first</option>
        </select>
      </div>
      {selected.size > 0 && (
        <div className="bulk" role="toolbar" aria-label="Bulk actions">
          <span>{selected.size} selected</span>
          <button onClick={() => bulk.mutate("pause")}>Pause</button>
          <button onClick={() => bulk.mutate("resume")}>Resume</button>
          <button className="danger" onClick={() => bulk.mutate("delete")}>
            Delete
          </button>
          <button onClick={() => setSelected(new Set())}>Clear</button>
        </div>
      )}
      <ErrorMessage error={bulk.error} />
      {rows.length === 0 ? (
        <p className="muted">No monitor matches these filters.</p>
      ) : (
        <div className="monitor-table" role="table" aria-label="Monitors" aria-rowcount={total}>
          <div className="monitor-row head" role="row">
            <span role="columnheader">
              <input
                type="checkbox"
                aria-label="Select all loaded monitors"
                checked={selected.size > 0 && selected.size === rows.length}
                onChange={(e) => setSelected(e.target.checked ? new Set(rows.map((r) => r.id)) : new Set())}
              />
            </span>
            <span role="columnheader">Status</span>
            <span role="columnheader">Name</span>
            <span role="columnheader">Uptime 24 h</span>
            <span role="columnheader" className="hide-phone">
              Response
            </span>
            <span role="columnheader" className="hide-phone">
              Tags
            </span>
          </div>
          <div ref={scrollRef} className="monitor-scroll" data-testid="monitor-scroll">
            <div style={{ height: virtual.getTotalSize(), position: "relative" }}>
              {items.map((item) => {
                const m = rows[item.index]!;
                return (
                  <div
                    key={m.id}
                    role="row"
                    aria-rowindex={item.index + 2}
                    className="monitor-row"
                    data-monitor-id={m.id}
                    style={{ position: "absolute", top: 0, left: 0, right: 0, height: ROW_HEIGHT, transform: `translateY(${item.start}px)` }}
                  >
                    <span role="cell">
                      <input type="checkbox" aria-label={`Select ${m.name}`} checked={selected.has(m.id)} onChange={() => toggle(m.id)} />
                    </span>
                    <span role="cell">
                      <StatusBadge status={m.status} paused={m.paused} />
                    </span>
                    <span role="cell" className="name">
                      <Link to={`/monitors/${m.id}`}>
                        {m.name}
                      </Link>
                      <small className="muted"> {m.type}</small>
                    </span>
                    <span role="cell">{fmtPct(uptime.get(m.id))}</span>
                    <span role="cell" className="hide-phone">
                      {fmtMs(m.last_duration_ms)}
                    </span>
                    <span role="cell" className="hide-phone tags">
                      {m.tags.map((t) => (
                        <span key={t} className="tag">
                          {t}
                        </span>
                      ))}
                    </span>
                  </div>
                );
              })}
            </div>
          </div>
        </div>
      )}
    </section>
  );
}

function sortRows(rows: Monitor[], key: SortKey, uptime: Map<string, number | null>): Monitor[] {
  const by: Record<SortKey, (a: Monitor, b: Monitor) => number> = {
    name: (a, b) => a.name.localeCompare(b.name),
    status: (a, b) => (a.paused ? 9 : STATUS_RANK[a.status] ?? 5) - (b.paused ? 9 : STATUS_RANK[b.status] ?? 5) || a.name.localeCompare(b.name),
    uptime: (a, b) => (uptime.get(a.id) ?? 101) - (uptime.get(b.id) ?? 101),
    response: (a, b) => Number(b.last_duration_ms ?? -1) - Number(a.last_duration_ms ?? -1),
  };
  return [...rows].sort(by[key]);
}

function FirstMonitor() {
  return (
    <EmptyState title="Watch your first site in under a minute">
      <ol>
        <li>Paste the address you want to watch.</li>
        <li>We check it every few minutes from the regions you pick.</li>
        <li>When it stops answering, you see it here and get alerted.</li>
      </ol>
      <Link className="button primary" to="/monitors/new">
        Create your first monitor
      </Link>
    </EmptyState>
  );
}
