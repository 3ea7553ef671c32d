import { useQuery } from "@tanstack/react-query";
import { api, data } from "../../../api/client";
import { ErrorMessage, fmtPct } from "../../../components/ui";
import { barLevel, describeBars } from "./chart-data";

const DAYS = 90;

/** One bar per UTC day over 90 days, coloured by that day's uptime (one aggregates call). */
export function DailyBars({ id }: { id: string }) {
  const today = new Date();
  const from = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - (DAYS - 1))).toISOString();
  const q = useQuery({
    queryKey: ["monitor-data", id, "daily", from],
    staleTime: 300_000,
    queryFn: () => api.GET("/api/v1/monitors/{id}/aggregates", { params: { path: { id }, query: { bucket: "day", from } } }).then(data),
  });
  if (q.isError) return <ErrorMessage error={q.error} />;
  const days = (q.data?.data ?? []).map((b) => ({ day: b.start.slice(0, 10), uptime: b.uptime_pct, checks: Number(b.checks) }));
  return (
    <section aria-labelledby="bars-h" className="panel">
      <h2 id="bars-h">Daily uptime, last {DAYS} days</h2>
      {q.isPending ? (
        <div className="bars loading" aria-hidden="true" />
      ) : (
        <>
          <div className="bars" role="img" aria-label={describeBars(days)} data-testid="daily-bars">
            {days.map((d) => (
              <span key={d.day} className={`bar bar-${barLevel(d.uptime, d.checks)}`} title={`${d.day}: ${d.checks ? `${fmtPct(d.uptime)} of ${d.checks} checks` : "no checks"}`} />
            ))}
          </div>
          <div className="bars-legend muted">
            <span>{days[0]?.day}</span>
            <span>today</span>
          </div>
        </>
      )}
    </section>
  );
}
