import { keepPreviousData, useMutation, useQuery } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { api, data, downloadFile } from "../../../api/client";
import { fmtRunTime } from "../../../components/run-time";
import { ErrorMessage, fmtTime, Loading, StatusBadge } from "../../../components/ui";
import type { ChecksFilters } from "../../../lib/live";
import { Link } from "../../../lib/router";
import type { Monitor } from "../use-monitors";
import type { CheckResult } from "./chart-data";
import { locationsOf } from "./response-charts";
import { ResultFields } from "./result-detail";
import { useLocationName } from "../use-location-name";

const STATUSES = ["up", "down", "degraded", "timeout", "unavailable"] as const;
const LIMIT = 25;
const iso = (local: string) => (local ? new Date(local).toISOString() : undefined);
/** The start of a heartbeat ping's body for the table; the result's details show all of it. */
const excerpt = (body: unknown) => (typeof body === "string" ? (body.length > 80 ? `${body.slice(0, 80)}…` : body) : "");

/** Filters as query parameters: the list's and the export's. */
function queryOf(f: Omit<ChecksFilters, "page">) {
  return {
    ...(f.status ? { status: f.status as (typeof STATUSES)[number] } : {}),
    ...(f.location ? { location: f.location } : {}),
    ...(f.from ? { from: f.from } : {}),
    ...(f.to ? { to: f.to } : {}),
  };
}

export function ChecksTable({ monitor }: { monitor: Monitor }) {
  const heartbeat = monitor.type === "heartbeat";
  const id = monitor.id;
  const nameOf = useLocationName();
  const [filters, setFilters] = useState<Omit<ChecksFilters, "page">>({});
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<CheckResult | null>(null);
  const dialog = useRef<HTMLDialogElement>(null);
  const key: ChecksFilters & { limit: number } = { ...filters, page, limit: LIMIT };
  const q = useQuery({
    queryKey: ["monitor-checks", id, key],
    placeholderData: keepPreviousData,
    queryFn: () => api.GET("/api/v1/monitors/{id}/checks", { params: { path: { id }, query: { ...queryOf(filters), page, limit: LIMIT } } }).then(data),
  });
  const exporter = useMutation({
    mutationFn: (format: "csv" | "json") => downloadFile(`/api/v1/monitors/${id}/checks/export?${new URLSearchParams({ format, ...queryOf(filters) })}`, `checks.${format}`),
  });
  const set = (patch: Partial<typeof filters>) => {
    setFilters((f) => ({ ...f, ...patch }));
    setPage(1);
  };
  const show = (c: CheckResult) => {
    setOpen(c);
    queueMicrotask(() => dialog.current?.showModal());
  };
  const total = Number(q.data?.pagination.total ?? 0);
  const pages = Math.max(1, Number(q.data?.pagination.totalPages ?? 1));
  return (
    <section aria-labelledby="checks-h" className="panel">
      <header className="page-head">
        <h2 id="checks-h">Checks</h2>
        <span className="muted" role="status">
          {q.data ? `${total.toLocaleString()} result${total === 1 ? "" : "s"}` : ""}
        </span>
        <div className="row end">
          <button onClick={() => exporter.mutate("csv")} disabled={exporter.isPending}>
            Export CSV
          </button>
          <button onClick={() => exporter.mutate("json")} disabled={exporter.isPending}>
            Export JSON
          </button>
        </div>
      </header>
      <div className="toolbar" role="group" aria-label="Filter checks">
        <select aria-label="Filter checks by status" value={filters.status ?? ""} onChange={(e) => set({ status: e.target.value || undefined })}>
          <option value="">All statuses</option>
          {STATUSES.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
        <select aria-label="Filter checks by region or runner" value={filters.location ?? ""} onChange={(e) => set({ location: e.target.value || undefined })}>
          <option value="">All locations</option>
          {locationsOf(monitor).map((l) => (
            <option key={l} value={l}>
              {nameOf(l)}
            </option>
          ))}
        </select>
        <label className="inline">
          From <input type="datetime-local" aria-label="From" onChange={(e) => set({ from: iso(e.target.value) })} />
        </label>
        <label className="inline">
          To <input type="datetime-local" aria-label="To" onChange={(e) => set({ to: iso(e.target.value) })} />
        </label>
      </div>
      <ErrorMessage error={exporter.error ?? q.error} />
      {q.isPending ? (
        <Loading what="checks" />
      ) : q.data && q.data.data.length === 0 ? (
        <p className="muted">{Object.keys(queryOf(filters)).length ? "No check matches these filters." : heartbeat ? "No results yet. One appears here live when the first ping arrives or a deadline passes without one." : "No checks yet. “Run now” checks at once; scheduled checks appear here live."}</p>
      ) : (
        <div className="table-scroll">
          <table className="table checks">
            <caption className="sr-only">Check results, newest first; press Enter on a row for its details</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Location</th>
                <th scope="col">Status</th>
                <th scope="col">{heartbeat ? "Run time" : "Duration"}</th>
                <th scope="col">Error</th>
                {heartbeat && <th scope="col">Ping body</th>}
              </tr>
            </thead>
            <tbody data-testid="checks-body">
              {q.data?.data.map((c) => (
                <tr
                  key={c.id}
                  tabIndex={0}
                  className="clickable"
                  aria-label={`${c.status} from ${nameOf(c.location)} at ${fmtTime(c.checked_at)}: details`}
                  onClick={() => show(c)}
                  onKeyDown={(e) => (e.key === "Enter" || e.key === " ") && (e.preventDefault(), show(c))}
                >
                  <td>{fmtTime(c.checked_at)}</td>
                  <td>{nameOf(c.location)}</td>
                  <td>
                    <StatusBadge status={c.status} />
                  </td>
                  <td>{fmtRunTime(monitor.type, c)}</td>
                  <td className="error-cell">{c.error ?? ""}</td>
                  {heartbeat && <td className="body-cell">{excerpt(c.data.body)}</td>}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {pages > 1 && (
        <nav className="row" aria-label="Check pages">
          <button onClick={() => setPage(page - 1)} disabled={page <= 1}>
            Newer
          </button>
          <span>
            Page {page} of {pages}
          </span>
          <button onClick={() => setPage(page + 1)} disabled={page >= pages}>
            Older
          </button>
        </nav>
      )}
      <dialog ref={dialog} aria-labelledby="result-h" onClose={() => setOpen(null)} className="result-dialog">
        {open && (
          <>
            <h2 id="result-h">
              Check from {nameOf(open.location)} <StatusBadge status={open.status} />
            </h2>
            <ResultFields result={open} type={monitor.type} />
            <div className="row">
              {!open.id.startsWith("live-") && <Link to={`/monitors/${id}/checks/${open.id}`}>Open as a page</Link>}
              <button onClick={() => dialog.current?.close()} autoFocus>
                Close
              </button>
            </div>
          </>
        )}
      </dialog>
    </section>
  );
}
