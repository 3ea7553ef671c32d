import { useQuery } from "@tanstack/react-query";
import "./charts.css";
import { api, data } from "../../../api/client";
import { ErrorMessage, fmtPct } from "../../../components/ui";
import { barLevel, calendarWeeks, describeBars } from "./chart-data";

const DAYS = 90;
const WEEKDAYS = ["Mon", "", "Wed", "", "Fri", "", "Sun"];
const LEVELS = [
  ["good", "99.9 % or better"],
  ["ok", "99 %"],
  ["warn", "95 %"],
  ["bad", "below 95 %"],
  ["none", "no checks"],
] as const;

/** The uptime calendar: one cell per UTC day over 90 days, a column per week, coloured by that day's uptime (one aggregates call). */
export function UptimeCalendar({ id }: { id: string }) {
  const today = new Date();
  const from = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - (DAYS - 1))).toISOString();
  const q = useQuery({
    queryKey: ["monitor-data", id, "daily", from],
    staleTime: 300_000,
    queryFn: () => api.GET("/api/v1/monitors/{id}/aggregates", { params: { path: { id }, query: { bucket: "day", from } } }).then(data),
  });
  if (q.isError) return <ErrorMessage error={q.error} />;
  const days = (q.data?.data ?? []).map((b) => ({ day: b.start.slice(0, 10), uptime: b.uptime_pct, checks: Number(b.checks) }));
  const weeks = calendarWeeks(days);
  return (
    <section aria-labelledby="bars-h" className="panel">
      <h2 id="bars-h">Daily uptime, last {DAYS} days</h2>
      {q.isPending ? (
        <div className="bars loading" aria-hidden="true" />
      ) : (
        <>
          <div className="calendar-scroll">
            <div className="calendar" role="img" aria-label={describeBars(days)} data-testid="uptime-calendar">
              <div className="calendar-col calendar-days" aria-hidden="true">
                <span className="calendar-month" />
                {WEEKDAYS.map((w, i) => (
                  <span key={i} className="calendar-weekday">
                    {w}
                  </span>
                ))}
              </div>
              {weeks.map((week, i) => {
                // A column names the month that begins in it; the first names its own unless one begins within two weeks.
                const starts = (w: (typeof weeks)[number] | undefined) => w?.find((d) => d && d.day.endsWith("-01"));
                const first = starts(week) ?? (i === 0 && !starts(weeks[1]) && !starts(weeks[2]) ? week.find((d) => d) : undefined);
                return (
                  <div key={i} className="calendar-col">
                    <span className="calendar-month" aria-hidden="true">
                      {first ? new Date(`${first.day}T00:00:00Z`).toLocaleString(undefined, { month: "short", timeZone: "UTC" }) : ""}
                    </span>
                    {week.map((d, j) =>
                      d ? (
                        <span key={j} className={`cell bar-${barLevel(d.uptime, d.checks)}`} title={`${d.day}: ${d.checks ? `${fmtPct(d.uptime)} of ${d.checks} checks` : "no checks"}`} data-day={d.day} />
                      ) : (
                        <span key={j} className="cell cell-out" />
                      ),
                    )}
                  </div>
                );
              })}
            </div>
          </div>
          <p className="calendar-legend muted small">
            {LEVELS.map(([level, text]) => (
              <span key={level}>
                <span className={`cell bar-${level}`} aria-hidden="true" /> {text}
              </span>
            ))}
          </p>
        </>
      )}
    </section>
  );
}
