import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";
import { api, data } from "../../api/client";
import { TimeChart } from "../../components/time-chart";
import { ErrorMessage, fmtMs, fmtPct, fmtTime, Loading, StatusBadge } from "../../components/ui";
import { subscribeLive, type LiveEvent } from "../../lib/live";
import { Link, useRouter } from "../../lib/router";
import type { Monitor } from "./use-monitors";

const WINDOWS = ["24h", "7d", "30d", "90d"] as const;
const PHASES = ["dns_ms", "connect_ms", "tls_ms", "ttfb_ms"] as const;

interface Check {
  at: string;
  location: string;
  status: string;
  duration_ms: number | null;
  error: string | null;
  data: Record<string, unknown>;
}

export function MonitorDetail({ id }: { id: string }) {
  const { navigate } = useRouter();
  const qc = useQueryClient();
  const q = useQuery({ queryKey: ["monitor", id], queryFn: () => api.GET("/api/v1/monitors/{id}", { params: { path: { id } } }).then(data) });
  const uptime = useQuery({
    queryKey: ["monitor-uptime", id],
    queryFn: () =>
      Promise.all(WINDOWS.map((w) => api.GET("/api/v1/monitors/uptime", { params: { query: { ids: id, window: w } } }).then((r) => [w, data(r).data[0]?.uptime_pct ?? null] as const))),
    refetchInterval: 60_000,
  });
  const checks = useLiveChecks(id);
  const action = useMutation({
    mutationFn: async (what: "run" | "pause" | "resume" | "delete") => {
      if (what === "delete") {
        if (!confirm("Delete this monitor and its history?")) return;
        await api.DELETE("/api/v1/monitors/{id}", { params: { path: { id } } });
        void qc.invalidateQueries({ queryKey: ["monitors"] });
        return navigate("/monitors");
      }
      const path = `/api/v1/monitors/{id}/${what}` as "/api/v1/monitors/{id}/pause";
      const res = await api.POST(path, { params: { path: { id } } });
      if (what !== "run" && res.data) qc.setQueryData(["monitor", id], res.data);
    },
    onSettled: () => qc.invalidateQueries({ queryKey: ["monitors"] }),
  });
  if (q.isPending) return <Loading what="monitor" />;
  if (q.isError) return <ErrorMessage error={q.error} />;
  const m = q.data as Monitor;
  const target = (m.config as Record<string, unknown>).url ?? (m.config as Record<string, unknown>).host ?? (m.config as Record<string, unknown>).domain;
  return (
    <section aria-labelledby="detail-h">
      <header className="page-head">
        <Link to="/monitors">← Monitors</Link>
        <h1 id="detail-h">{m.name}</h1>
        <StatusBadge status={m.status} paused={m.paused} />
      </header>
      <p className="muted">
        {m.type} · {String(target ?? "")} · every {String(m.interval_seconds)} s · from {[...m.regions, ...m.runner_ids].join(", ")}
      </p>
      <div className="row" role="toolbar" aria-label="Monitor actions">
        <button onClick={() => action.mutate("run")} disabled={action.isPending}>
          Run now
        </button>
        {m.paused ? <button onClick={() => action.mutate("resume")}>Resume</button> : <button onClick={() => action.mutate("pause")}>Pause</button>}
        <Link className="button" to={`/monitors/${id}/edit`}>
          Edit
        </Link>
        <button className="danger" onClick={() => action.mutate("delete")}>
          Delete
        </button>
      </div>
      <ErrorMessage error={action.error} />
      <dl className="stats">
        {(uptime.data ?? WINDOWS.map((w) => [w, undefined] as const)).map(([w, v]) => (
          <div key={w}>
            <dt>Uptime {w}</dt>
            <dd data-testid={`uptime-${w}`}>{v === undefined ? "…" : fmtPct(v)}</dd>
          </div>
        ))}
        <div>
          <dt>Last response</dt>
          <dd>{fmtMs(m.last_duration_ms)}</dd>
        </div>
        <div>
          <dt>Last checked</dt>
          <dd>{fmtTime(m.last_checked_at)}</dd>
        </div>
      </dl>
      <ResponseChart checks={checks} />
      <ChecksTable checks={checks} />
    </section>
  );
}

/** Results arriving live on /events; the history routes (`/monitors/:id/checks`) are not in the API yet. */
function useLiveChecks(id: string): Check[] {
  const [checks, setChecks] = useState<Check[]>([]);
  useEffect(
    () =>
      subscribeLive(
        (e: LiveEvent) => {
          if (e.type !== "check.result" || e.data.monitor_id !== id) return;
          const d = e.data;
          setChecks((c) => [{ at: String(d.checked_at ?? e.at), location: String(d.location ?? ""), status: String(d.status), duration_ms: (d.duration_ms as number) ?? null, error: (d.error as string) ?? null, data: (d.data as Record<string, unknown>) ?? {} }, ...c].slice(0, 500));
        },
        () => {},
      ),
    [id],
  );
  return checks;
}

function ResponseChart({ checks }: { checks: Check[] }) {
  const { x, series } = useMemo(() => {
    const ordered = [...checks].reverse();
    const locations = [...new Set(ordered.map((c) => c.location))];
    const x = ordered.map((c) => new Date(c.at).getTime() / 1000);
    const series = locations.map((loc) => ({ label: loc, values: ordered.map((c) => (c.location === loc ? c.duration_ms : null)) }));
    const timings = (c: Check) => (c.data.timings ?? c.data) as Record<string, unknown>;
    for (const p of PHASES) if (ordered.some((c) => typeof timings(c)[p] === "number")) series.push({ label: p.replace("_ms", ""), values: ordered.map((c) => (timings(c)[p] as number) ?? null) });
    return { x, series };
  }, [checks]);
  if (checks.length === 0) return <p className="muted">The response-time chart fills in as checks arrive.</p>;
  return <TimeChart x={x} series={series} label="Response time per region and timing phase" />;
}

function ChecksTable({ checks }: { checks: Check[] }) {
  const [status, setStatus] = useState("");
  const [open, setOpen] = useState<Check | null>(null);
  const shown = status ? checks.filter((c) => c.status === status) : checks;
  return (
    <section aria-labelledby="checks-h">
      <h2 id="checks-h">Recent checks</h2>
      <select aria-label="Filter checks by status" value={status} onChange={(e) => setStatus(e.target.value)}>
        <option value="">All</option>
        {["up", "down", "degraded", "timeout"].map((s) => (
          <option key={s}>{s}</option>
        ))}
      </select>
      <table className="table">
        <thead>
          <tr>
            <th>Time</th>
            <th>Location</th>
            <th>Status</th>
            <th>Duration</th>
            <th>Error</th>
          </tr>
        </thead>
        <tbody data-testid="checks-body">
          {shown.map((c, i) => (
            <tr key={`${c.at}-${i}`} tabIndex={0} onClick={() => setOpen(c)} onKeyDown={(e) => e.key === "Enter" && setOpen(c)}>
              <td>{fmtTime(c.at)}</td>
              <td>{c.location}</td>
              <td>
                <StatusBadge status={c.status} />
              </td>
              <td>{fmtMs(c.duration_ms)}</td>
              <td>{c.error ?? ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {open && (
        <div role="dialog" aria-label="Check result" className="card">
          <pre>{JSON.stringify(open, null, 2)}</pre>
          <button onClick={() => setOpen(null)} autoFocus>
            Close
          </button>
        </div>
      )}
    </section>
  );
}
