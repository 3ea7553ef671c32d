import { useQuery } from "@tanstack/react-query";
import { api, data } from "../../../api/client";
import { ErrorMessage, fmtTime } from "../../../components/ui";
import { Link } from "../../../lib/router";
import { useLocationName } from "../use-location-name";

interface AlertLine {
  alert_id: string;
  rule: string;
  region: string;
  at: string;
  firing: boolean;
}

/** The monitor's alerts: those firing now, then the latest ones notified (from alert history), each linking to its timeline. */
export function RecentAlerts({ id }: { id: string }) {
  const nameOf = useLocationName();
  const active = useQuery({
    queryKey: ["alerts", "active", "monitor", id],
    queryFn: () => api.GET("/api/v1/alert-rules/active", { params: { query: { monitor_id: id, limit: 20 } } }).then(data),
    refetchInterval: 30_000,
  });
  const history = useQuery({
    queryKey: ["alerts", "history", "monitor", id],
    queryFn: () => api.GET("/api/v1/alerts/history", { params: { query: { monitor_id: id, limit: 100 } } }).then(data),
    staleTime: 30_000,
  });
  const rules = useQuery({ queryKey: ["alert-rules"], queryFn: () => api.GET("/api/v1/alert-rules", { params: { query: { limit: 100 } } }).then(data), staleTime: 60_000 });
  const ruleName = new Map((rules.data?.data ?? []).map((r) => [r.id, r.name]));
  const lines = new Map<string, AlertLine>();
  for (const a of active.data?.data ?? []) lines.set(a.alert_id, { alert_id: a.alert_id, rule: a.rule_name, region: a.region, at: a.since, firing: true });
  for (const h of history.data?.data ?? []) {
    if (!h.alert_id || lines.has(h.alert_id)) continue;
    if (h.kind === "alert" || h.kind === "recovery" || lines.size < 10) lines.set(h.alert_id, { alert_id: h.alert_id, rule: ruleName.get(h.rule_id) ?? h.rule_id, region: h.region, at: h.created_at, firing: false });
  }
  const list = [...lines.values()].slice(0, 10);
  return (
    <section aria-labelledby="alerts-h" className="panel">
      <h2 id="alerts-h">Alerts</h2>
      <ErrorMessage error={active.error ?? history.error} />
      {active.isPending || history.isPending ? null : list.length === 0 ? (
        <p className="muted">No alert has fired for this monitor yet.</p>
      ) : (
        <ul data-testid="monitor-alerts">
          {list.map((a) => (
            <li key={a.alert_id}>
              <Link to={`/alerts/${encodeURIComponent(a.alert_id)}`}>
                {a.rule} in {nameOf(a.region)}
              </Link>{" "}
              {a.firing ? <span className="badge badge-down">firing since {fmtTime(a.at)}</span> : <small className="muted">notified {fmtTime(a.at)}</small>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
