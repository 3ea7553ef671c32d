import type { Page } from "playwright-core";
import { SCREEN_PATTERNS } from "../../web/src/app.tsx";
import { apiCall, type JourneyEnv } from "./journey-support.ts";

/**
 * Visiting every screen in a minute costs several hundred API calls, past the organisation's default budget
 * (300 a minute, which a 429 on the session check turns into a sign-out): the visiting instances get more.
 */
export const VISIT_ENV = { RATE_LIMIT_PER_ORG: "5000" };

/** Ids of one of everything a route pattern can name, made through the API by `seedEverything`. */
export interface Seeded {
  monitorId: string;
  checkId: string;
  heartbeatId: string;
  statusPageId: string;
  incidentId: string;
  alertId: string;
}

/** `<first path segment>:<param>` → the seeded id it takes. A new route with a new parameter fails here by name. */
const PARAMS: Record<string, (s: Seeded) => string> = {
  "monitors:id": (s) => s.monitorId,
  "monitors:checkId": (s) => s.checkId,
  "status-pages:id": (s) => s.statusPageId,
  "incidents:id": (s) => s.incidentId,
  "alerts:id": (s) => s.alertId,
};

/** Every signed-in route of the dashboard's router with real ids filled in, plus the heartbeat detail and the 404 page. */
export function dashboardUrls(s: Seeded, patterns: readonly string[] = SCREEN_PATTERNS): string[] {
  const urls = patterns.map((pattern) => {
    const first = pattern.split("/")[1]!;
    return pattern.replace(/:(\w+)/g, (_, name: string) => {
      const pick = PARAMS[`${first}:${name}`];
      if (!pick) throw new Error(`route ${pattern}: no seeded value for :${name}; add one to PARAMS in tests/web/route-visits.ts`);
      return encodeURIComponent(pick(s));
    });
  });
  return [...urls, `/monitors/${s.heartbeatId}`, "/no-such-page"];
}

/**
 * Fills a fresh organisation (signed in in `env.page`) with something on every screen: an HTTP monitor
 * that is up against `targetUrl` with a result, one that is down, a paused one, a heartbeat, a tagged
 * group, an alert channel and rule, a status page and an open incident.
 */
export async function seedEverything(env: JourneyEnv, targetUrl: string): Promise<Seeded> {
  const post = <T = any>(path: string, body: unknown) => apiCall<T>(env, "POST", `/api/v1${path}`, body);
  const web = await post("/monitors", { name: "Shop API", type: "http", config: { url: targetUrl }, interval_seconds: 300, tags: ["shop", "production"] });
  const relay = await post("/monitors", { name: "Mail relay with a rather long name to test wrapping", type: "tcp", config: { host: "127.0.0.1", port: 9 }, interval_seconds: 300, tags: ["mail"] });
  // An alert that fires on the relay (nothing listens on port 9), so the alert timeline has a real incident.
  const hook = await post("/alert-channels", { name: "Ops hook", type: "webhook", config: { url: `${targetUrl.replace(/\/$/, "")}/hook` } });
  const rule = await post("/alert-rules", { name: "Relay down", scope: { type: "monitor", monitor_id: relay.id }, condition: { type: "status_change", to: ["down"] }, confirmation: { consecutive_failures: 1 }, channels: [{ channel_id: hook.id }] });
  await post(`/monitors/${relay.id}/run`, {});
  await post("/monitors", { name: "Legacy blog", type: "http", config: { url: targetUrl }, interval_seconds: 300, paused: true });
  const hb = await post("/monitors", { name: "Nightly backup", type: "heartbeat", config: { schedule: "30 3 * * *", timezone: "Europe/Berlin", grace_seconds: 1200 } });
  await post(`/monitors/${web.id}/run`, {});
  let checkId = "";
  for (let i = 0; i < 100 && !checkId; i++) {
    const checks = await apiCall<{ data: { id: string }[] }>(env, "GET", `/api/v1/monitors/${web.id}/checks?limit=1`);
    checkId = checks.data[0]?.id ?? "";
    if (!checkId) await Bun.sleep(200);
  }
  if (!checkId) throw new Error("seed: the HTTP monitor produced no result within 20 s");
  const page = await post("/status-pages", { name: "Acme status", slug: `acme-${Date.now().toString(36)}`, description: "Service health for Acme customers" });
  const incident = await post("/incidents", { title: "Checkout is slow", status: "investigating", impact: "minor", message: "We are looking into slow checkouts.", component_ids: [], page_ids: [page.id] });
  let alertId = "";
  for (let i = 0; i < 100 && !alertId; i++) {
    const active = await apiCall<{ data: { alert_id: string | null }[] }>(env, "GET", "/api/v1/alert-rules/active?limit=5");
    alertId = active.data.find((a) => a.alert_id)?.alert_id ?? "";
    if (!alertId) await Bun.sleep(200);
  }
  if (!alertId) throw new Error(`seed: the rule ${rule.id} fired no alert within 20 s`);
  return { monitorId: web.id, checkId, heartbeatId: hb.id, statusPageId: page.id, incidentId: incident.id, alertId };
}

/** Opens `url` and waits until the screen has its heading and nothing in it is still loading. */
export async function openScreen(page: Page, base: string, url: string): Promise<void> {
  await page.goto(`${base}${url}`);
  await page.waitForFunction(
    () => {
      const main = document.querySelector("main");
      if (!main?.querySelector("h1")) return false;
      return ![...main.querySelectorAll("[role=status]")].some((e) => /^Loading /.test(e.textContent ?? ""));
    },
    undefined,
    { timeout: 15_000 },
  );
  // A screen that sent us elsewhere (sign-in after a refused session check) was not the screen asked for.
  const landed = new URL(page.url());
  if (landed.pathname !== new URL(url, base).pathname) throw new Error(`opening ${url} landed on ${landed.pathname}`);
  // Charts and virtualised lists size themselves after the data arrives.
  await page.waitForTimeout(250);
}

/** The page's horizontal overflow in CSS pixels, and the widest elements sticking out past the right edge. */
export async function horizontalOverflow(page: Page): Promise<{ overflow: number; culprits: string[] }> {
  return page.evaluate(() => {
    const overflow = document.documentElement.scrollWidth - window.innerWidth;
    const culprits: string[] = [];
    if (overflow > 0) {
      for (const el of document.querySelectorAll("body *")) {
        const r = el.getBoundingClientRect();
        if (r.right > window.innerWidth + 1 && r.width > 0) culprits.push(`${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}${el.className && typeof el.className === "string" ? `.${el.className.split(" ").join(".")}` : ""} (${Math.round(r.width)} px wide, right ${Math.round(r.right)})`);
        if (culprits.length >= 8) break;
      }
    }
    return { overflow, culprits };
  });
}
