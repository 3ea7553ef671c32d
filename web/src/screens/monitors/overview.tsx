import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useDeferredValue, useEffect, useMemo, useRef, useState, type KeyboardEvent } from "react";
import { api, data } from "../../api/client";
import { ResultBar } from "../../components/result-bar";
import { SuspendedBadge } from "../../components/widgets";
import { badgeState } from "./locations";
import { EmptyState, ErrorMessage, fmtMs, fmtPct, Loading, StatusBadge } from "../../components/ui";
import { Link, useRouter } from "../../lib/router";
import { CHECK_TYPES } from "./monitor-body";
import { OVERVIEW_BARS } from "../../lib/live";
import { useMyRole } from "../org/use-permissions";
import { useMonitorOverview, type MonitorFilters, type MonitorSort, type MonitorState } from "./use-monitors";

const ROW_HEIGHT = 52;
/** The counts at the top, each a filter: worst first. */
const STATES: [MonitorState, string][] = [
  ["down", "Down"],
  ["degraded", "Degraded"],
  ["up", "Up"],
  ["paused", "Paused"],
  ["not_monitored", "Not monitored"],
];
const SORTS: Record<MonitorSort, string> = { status: "Worst status first", name: "Name", response_time: "Slowest first", created: "Newest first" };

/** Filters live in the URL too, so a link (a tag, a shared view) opens the same list. */
function useUrlFilters() {
  const { search } = useRouter();
  const [state, setState] = useState(() => ({
    text: search.get("search") ?? "",
    // An unknown state in a hand-edited link shows everything rather than an error.
    state: (STATES.some(([s]) => s === search.get("state")) ? search.get("state") : "") as MonitorState | "",
    type: search.get("type") ?? "",
    tag: search.get("tag") ?? "",
    sort: ((search.get("sort") as MonitorSort | null) ?? "status") as MonitorSort,
  }));
  useEffect(() => {
    const q = new URLSearchParams();
    if (state.text.trim()) q.set("search", state.text.trim());
    for (const k of ["state", "type", "tag"] as const) if (state[k]) q.set(k, state[k]);
    if (state.sort !== "status") q.set("sort", state.sort);
    const url = `${location.pathname}${q.size ? `?${q}` : ""}`;
    if (url !== location.pathname + location.search) history.replaceState(null, "", url);
  }, [state]);
  return [state, (patch: Partial<typeof state>) => setState((s) => ({ ...s, ...patch }))] as const;
}

