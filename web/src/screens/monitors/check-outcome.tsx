import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { api, data } from "../../api/client";
import { fmtMs, fmtTime, StatusBadge } from "../../components/ui";
import { useLocationName } from "./use-location-name";

interface Outcome {
  status: string;
  duration_ms: number;
  error?: string | null;
  data?: Record<string, unknown>;
  checked_at: string;
  location: string;
}

/** One check's result in a sentence or two: status, time, where, HTTP status, and the error in full. */
export function CheckOutcome({ result }: { result: Outcome }) {
  const code = result.data?.status_code;
  const nameOf = useLocationName();
  return (
    <div className={`check-outcome outcome-${result.status}`} data-testid="check-outcome">
      <p>
        <StatusBadge status={result.status} /> in {fmtMs(result.duration_ms)} from {nameOf(result.location)}
        {typeof code === "number" && <> · HTTP {code}</>} <span className="muted">at {fmtTime(result.checked_at)}</span>
      </p>
      {result.error && <p className="outcome-error">{result.error}</p>}
    </div>
  );
}

/** How long the notice waits for the first check before saying it will show here when it comes. */
const FIRST_CHECK_WAIT_MS = 30_000;

/**
 * The success state after creating or resuming a monitor: the scheduler runs its first check at once,
 * so this polls for a check since `since` every second until there is one, and shows it.
 */
export function FirstCheckNotice({ monitorId, since, what, paused, onDismiss }: { monitorId: string; since: string; what: "created" | "resumed"; paused: boolean; onDismiss: () => void }) {
  const [gaveUp, setGaveUp] = useState(false);
  const q = useQuery({
    queryKey: ["monitor-first-check", monitorId, since],
    enabled: !paused,
    // A second's slack: the check's due time is the scheduler's clock, `since` the API's.
    queryFn: () => api.GET("/api/v1/monitors/{id}/checks", { params: { path: { id: monitorId }, query: { limit: 1, from: new Date(Date.parse(since) - 1000).toISOString() } } }).then(data),
    refetchInterval: (query) => ((query.state.data?.data.length ?? 0) > 0 || gaveUp ? false : 1000),
  });
  useEffect(() => {
    const t = setTimeout(() => setGaveUp(true), FIRST_CHECK_WAIT_MS);
    return () => clearTimeout(t);
  }, []);
  const first = q.data?.data[0] as Outcome | undefined;
  return (
    <div className="first-check" role="status" aria-live="polite" data-testid="first-check">
      <p>
        <strong>{what === "created" ? "Monitor created." : "Monitor resumed."}</strong>{" "}
        {paused
          ? "It starts paused: nothing is checked until you resume it."
          : first
            ? "Its first check:"
            : gaveUp
              ? "The first check has not reported yet; it shows below as soon as it does."
              : null}
        {!paused && !first && !gaveUp && (
          <span className="muted">
            <span className="spinner" aria-hidden="true" /> Running its first check…
          </span>
        )}
      </p>
      {first && <CheckOutcome result={first} />}
      <button type="button" className="link" onClick={onDismiss}>
        Dismiss
      </button>
    </div>
  );
}
