import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, data } from "../../api/client";
import { EmptyState, ErrorMessage, fmtTime, Loading } from "../../components/ui";
import { Link } from "../../lib/router";

export function ActiveAlerts() {
  const qc = useQueryClient();
  const q = useQuery({ queryKey: ["alerts", "active"], queryFn: () => api.GET("/api/v1/alert-rules/active", { params: { query: { limit: 100 } } }).then(data), refetchInterval: 30_000 });
  const ack = useMutation({
    mutationFn: (a: { rule_id: string; monitor_id: string; region: string }) =>
      api.POST("/api/v1/alert-rules/{id}/acknowledge", { params: { path: { id: a.rule_id } }, body: { monitor_id: a.monitor_id, region: a.region } }),
    onSettled: () => qc.invalidateQueries({ queryKey: ["alerts"] }),
  });
  if (q.isPending) return <Loading what="alerts" />;
  if (q.isError) return <ErrorMessage error={q.error} />;
  return (
    <section aria-labelledby="alerts-h">
      <header className="page-head">
        <h1 id="alerts-h">Active alerts</h1>
        <Link to="/alerts/history">History</Link>
      </header>
      <ErrorMessage error={ack.error} />
      {q.data.data.length === 0 ? (
        <EmptyState title="All quiet">
          <p>No alert is firing. Alerts appear here when a rule's condition holds; add rules under Alert rules.</p>
        </EmptyState>
      ) : (
        <table className="table" data-testid="active-alerts">
          <thead>
            <tr>
              <th>Monitor</th>
              <th>Rule</th>
              <th>Region</th>
              <th>Since</th>
              <th>State</th>
            </tr>
          </thead>
          <tbody>
            {q.data.data.map((a) => (
              <tr key={`${a.rule_id}-${a.monitor_id}-${a.region}`}>
                <td>
                  <Link to={`/monitors/${a.monitor_id}`}>{a.monitor_name}</Link>
                </td>
                <td>{a.rule_name}</td>
                <td>{a.region}</td>
                <td>{fmtTime(a.since)}</td>
                <td>
                  {a.acknowledged ? (
                    <span className="badge">acknowledged</span>
                  ) : (
                    <button onClick={() => ack.mutate(a)} disabled={ack.isPending} aria-label={`Acknowledge ${a.rule_name} on ${a.monitor_name}`}>
                      Acknowledge
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function AlertHistory() {
  const q = useQuery({ queryKey: ["alerts", "history"], queryFn: () => api.GET("/api/v1/alerts/history", { params: { query: { limit: 100 } } }).then(data) });
  if (q.isPending) return <Loading what="alert history" />;
  if (q.isError) return <ErrorMessage error={q.error} />;
  const rows = q.data.data;
  return (
    <section aria-labelledby="history-h">
      <h1 id="history-h">Alert history</h1>
      {rows.length === 0 ? (
        <p className="muted">No notification has been sent yet.</p>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th>When</th>
              <th>Kind</th>
              <th>Monitor</th>
              <th>Region</th>
              <th>Channel</th>
              <th>Delivery</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.id}>
                <td>{fmtTime(r.created_at)}</td>
                <td>{r.kind}</td>
                <td>
                  <Link to={`/monitors/${r.monitor_id}`}>{r.monitor_id}</Link>
                </td>
                <td>{r.region}</td>
                <td>{r.channel_type ?? r.channel_id}</td>
                <td title={r.error ?? undefined}>
                  {r.status} (attempt {String(r.attempt)})
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
