import { useQuery } from "@tanstack/react-query";
import { api, data } from "../api/client";
import { fmtAgo } from "./format";
import "./widgets.css";

/**
 * While a region of this service is over capacity (GET /regions, `overloaded`), every signed-in screen says so:
 * checks there wait for the queue to drain and each monitor is checked less often than its interval. A flag per
 * region, the same for every organisation: nothing of another tenant shows.
 */
export function OverloadBanner() {
  const regions = useQuery({
    queryKey: ["regions", "overload"],
    queryFn: () => api.GET("/api/v1/regions", { params: { query: { limit: 100 } } }).then(data),
    refetchInterval: 15_000,
    staleTime: 10_000,
    retry: false,
  });
  const over = (regions.data?.data ?? []).filter((r) => r.overloaded);
  if (over.length === 0) return null;
  const lag = Math.max(...over.map((r) => r.schedule_lag_seconds));
  const since = over.map((r) => r.overloaded_since).filter((s): s is string => s !== null).sort()[0];
  return (
    <div className="banner banner-warning" role="status" data-testid="overload-banner">
      <strong>Checks are running late in {over.map((r) => r.city).join(", ")}.</strong>
      <span>
        The service is over capacity{since ? ` (it began ${fmtAgo(since)})` : ""}: every monitor is still checked, less often than its interval
        {lag >= 1 ? ` (the oldest waiting check is ${Math.round(lag)} s late)` : ""}. Nothing is recorded as down because of it.
      </span>
    </div>
  );
}
