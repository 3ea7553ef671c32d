/**
 * The API requests the dashboard's overview screen (`/monitors`) makes on load, in the browser's order: the session check
 * first (web/src/lib/session.tsx: the layout renders once it answers), then every query of the layout and the screen at
 * once. The live stream (`/events`) is left out, as bench/dashboard.ts leaves it out of its count; that bench compares the
 * calls a real Chromium makes with this list and says when they differ.
 */
import { pct } from "./proc.ts";

/** The session check, both at once. */
const SESSION_REQUESTS = ["/api/v1/user", "/api/v1/orgs?limit=100"];
/** Once the session is known, all at once. */
const SCREEN_REQUESTS = [
  "/api/v1/orgs?limit=100", // components/billing-banner.tsx: the organisation's 2FA policy (its own query)
  "/api/v1/billing/subscription", // components/billing-banner.tsx: the payment banner
  "/api/v1/invitations?limit=100", // components/billing-banner.tsx: pending invitations
  "/api/v1/notifications/unread-count", // components/notification-bell.tsx
  "/api/v1/regions?limit=100", // components/overload-banner.tsx
  "/api/v1/org/roles?limit=100", // screens/org/use-permissions.ts: the layout's role check
  "/api/v1/monitors/overview?sort=status&page=1&limit=50&bars=60", // screens/monitors/use-monitors.ts: the first page
  "/api/v1/monitor-groups?limit=100", // screens/monitors/overview.tsx: the tag filter
];
const OVERVIEW_REQUEST = SCREEN_REQUESTS.find((r) => r.startsWith("/api/v1/monitors/overview"))!;
export const OVERVIEW_SCREEN_CALLS = SESSION_REQUESTS.length + SCREEN_REQUESTS.length;

/** Whether a browser's requests for the screen (path and query, in any order) are this list's: a sentence saying so or what differs. */
export function compareWithOverviewScreen(urls: string[]): string {
  const left = [...SESSION_REQUESTS, ...SCREEN_REQUESTS];
  const extra: string[] = [];
  for (const u of urls) {
    const i = left.indexOf(u);
    if (i >= 0) left.splice(i, 1);
    else extra.push(u);
  }
  if (left.length === 0 && extra.length === 0) return "the same requests as bench/lib/overview-screen.ts (what bench/scale.ts replays)";
  return `NOT the requests of bench/lib/overview-screen.ts (bench/scale.ts replays that list): the browser did not send ${left.join(", ") || "-"}; it also sent ${extra.join(", ") || "-"}`;
}

/** GETs every path at once (each body read whole); each path's time from the wave's start. */
async function wave(base: string, headers: Record<string, string>, paths: string[]): Promise<Map<string, number>> {
  const t0 = performance.now();
  const times = await Promise.all(
    paths.map(async (path) => {
      const res = await fetch(`${base}${path}`, { headers });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`GET ${path}: ${res.status}`);
      return [path, performance.now() - t0] as const;
    }),
  );
  return new Map(times);
}

export interface ScreenStats {
  loads: number;
  failed: number;
  /** The whole screen: session check, then the rest; ms. */
  p50: number;
  p99: number;
  max: number;
  /** GET /monitors/overview alone (from its wave's start). */
  overviewP99: number;
}

/**
 * Loads the screen every `everyMs` (the next load starts when the previous one has answered, at the earliest `everyMs`
 * after it started) until `stop()`, which returns the figures. `headers`: a signed-in session's cookie (and `x-org-id`).
 */
export function pollOverviewScreen(base: string, headers: Record<string, string>, everyMs: number) {
  const screens: number[] = [];
  const overviews: number[] = [];
  let failed = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      try {
        await wave(base, headers, SESSION_REQUESTS);
        const rest = await wave(base, headers, SCREEN_REQUESTS);
        screens.push(performance.now() - t0);
        overviews.push(rest.get(OVERVIEW_REQUEST)!);
      } catch {
        failed++;
      }
      const wait = everyMs - (performance.now() - t0);
      if (running && wait > 0) await Bun.sleep(wait);
    }
  })();
  return {
    async stop(): Promise<ScreenStats> {
      running = false;
      await loop;
      const s = [...screens].sort((a, b) => a - b);
      const o = [...overviews].sort((a, b) => a - b);
      return { loads: s.length, failed, p50: pct(s, 0.5), p99: pct(s, 0.99), max: s.at(-1) ?? NaN, overviewP99: pct(o, 0.99) };
    },
  };
}