export function MonitorsOverview() {
  const [f, set] = useUrlFilters();
  const router = useRouter();
  const { navigate } = router;
  // "/" pressed on another screen lands here with ?focus=search (read once: the filters rewrite the URL).
  const focusSearch = useRef(router.search.get("focus") === "search");
  // A viewer sees the monitors but is not offered what the API would refuse them.
  const writes = useMyRole().can("monitors:write");
  const search = useDeferredValue(f.text.trim());
  const filters: MonitorFilters = {
    sort: f.sort,
    ...(search ? { search } : {}),
    ...(f.state ? { state: f.state } : {}),
    ...(f.type ? { type: f.type } : {}),
    ...(f.tag ? { tag: f.tag } : {}),
  };
  const q = useMonitorOverview(filters);
  const total = Number(q.data?.pages[0]?.pagination.total ?? 0);
  const counts = q.data?.pages[0]?.counts;
  const rows = useMemo(() => (q.data?.pages ?? []).flatMap((p) => p.data), [q.data]);
  const groups = useQuery({ queryKey: ["monitor-groups"], queryFn: () => api.GET("/api/v1/monitor-groups", { params: { query: { limit: 100 } } }).then(data), staleTime: 60_000 });
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const qc = useQueryClient();
  const [bulkDone, setBulkDone] = useState("");
  const bulk = useMutation({
    mutationFn: async (action: "pause" | "resume" | "delete") => {
      if (action === "delete" && !confirm(`Delete ${selected.size} monitor(s)? Their history goes too.`)) return;
      const res = await api.POST(`/api/v1/monitors/bulk/${action}`, { body: { ids: [...selected] } }).then(data);
      setSelected(new Set());
      setBulkDone(`${action === "delete" ? "Deleted" : action === "pause" ? "Paused" : "Resumed"} ${String(res.affected)} monitor${Number(res.affected) === 1 ? "" : "s"}`);
    },
    onSettled: () => qc.invalidateQueries({ queryKey: ["monitors"] }),
  });

  const scrollRef = useRef<HTMLDivElement>(null);
  const searchRef = useRef<HTMLInputElement>(null);
  useEffect(() => {
    // "/" jumps to the search box, as on most dashboards.
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.key === "/" && !(e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement || e.target instanceof HTMLSelectElement)) {
        e.preventDefault();
        searchRef.current?.focus();
      }
    };
    addEventListener("keydown", onKey);
    if (focusSearch.current && searchRef.current) {
      focusSearch.current = false;
      searchRef.current.focus();
    }
    return () => removeEventListener("keydown", onKey);
  }, [q.isPending]);
  const virtual = useVirtualizer({ count: rows.length, getScrollElement: () => scrollRef.current, estimateSize: () => ROW_HEIGHT, overscan: 10 });
  const items = virtual.getVirtualItems();
  const lastIndex = items[items.length - 1]?.index ?? 0;
  useEffect(() => {
    if (lastIndex >= rows.length - 20 && q.hasNextPage && !q.isFetchingNextPage) void q.fetchNextPage();
  }, [lastIndex, rows.length, q.hasNextPage, q.isFetchingNextPage]);

  // Arrow keys move between rows (the list is virtualised, so the target row may need rendering first).
  const [focusAt, setFocusAt] = useState<number | null>(null);
  useEffect(() => {
    if (focusAt == null) return;
    scrollRef.current?.querySelector<HTMLAnchorElement>(`[data-index="${focusAt}"] a`)?.focus();
  }, [focusAt, items]);
  const onRowKey = (e: KeyboardEvent, index: number) => {
    if (e.key === "ArrowUp" && index === 0 && !(e.target instanceof HTMLInputElement)) {
      // Back up into the search box the results came from.
      e.preventDefault();
      searchRef.current?.focus();
      return;
    }
    const to = e.key === "ArrowDown" ? index + 1 : e.key === "ArrowUp" ? index - 1 : e.key === "Home" ? 0 : e.key === "End" ? rows.length - 1 : null;
    if (to == null || to < 0 || to >= rows.length || e.target instanceof HTMLInputElement) return;
    e.preventDefault();
    virtual.scrollToIndex(to);
    setFocusAt(to);
  };

  /** From the search box: ↓ moves into the results, Enter opens the first one. */
  const onSearchKey = (e: KeyboardEvent) => {
    if (rows.length === 0) return;
    if (e.key === "ArrowDown") {
      e.preventDefault();
      virtual.scrollToIndex(0);
      setFocusAt(null);
      queueMicrotask(() => setFocusAt(0));
    } else if (e.key === "Enter") {
      e.preventDefault();
      navigate(`/monitors/${rows[0]!.monitor.id}`);
    }
  };

  if (q.isPending) return <Loading what="monitors" />;
  if (q.isError) return <ErrorMessage error={q.error} />;
  if (!counts?.total) return <FirstMonitor />;

  const toggle = (id: string) => setSelected((s) => (s.has(id) ? (s.delete(id), new Set(s)) : new Set(s.add(id))));
  return (
    <section aria-labelledby="monitors-h">
      <header className="page-head">
        <h1 id="monitors-h">Monitors</h1>
        <span className="muted" data-testid="monitor-count">
          {total} monitor{total === 1 ? "" : "s"}
        </span>
        {writes && (
          <Link className="button primary" to="/monitors/new">
            New monitor
          </Link>
        )}
      </header>
      <NoAlertRules />
      <ul className="state-counts" aria-label="Monitors by state (each one filters the list)" data-testid="state-counts">
        {STATES.map(([state, label]) => (
          <li key={state}>
            <button className={`state-count state-${state}`} aria-pressed={f.state === state} data-state={state} onClick={() => set({ state: f.state === state ? "" : state })}>
              <strong>{counts[state]}</strong>
              <span>{label}</span>
            </button>
          </li>
        ))}
      </ul>
      <div className="toolbar" role="search">
        <input
          ref={searchRef}
          type="search"
          aria-label="Search monitors by name"
          aria-describedby="search-keys"
          placeholder="Search by name (press /)"
          value={f.text}
          onChange={(e) => set({ text: e.target.value })}
          onKeyDown={onSearchKey}
        />
        <select aria-label="Filter by type" value={f.type} onChange={(e) => set({ type: e.target.value })}>
          <option value="">All types</option>
          {CHECK_TYPES.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
        <select aria-label="Filter by tag" value={f.tag} onChange={(e) => set({ tag: e.target.value })}>
          <option value="">All tags</option>
          {f.tag && !groups.data?.data.some((g) => g.tag === f.tag) && <option>{f.tag}</option>}
          {(groups.data?.data ?? []).map((g) => (
            <option key={g.tag}>{g.tag}</option>
          ))}
        </select>
        <select aria-label="Sort by" value={f.sort} onChange={(e) => set({ sort: e.target.value as MonitorSort })}>
          {Object.entries(SORTS).map(([k, v]) => (
            <option key={k} value={k}>
              {v}
            </option>
          ))}
        </select>
      </div>
      {writes && selected.size > 0 && (
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
      <p role="status" className="muted">
        {bulkDone}
      </p>
      <ErrorMessage error={bulk.error} />
      {rows.length === 0 ? (
        <p className="muted">
          No monitor matches these filters.{" "}
          <button className="link" onClick={() => set({ text: "", state: "", type: "", tag: "" })}>
            Clear filters
          </button>
        </p>
      ) : (
        <div className="monitor-table" role="table" aria-label="Monitors" aria-rowcount={total + 1}>
          <div className="monitor-row head" role="row" aria-rowindex={1}>
            <span role="columnheader">
              <input
                type="checkbox"
                aria-label="Select all loaded monitors"
                checked={selected.size > 0 && selected.size === rows.length}
                onChange={(e) => setSelected(e.target.checked ? new Set(rows.map((r) => r.monitor.id)) : new Set())}
              />
            </span>
            <span role="columnheader">Status</span>
            <span role="columnheader">Name</span>
            <span role="columnheader">Latest checks</span>
            <span role="columnheader" className="hide-phone">
              Uptime 24 h
            </span>
            <span role="columnheader" className="hide-phone">
              Response
            </span>
            <span role="columnheader" className="hide-phone">
              Tags
            </span>
          </div>
          <div ref={scrollRef} className="monitor-scroll" data-testid="monitor-scroll">
            <div style={{ height: virtual.getTotalSize(), position: "relative" }} role="rowgroup">
              {items.map((item) => {
                const row = rows[item.index]!;
                const m = row.monitor;
                return (
                  <div
                    key={m.id}
                    role="row"
                    aria-rowindex={item.index + 2}
                    data-index={item.index}
                    className={`monitor-row${selected.has(m.id) ? " selected" : ""}`}
                    data-monitor-id={m.id}
                    onKeyDown={(e) => onRowKey(e, item.index)}
                    style={{ position: "absolute", top: 0, left: 0, right: 0, height: ROW_HEIGHT, transform: `translateY(${item.start}px)` }}
                  >
                    <span role="cell">
                      <input type="checkbox" aria-label={`Select ${m.name}`} checked={selected.has(m.id)} onChange={() => toggle(m.id)} />
                    </span>
                    <span role="cell">
                      <StatusBadge status={badgeState(m)} />
                    </span>
                    <span role="cell" className="name">
                      <Link to={`/monitors/${m.id}`}>{m.name}</Link>
                      <small className="muted"> {m.type}</small>
                      {m.suspended && (
                        <>
                          {" "}
                          <SuspendedBadge what="monitor" />
                        </>
                      )}
                    </span>
                    <span role="cell">
                      <ResultBar results={row.bar} slots={OVERVIEW_BARS} name={m.name} />
                    </span>
                    <span role="cell" className="hide-phone" data-testid="uptime-24h">
                      {fmtPct(row.uptime_24h_pct)}
                    </span>
                    <span role="cell" className="hide-phone">
                      {fmtMs(m.last_duration_ms)}
                    </span>
                    <span role="cell" className="hide-phone tags">
                      {m.tags.map((t) => (
                        <button key={t} className="tag" onClick={() => set({ tag: t })} aria-label={`Show monitors tagged ${t}`}>
                          {t}
                        </button>
                      ))}
                    </span>
                  </div>
                );
              })}
            </div>
          </div>
          {q.isFetchingNextPage && (
            <p className="muted" role="status">
              Loading more…
            </p>
          )}
        </div>
      )}
      <p className="muted hint" id="search-keys">
        Tip: press / to search, ↑ ↓ to move between monitors, Enter to open one{writes ? ", n for a new monitor" : ""}, ? for every shortcut.
      </p>
    </section>
  );
}

function FirstMonitor() {
  const { can, loading } = useMyRole();
  if (loading) return <Loading what="your role" />;
  if (!can("monitors:write")) {
    return (
      <EmptyState title="No monitors yet">
        <p>Nobody in this organisation watches anything yet. Your role can see monitors but not create them; an owner, admin or member can.</p>
      </EmptyState>
    );
  }
  return (
    <EmptyState title="Watch your first site in under a minute">
      <ol>
        <li>Paste the address you want to watch.</li>
        <li>We check it every few minutes from the regions you pick.</li>
        <li>When it stops answering, you see it here and get alerted.</li>
      </ol>
      <div className="row">
        <Link className="button primary" to="/monitors/new">
          Create your first monitor
        </Link>
        <Link className="button" to="/monitors/new?type=heartbeat">
          Watch a cron job instead
        </Link>
      </div>
      <p className="muted">
        Then add an <Link to="/alert-channels">alert channel</Link> and a <Link to="/alert-rules">rule</Link> so someone hears about it.
      </p>
    </EmptyState>
  );
}

/**
 * A failing monitor tells nobody until a rule says whom to tell: said above the list while the organisation has no
 * enabled alert rule (a new installation's first hour), gone once it has one. Hidden from those who cannot read rules.
 */
function NoAlertRules() {
  // The alert screens' own query (same key), so a rule made there clears this at once.
  const rules = useQuery({ queryKey: ["alert-rules"], queryFn: () => api.GET("/api/v1/alert-rules", { params: { query: { limit: 100 } } }).then(data), staleTime: 60_000, retry: false });
  if (!rules.data || Number(rules.data.pagination.total) > rules.data.data.length || rules.data.data.some((r) => r.enabled)) return null;
  return (
    <p role="status" className="notice" data-testid="no-alert-rules">
      Nobody is told when a monitor fails: this organisation has no alert rule{rules.data.data.length > 0 ? " turned on" : ""} yet. <Link to="/alert-rules">Set up alerts</Link>
    </p>
  );
}
