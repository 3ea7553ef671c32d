import { useEffect, useState, useSyncExternalStore } from "react";
import { rateLimitWait } from "../api/client";

/** A small banner while the API's rate limit holds the dashboard's reads back (they retry by themselves). */
export function RateLimitBanner() {
  const until = useSyncExternalStore(rateLimitWait.subscribe, rateLimitWait.until);
  // Re-rendered each second while it counts down.
  const [, tick] = useState(0);
  useEffect(() => {
    if (!until) return;
    const timer = setInterval(() => tick((n) => n + 1), 1000);
    return () => clearInterval(timer);
  }, [until]);
  if (!until) return null;
  const left = Math.max(0, Math.ceil((until - Date.now()) / 1000));
  return (
    <div className="banner banner-warning rate-limit-banner" role="status" data-testid="rate-limit-banner">
      Too many requests for a moment: {left > 0 ? `trying again in ${left} s` : "trying again"}. You stay signed in.
    </div>
  );
}
