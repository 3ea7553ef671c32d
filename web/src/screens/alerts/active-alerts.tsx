import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { api, data } from "../../api/client";
import { MonitorName, useMonitorNames } from "../../components/monitor-name";
import { EmptyState, ErrorMessage, fmtTime, Loading } from "../../components/ui";
import { Link } from "../../lib/router";
import { fmtDuration } from "./timeline-entries";
import { useLocationName } from "../monitors/use-location-name";

export function ActiveAlerts() {
  const qc = useQueryClient();
  const place = useLocationName();
  const [show, setShow] = useState<"" | "open" | "acked">("");
  const q = useQuery({
    queryKey: ["alerts", "active", show],
    queryFn: () => api.GET("/api/v1/alert-rules/active", { params: { query: { limit: 100, ...(show ? { acknowledged: show === "acked" } : {}) } } }).then(data),
  });
  const ack = useMutation({
    mutationFn: (a: { rule_id: string; monitor_id: string; region?: string }) =>
      api.POST("/api/v1/alert-rules/{id}/acknowledge", { params: { path: { id: a.rule_id } }, body: { monitor_id: a.monitor_id, ...(a.region ? { region: a.region } : {}) } }),
    onSettled: () => qc.invalidateQueries({ queryKey: ["alerts"] }),
  });
  // Regions of one rule and monitor that fire together can be acknowledged in one go.
  const multi = useMemo(() => {
    const n = new Map<string, number>();
    for (const a of q.data?.data ?? []) if (!a.acknowledged) n.set(`${a.rule_id}|${a.monitor_id}`, (n.get(`${a.rule_id}|${a.monitor_id}`) ?? 0) + 1);
    return n;
  }, [q.data]);
  return (
    <section aria-labelledby="alerts-h">
      <header className="page-head">
        <h1 id="alerts-h">Active alerts</h1>
        <select aria-label="Show alerts" value={show} onChange={(e) => setShow(e.target.value as typeof show)}>
          <option value="">All firing</option>
          <option value="open">Not acknowledged</option>
          <option value="acked">Acknowledged</option>
        </select>
        <Link to="/alerts/history">Alert history</Link>
      </header>
      <ErrorMessage error={ack.error} />
      {q.isPending ? (
        <Loading what="alerts" />
      ) : q.isError ? (
        <ErrorMessage error={q.error} />
      ) : q.data.data.length === 0 ? (
        <EmptyState title="All quiet">
          <p>
            No alert is firing{show ? " with this filter" : ""}. Alerts appear here (and under the bell) the moment a rule's condition holds; set them up under <Link to="/alert-rules">Alert rules</Link>.
            Acknowledging one stops its escalations and reminders until it recovers.
          </p>
        </EmptyState>
      ) : (
        <div className="table-scroll">
          <table className="table" data-testid="active-alerts">
            <thead>
              <tr>
                <th scope="col">Monitor</th>
                <th scope="col">Rule</th>
                <th scope="col">Region</th>
                <th scope="col">Firing for</th>
                <th scope="col">Last notified</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {q.data.data.map((a) => (
                <tr key={`${a.rule_id}-${a.monitor_id}-${a.region}`}>
                  <td>
                    <Link to={`/monitors/${a.monitor_id}`}>{a.monitor_name}</Link>
                  </td>
                  <td>
                    <Link to={`/alerts/${encodeURIComponent(a.alert_id)}`}>{a.rule_name}</Link>
                  </td>
                  <td>{place(a.region)}</td>
                  <td title={fmtTime(a.since)}>
                    {fmtDuration(Date.now() - Date.parse(a.since))}{" "}
                    <small className="muted">
                      ({String(a.consecutive)} check{Number(a.consecutive) === 1 ? "" : "s"})
                    </small>
                  </td>
                  <td>{fmtTime(a.last_notified_at)}</td>
                  <td>
                    {/* A flex <td> left the table's layout (misaligned); the buttons sit in a row inside the cell. */}
                    <div className="row" style={{ margin: 0 }}>
                      {a.acknowledged ? (
                        <span className="badge">acknowledged</span>
                      ) : (
                        <>
                          <button onClick={() => ack.mutate(a)} disabled={ack.isPending} aria-label={`Acknowledge ${a.rule_name} on ${a.monitor_name}`}>
                            Acknowledge
                          </button>
                          {(multi.get(`${a.rule_id}|${a.monitor_id}`) ?? 0) > 1 && (
                            <button onClick={() => ack.mutate({ rule_id: a.rule_id, monitor_id: a.monitor_id })} disabled={ack.isPending}>
                              All regions
                            </button>
                          )}
                        </>
                      )}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

const KINDS = ["alert", "escalation", "reminder", "recovery", "acknowledgement"] as const;
const DELIVERY = ["sent", "retrying", "failed"] as const;

export function AlertHistory() {
  const place = useLocationName();
  const [kind, setKind] = useState("");
  const [status, setStatus] = useState("");
  const [page, setPage] = useState(1);
  const q = useQuery({
    queryKey: ["alerts", "history", kind, status, page],
    placeholderData: keepPreviousData,
    queryFn: () =>
      api
        .GET("/api/v1/alerts/history", {
          params: { query: { limit: 50, page, ...(kind ? { kind: kind as (typeof KINDS)[number] } : {}), ...(status ? { status: status as (typeof DELIVERY)[number] } : {}) } },
        })
        .then(data),
  });
  const rules = useQuery({ queryKey: ["alert-rules"], queryFn: () => api.GET("/api/v1/alert-rules", { params: { query: { limit: 100 } } }).then(data), staleTime: 60_000 });
  const channels = useQuery({ queryKey: ["alert-channels"], queryFn: () => api.GET("/api/v1/alert-channels", { params: { query: { limit: 100 } } }).then(data), staleTime: 60_000 });
  const monitors = useMonitorNames();
  const ruleName = new Map((rules.data?.data ?? []).map((r) => [r.id, r.name]));
  const channelName = new Map((channels.data?.data ?? []).map((c) => [c.id, c.name]));
  const pages = Number(q.data?.pagination.totalPages ?? 1);
  return (
    <section aria-labelledby="history-h">
      <header className="page-head">
        <h1 id="history-h">Alert history</h1>
        <Link to="/alerts">Active alerts</Link>
      </header>
      <div className="toolbar" role="group" aria-label="Filter history">
        <select aria-label="Kind" value={kind} onChange={(e) => (setKind(e.target.value), setPage(1))}>
          <option value="">Every kind</option>
          {KINDS.map((k) => (
            <option key={k}>{k}</option>
          ))}
        </select>
        <select aria-label="Delivery" value={status} onChange={(e) => (setStatus(e.target.value), setPage(1))}>
          <option value="">Any delivery</option>
          {DELIVERY.map((k) => (
            <option key={k}>{k}</option>
          ))}
        </select>
      </div>
      {q.isPending ? (
        <Loading what="alert history" />
      ) : q.isError ? (
        <ErrorMessage error={q.error} />
      ) : q.data.data.length === 0 ? (
        <p className="muted">{kind || status ? "Nothing matches these filters." : "No notification has been sent yet. Every alert, escalation, reminder, recovery and acknowledgement sent to a channel is listed here."}</p>
      ) : (
        <div className="table-scroll">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Kind</th>
                <th scope="col">Rule</th>
                <th scope="col">Monitor</th>
                <th scope="col">Region</th>
                <th scope="col">Channel</th>
                <th scope="col">Delivery</th>
                <th scope="col">Alert</th>
              </tr>
            </thead>
            <tbody>
              {q.data.data.map((r) => (
                <tr key={r.id}>
                  <td>{fmtTime(r.created_at)}</td>
                  <td>{r.kind}</td>
                  <td>{ruleName.get(r.rule_id) ?? r.rule_id}</td>
                  <td>
                    <HistoryMonitor id={r.monitor_id} names={monitors} />
                  </td>
                  <td>{place(r.region)}</td>
                  <td>
                    {channelName.get(r.channel_id) ?? r.channel_id} <small className="muted">{r.channel_type}</small>
                  </td>
                  <td>
                    <span className={r.status === "failed" ? "field-error" : ""}>{r.status}</span>
                    {Number(r.attempt) > 1 && <small className="muted"> attempt {String(r.attempt)}</small>}
                    {r.error && <div className="muted small">{r.error}</div>}
                  </td>
                  <td>{r.alert_id && <Link to={`/alerts/${encodeURIComponent(r.alert_id)}`} aria-label={`Timeline of the alert of this ${r.kind} (${fmtTime(r.created_at)})`}>Timeline</Link>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {pages > 1 && (
        <nav className="row" aria-label="History pages">
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
    </section>
  );
}

/**
 * A history row's monitor: its name from the list, "(deleted monitor)" without a link when the whole list does
 * not hold it, and looked up by id only when the list was too long to read whole (or could not be read).
 */
function HistoryMonitor({ id, names }: { id: string; names: ReturnType<typeof useMonitorNames> }) {
  const name = names.data?.names.get(id);
  if (name !== undefined) return <Link to={`/monitors/${id}`}>{name}</Link>;
  if (names.data?.complete) return <span className="muted">(deleted monitor)</span>;
  // The id until the list arrives, as MonitorName shows while it loads.
  if (names.isPending) return <>{id}</>;
  return (
    <Link to={`/monitors/${id}`}>
      <MonitorName id={id} />
    </Link>
  );
}
