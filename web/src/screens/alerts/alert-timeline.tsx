import { useQuery } from "@tanstack/react-query";
import { api, data } from "../../api/client";
import { ErrorMessage, fmtTime, Loading } from "../../components/ui";
import { Link } from "../../lib/router";
import { fmtDuration, timelineEntries } from "./timeline-entries";
import { useLocationName } from "../monitors/use-location-name";
import "./timeline.css";

const STATUS_TEXT = { firing: "Firing", acknowledged: "Acknowledged, still firing", recovered: "Recovered" } as const;

/** One alert (rule × monitor × region, one firing period) from its first failing check to recovery. */
export function AlertTimelinePage({ id }: { id: string }) {
  const place = useLocationName();
  const q = useQuery({
    queryKey: ["alerts", "timeline", id],
    queryFn: () => api.GET("/api/v1/alerts/{id}/timeline", { params: { path: { id } } }).then(data),
    refetchInterval: (query) => (query.state.data?.status === "recovered" ? false : 30_000),
  });
  if (q.isPending) return <Loading what="alert" />;
  if (q.isError) return <ErrorMessage error={q.error} />;
  const t = q.data;
  const entries = timelineEntries(t);
  const end = t.recovered_at ? Date.parse(t.recovered_at) : Date.now();
  const failing = t.checks.filter((c) => c.status !== "up").length;
  const sent = t.notifications.filter((n) => n.status === "sent").length;
  return (
    <section aria-labelledby="alert-h">
      <header className="page-head">
        <Link to="/alerts">← Active alerts</Link>
        <h1 id="alert-h">
          {t.rule.name}: {t.monitor.name} <small className="muted">({place(t.region)})</small>
        </h1>
        <span className={`badge ${t.status === "recovered" ? "badge-up" : "badge-down"}`} data-testid="alert-status">
          {STATUS_TEXT[t.status]}
        </span>
      </header>
      <dl className="alert-facts">
        <div>
          <dt>Started</dt>
          <dd>{fmtTime(t.started_at)}</dd>
        </div>
        <div>
          <dt>{t.recovered_at ? "Lasted" : "Firing for"}</dt>
          <dd>{fmtDuration(end - Date.parse(t.started_at))}</dd>
        </div>
        <div>
          <dt>Failing checks</dt>
          <dd>{failing}</dd>
        </div>
        <div>
          <dt>Notifications delivered</dt>
          <dd>
            {sent} of {t.notifications.length}
          </dd>
        </div>
      </dl>
      <p className="row">
        <Link to={`/monitors/${t.monitor.id}`}>Monitor {t.monitor.name}</Link>
        <Link to="/alerts/history">Alert history</Link>
      </p>
      <section aria-labelledby="tl-h" className="panel">
        <h2 id="tl-h">Timeline</h2>
        <ol className="timeline" data-testid="alert-timeline">
          {entries.map((e, i) => (
            <li key={i} className={`tone-${e.tone} ev-${e.type}`}>
              <time dateTime={e.at}>{fmtTime(e.at)}</time>{" "}
              {e.checkId ? <Link to={`/monitors/${t.monitor.id}/checks/${e.checkId}`}>{e.text}</Link> : <strong>{e.text}</strong>}
              {e.detail && <span className="detail">{e.detail}</span>}
            </li>
          ))}
          {!t.recovered_at && (
            <li className="tone-bad">
              <time dateTime={new Date().toISOString()}>now</time> <strong>Still failing</strong>
            </li>
          )}
        </ol>
        {t.checks.length >= 500 && <p className="muted small">Only the first 500 failing checks are listed; the monitor page has every result.</p>}
      </section>
    </section>
  );
}
