import { useQuery } from "@tanstack/react-query";
import { ErrorMessage, fmtTime } from "../../../components/ui";
import type { Monitor } from "../use-monitors";
import { daysLeftText, EXPIRY_FIELDS, expiryOf } from "./expiry";
import { recentChecksQuery } from "./recent-checks";
import "./charts.css";

/** "Certificate" / "Registration": when what an ssl, domain or smtp monitor watches expires, from its newest result. */
export function ExpirySummary({ monitor }: { monitor: Monitor }) {
  return EXPIRY_FIELDS[monitor.type] ? <Summary monitor={monitor} /> : null;
}

function Summary({ monitor }: { monitor: Monitor }) {
  const q = useQuery(recentChecksQuery(monitor.id));
  if (q.isError) return <ErrorMessage error={q.error} />;
  if (q.isPending) return null;
  const e = expiryOf(monitor.type, monitor.config as Record<string, unknown>, q.data.data);
  if (!e) return null;
  return (
    <section className="expiry" aria-labelledby="expiry-h" data-testid="expiry-summary">
      <h2 id="expiry-h">{e.title}</h2>
      {!e.known ? (
        <p className="muted">Expiry not known yet: {e.checked ? "the latest check did not report it." : "no check has run."}</p>
      ) : (
        <>
          <dl className="stats">
            <div className={e.warn ? "expiry-warn" : undefined}>
              <dt>Days left</dt>
              <dd>{daysLeftText(e.days)}</dd>
            </div>
            <div>
              <dt>Expires</dt>
              <dd className="small">{fmtTime(e.at)}</dd>
            </div>
            {e.details.map(([label, value]) => (
              <div key={label} className="expiry-detail">
                <dt>{label}</dt>
                <dd className="small">{value}</dd>
              </div>
            ))}
          </dl>
          {e.warn && <p className="expiry-note">{e.days < 0 ? "Expired: renew it now." : `Renew soon: within the ${e.warnDays}-day warning this monitor is set to.`}</p>}
        </>
      )}
    </section>
  );
}
