import { useQuery } from "@tanstack/react-query";
import { api, data } from "../../../api/client";
import { fmtTime } from "../../../components/format";
import { Link } from "../../../lib/router";

/**
 * The maintenance occurrences covering the monitor right now: without this its page shows the last
 * status of a monitor whose checks a window paused as if it were still checked.
 */
export function MaintenanceNow({ id }: { id: string }) {
  const q = useQuery({
    queryKey: ["monitor-data", id, "maintenance-now"],
    refetchInterval: 60_000,
    queryFn: () => {
      const now = Date.now();
      return api.GET("/api/v1/monitors/{id}/maintenance-spans", { params: { path: { id }, query: { from: new Date(now).toISOString(), to: new Date(now + 1000).toISOString() } } }).then(data);
    },
  });
  const spans = q.data?.data ?? [];
  if (spans.length === 0) return null;
  return (
    <p className="notice" role="note" data-testid="maintenance-now">
      Under maintenance:{" "}
      {spans.map((s, i) => (
        <span key={`${s.window_id}-${s.starts_at}`}>
          {i > 0 && "; "}
          {s.name} until {fmtTime(s.ends_at)} ({[s.pause_monitors && "checks paused", s.suppress_alerts && "alerts silenced"].filter(Boolean).join(", ") || "nothing paused or silenced"})
        </span>
      ))}
      . <Link to="/maintenance">Maintenance windows</Link>
    </p>
  );
}
