import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, data } from "../../api/client";
import { ErrorMessage, fmtMs, fmtPct, fmtTime, Loading, StatusBadge } from "../../components/ui";
import { fmtRunTime } from "../../components/run-time";
import { Link, useRouter } from "../../lib/router";
import { FirstCheckNotice } from "./check-outcome";
import { ChecksTable } from "./detail/checks-table";
import { UptimeCalendar } from "./detail/uptime-calendar";
import { RecentAlerts } from "./detail/recent-alerts";
import { HeartbeatPing } from "./heartbeat-ping";
import { ResponseCharts } from "./detail/response-charts";
import { MaintenanceNow } from "./detail/maintenance-now";
import { ExpirySummary } from "./detail/expiry-summary";
import type { Monitor } from "./use-monitors";
import { badgeState, monitorLocationsText } from "./locations";
import { useLocationName, useRunnerNames } from "./use-location-name";

const WINDOWS = ["24h", "7d", "30d", "90d"] as const;
const LABEL: Record<(typeof WINDOWS)[number], string> = { "24h": "24 h", "7d": "7 days", "30d": "30 days", "90d": "90 days" };

export function MonitorDetail({ id }: { id: string }) {
  const { navigate, search } = useRouter();
  // Just created (?created=<time>) or resumed here: show its first check as it comes in.
  const [firstSince, setFirstSince] = useState<{ since: string; what: "created" | "resumed" } | null>(() => (search.get("created") ? { since: search.get("created")!, what: "created" } : null));
  const qc = useQueryClient();
  const q = useQuery({ queryKey: ["monitor", id], queryFn: () => api.GET("/api/v1/monitors/{id}", { params: { path: { id } } }).then(data) });
  const uptime = useQuery({
    queryKey: ["monitor-data", id, "uptime"],
    queryFn: () => api.GET("/api/v1/monitors/{id}/uptime", { params: { path: { id } } }).then(data),
    refetchInterval: 60_000,
  });
  const runners = useRunnerNames();
  const nameOf = useLocationName();
  const [ran, setRan] = useState<string | null>(null);
  const action = useMutation({
    mutationFn: async (what: "run" | "pause" | "resume" | "delete") => {
      if (what === "delete") {
        if (!confirm("Delete this monitor and its history?")) return;
        await api.DELETE("/api/v1/monitors/{id}", { params: { path: { id } } });
        void qc.invalidateQueries({ queryKey: ["monitors"] });
        return navigate("/monitors");
      }
      if (what === "run") {
        setRan(null);
        const r = await api.POST("/api/v1/monitors/{id}/run", { params: { path: { id } } }).then(data);
        setRan(`Checked from ${nameOf(r.location)}: ${r.status} in ${fmtMs(r.duration_ms)}${r.error ? ` — ${r.error}` : ""}${r.recorded ? "" : " (not recorded: the monitor is paused)"}`);
        return;
      }
      const res = await api.POST(`/api/v1/monitors/{id}/${what}`, { params: { path: { id } } });
      if (res.data) qc.setQueryData(["monitor", id], res.data);
      if (res.data && what === "resume") setFirstSince({ since: res.data.updated_at, what: "resumed" });
    },
    onSettled: () => qc.invalidateQueries({ queryKey: ["monitors"] }),
  });
  if (q.isPending) return <Loading what="monitor" />;
  if (q.isError) return <ErrorMessage error={q.error} />;
  const m = q.data as Monitor;
  const cfg = m.config as Record<string, unknown>;
  const target = cfg.url ?? hostAndPort(cfg) ?? cfg.domain ?? cfg.name;
  const w = uptime.data?.windows;
  const byLocation = w?.["24h"].locations ?? [];
  return (
    <section aria-labelledby="detail-h">
      <header className="page-head">
        <Link to="/monitors">← Monitors</Link>
        <h1 id="detail-h">{m.name}</h1>
        <StatusBadge status={badgeState(m)} />
      </header>
      <p className="muted">
        {m.type} · {target === undefined ? "" : `${String(target)} · `}{m.type === "heartbeat" ? heartbeatTiming(cfg) : `every ${String(m.interval_seconds)} s · from ${monitorLocationsText(m, runners)}`}
        {m.tags.length > 0 && " · "}
        {m.tags.map((t) => (
          <Link key={t} to={`/monitors?tag=${encodeURIComponent(t)}`} className="tag">
            {t}
          </Link>
        ))}
      </p>
      {m.monitored === false && !m.suspended && !m.paused && (
        <p className="error" role="note" data-testid="not-monitored">
          Not monitored: {m.not_monitored_reason ?? "no region or runner to run on"}. Its due checks are recorded as unavailable. <Link to={`/monitors/${m.id}/edit`}>Edit the monitor</Link>
        </p>
      )}
      <MaintenanceNow id={m.id} />
      {m.suspended && (
        <p className="error" role="note">
          Suspended: this monitor is over your plan's quota, so it is kept but not checked. <Link to="/billing">Change plan</Link> or delete other monitors.
        </p>
      )}
      {firstSince && m.type !== "heartbeat" && <FirstCheckNotice monitorId={m.id} since={firstSince.since} what={firstSince.what} paused={m.paused} onDismiss={() => setFirstSince(null)} />}
      {m.heartbeat_url && <HeartbeatPing url={m.heartbeat_url} config={cfg} />}
      <div className="row" role="toolbar" aria-label="Monitor actions">
        {m.type !== "heartbeat" && (
          <button onClick={() => action.mutate("run")} disabled={action.isPending}>
            {action.isPending && action.variables === "run" ? "Checking…" : "Run now"}
          </button>
        )}
        {m.paused ? <button onClick={() => action.mutate("resume")}>Resume</button> : <button onClick={() => action.mutate("pause")}>Pause</button>}
        <Link className="button" to={`/monitors/${id}/edit`}>
          Edit
        </Link>
        <button className="danger" onClick={() => action.mutate("delete")}>
          Delete
        </button>
        <span role="status" className="muted">
          {ran}
        </span>
      </div>
      <ErrorMessage error={action.error} />
      <dl className="stats">
        {WINDOWS.map((win) => (
          <div key={win}>
            <dt>Uptime {LABEL[win]}</dt>
            <dd data-testid={`uptime-${win}`}>{w ? fmtPct(w[win].uptime_pct) : "…"}</dd>
          </div>
        ))}
        <div>
          <dt>{m.type === "heartbeat" ? "Last run time" : "Last response"}</dt>
          <dd>{fmtRunTime(m.type, { status: m.status, duration_ms: m.last_duration_ms })}</dd>
        </div>
        <div>
          <dt>Last checked</dt>
          <dd className="small">{fmtTime(m.last_checked_at)}</dd>
        </div>
      </dl>
      <ErrorMessage error={uptime.error} />
      <ExpirySummary monitor={m} />
      {byLocation.length > 1 && (
        <table className="table compact">
          <caption>Last 24 h by location</caption>
          <thead>
            <tr>
              <th scope="col">Location</th>
              <th scope="col">Uptime</th>
              <th scope="col">Checks</th>
              <th scope="col">Down or timed out</th>
            </tr>
          </thead>
          <tbody>
            {byLocation.map((l) => (
              <tr key={l.location}>
                <td>{nameOf(l.location)}</td>
                <td>{fmtPct(l.uptime_pct)}</td>
                <td>{String(l.total)}</td>
                <td>{Number(l.down) + Number(l.timeout)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <UptimeCalendar id={id} />
      <ResponseCharts monitor={m} />
      <RecentAlerts id={id} />
      <ChecksTable monitor={m} />
    </section>
  );
}

/** "expected 03:00 daily…": the heartbeat's period or schedule, with its grace time. */
function heartbeatTiming(cfg: Record<string, unknown>): string {
  const grace = `${String(cfg.grace_seconds ?? 0)} s grace`;
  if (cfg.schedule) return `expected on schedule ${String(cfg.schedule)} (${String(cfg.timezone ?? "UTC")}), ${grace}`;
  return `expected every ${String(cfg.period_seconds)} s, ${grace}`;
}

/** "host:port" for a check with a port (TCP, SMTP), the host alone otherwise; an IPv6 address in brackets. */
function hostAndPort(cfg: Record<string, unknown>): string | undefined {
  if (typeof cfg.host !== "string") return undefined;
  if (typeof cfg.port !== "number") return cfg.host;
  return `${cfg.host.includes(":") ? `[${cfg.host}]` : cfg.host}:${String(cfg.port)}`;
}
