import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { Page } from "playwright-core";
import { publishLiveEvent } from "../../domain/events/publish-live-event.ts";
import { storeResults } from "../../domain/results/ingest.ts";
import { makeResult } from "../../domain/results/test-fixtures.ts";
import { client, makeOrg, startTestApi, type TestApi } from "../support/api.ts";
import { launchChromium, watchConsole } from "./browser.ts";
import { checkA11y } from "./journey-support.ts";

/**
 * The monitors overview against a real API and database in Debian Chromium: state counts as filters,
 * a bar of the latest results per monitor (hover and keyboard), down monitors first, live updates,
 * and a 429 on the session check that waits and retries instead of signing out.
 */
let api: TestApi;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let page: Page;
let consoleErrors: string[];
let orgId: string;
let orgKey: string;
const ids: Record<string, string> = {};
const overviewCalls: string[] = [];
const SHOTS = process.env.SHOT_DIR ?? "/tmp";

beforeAll(async () => {
  api = await startTestApi({ ALLOW_PRIVATE_IPS: "true" });
  const org = await makeOrg(api.sql, "business");
  orgId = org.org_id;
  orgKey = org.api_key;
  const call = client(api.url, { key: org.api_key });
  for (const name of ["Checkout", "Search", "Blog", "Docs", "Staging", "New thing"]) {
    const res = await call("POST", "/api/v1/monitors", { name, type: "http", config: { url: "http://127.0.0.1:9/" }, interval_seconds: 60, tags: ["web"] });
    ids[name] = res.body.id;
  }
  // 40 results each, a minute apart; Checkout ends failing, Search slow; Staging is paused, "New thing" has none.
  const now = Date.now();
  const results = [];
  for (const [name, status] of [["Checkout", "down"], ["Search", "degraded"], ["Blog", "up"], ["Docs", "up"], ["Staging", "up"]] as const)
    for (let i = 0; i < 40; i++) results.push(makeResult(orgId, ids[name]!, new Date(now - (40 - i) * 60_000), i >= 30 ? status : i === 12 ? "timeout" : "up", { duration_ms: 100 + i, location: "eu-west" }));
  await storeResults(api.sql, results);
  await call("POST", `/api/v1/monitors/${ids.Staging}/pause`);
  chromium = await launchChromium({ width: 1440, height: 900 });
  page = chromium.context.pages()[0] ?? (await chromium.context.newPage());
  consoleErrors = watchConsole(page);
  page.on("request", (r) => {
    const path = new URL(r.url()).pathname;
    if (path.startsWith("/api/v1/monitors")) overviewCalls.push(path);
  });
  const signin = await chromium.context.request.post(`${api.url}/api/v1/auth/signin`, { data: { email: org.email, password: org.password } });
  expect(signin.status()).toBe(200);
}, 120_000);

afterAll(async () => {
  await chromium?.close();
  await api?.stop();
}, 30_000);

const row = (name: string) => page.locator(`[data-monitor-id="${ids[name]}"]`);
const count = (state: string) => page.locator(`[data-state=${state}] strong`);

describe("monitors overview", () => {
  it("counts monitors by state, lists the down ones first, each with a bar of its latest results, from one API call", async () => {
    await page.goto(`${api.url}/monitors`);
    await page.getByTestId("state-counts").waitFor();
    expect(await Promise.all(["down", "degraded", "up", "paused", "not_monitored"].map((s) => count(s).textContent()))).toEqual(["1", "1", "2", "1", "1"]);
    const names = await page.locator("[data-monitor-id] .name a").allTextContents();
    expect(names).toEqual(["Checkout", "Search", "New thing", "Blog", "Docs", "Staging"]);
    // 60 slots: 20 empty, then 40 results oldest first; the last ten of Checkout failed.
    const ticks = await row("Checkout").locator(".tick").evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.result ?? "none"));
    expect(ticks).toHaveLength(60);
    expect(ticks.slice(0, 20).every((s) => s === "none")).toBe(true);
    expect(ticks.slice(-10)).toEqual(Array(10).fill("down"));
    expect(ticks[32]).toBe("timeout");
    await row("Blog").getByTestId("uptime-24h").getByText("97.50%").waitFor();
    expect(overviewCalls).toEqual(["/api/v1/monitors/overview"]);
    await checkA11y(page, "monitors overview");
    await page.screenshot({ path: `${SHOTS}/ux-overview-desktop-light.png` });
    expect(consoleErrors).toEqual([]);
  }, 30_000);

  it("shows a result's time, status, response time and region on hover and with the arrow keys", async () => {
    await row("Checkout").locator(".tick").last().hover();
    const tip = page.getByRole("tooltip");
    await tip.getByText("Down").waitFor();
    expect(await tip.textContent()).toContain("139 ms · eu-west");
    await page.mouse.move(0, 0);
    await tip.waitFor({ state: "detached" });
    const bar = row("Blog").getByTestId("result-bar");
    await bar.focus();
    expect(await page.getByRole("tooltip").textContent()).toContain("Up · 139 ms · eu-west");
    for (let i = 0; i < 27; i++) await page.keyboard.press("ArrowLeft");
    expect(await page.getByRole("tooltip").textContent()).toContain("Timed out · 112 ms");
    expect(await bar.getAttribute("aria-describedby")).toBe(await page.getByRole("tooltip").getAttribute("id"));
    await checkA11y(page, "overview with a result's details");
    await page.keyboard.press("Tab");
  }, 30_000);

  it("filters by a count, in the URL too, and clears on a second click", async () => {
    await page.locator("[data-state=down]").click();
    await page.waitForFunction(() => document.querySelectorAll("[data-monitor-id]").length === 1);
    expect(await page.locator("[data-monitor-id] .name a").allTextContents()).toEqual(["Checkout"]);
    expect(new URL(page.url()).searchParams.get("state")).toBe("down");
    expect(await page.locator("[data-state=down]").getAttribute("aria-pressed")).toBe("true");
    await page.locator("[data-state=not_monitored]").click();
    await page.waitForFunction(() => document.querySelector("[data-monitor-id] .name a")?.textContent === "New thing");
    await page.locator("[data-state=not_monitored]").click();
    await page.waitForFunction(() => document.querySelectorAll("[data-monitor-id]").length === 6);
    expect(new URL(page.url()).searchParams.get("state")).toBeNull();
  }, 30_000);

  it("says that nobody is told of a failure while no alert rule exists, and stops once one does", async () => {
    const notice = page.getByTestId("no-alert-rules");
    await notice.waitFor();
    expect(await notice.innerText()).toContain("Nobody is told when a monitor fails");
    await notice.getByRole("link", { name: "Set up alerts" }).waitFor();
    const call = client(api.url, { key: orgKey });
    const channel = (await call("POST", "/api/v1/alert-channels", { name: "hook", type: "webhook", config: { url: "http://127.0.0.1:9/hook" } })).body;
    expect((await call("POST", "/api/v1/alert-rules", { name: "Down", scope: { type: "all_monitors" }, condition: { type: "status_change", to: ["down"] }, channels: [{ channel_id: channel.id }] })).status).toBe(201);
    await page.reload();
    await page.getByTestId("state-counts").waitFor();
    await row("Checkout").waitFor();
    expect(await notice.count()).toBe(0);
  }, 30_000);

  it("updates bars and counts live from /events, without asking the API again", async () => {
    await page.locator(".live.on").waitFor();
    // The list is not read again; only the changed monitor's 24 h uptime is, on its own (lib/live-uptime.ts).
    const listCalls = () => overviewCalls.filter((p) => !p.startsWith("/api/v1/monitors/uptime")).length;
    const before = listCalls();
    const at = new Date().toISOString();
    publishLiveEvent(api.bus, orgId, "monitor.status_changed", { monitor_id: ids.Blog, from: "up", to: "down", at });
    publishLiveEvent(api.bus, orgId, "check.result", { id: "chk_live1", monitor_id: ids.Blog, location: "us-east", location_type: "region", scheduled_at: at, status: "down", duration_ms: 987, error: "refused", checked_at: at, data: {} });
    await count("down").getByText("2").waitFor({ timeout: 5000 });
    expect(await count("up").textContent()).toBe("1");
    await row("Blog").locator(".badge[data-status=down]").waitFor();
    await row("Blog").getByText("987 ms").waitFor();
    const ticks = await row("Blog").locator(".tick").evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.result ?? "none"));
    expect(ticks).toHaveLength(60);
    expect(ticks.at(-1)).toBe("down");
    expect(ticks.filter((s) => s === "none")).toHaveLength(19);
    expect(listCalls()).toBe(before);
    expect(consoleErrors).toEqual([]);
  }, 30_000);

  it("looks right at 390×844 and in the dark theme", async () => {
    await page.evaluate(() => (document.documentElement.dataset.theme = "dark"));
    await page.screenshot({ path: `${SHOTS}/ux-overview-desktop-dark.png` });
    await checkA11y(page, "overview, dark");
    await page.setViewportSize({ width: 390, height: 844 });
    await row("Checkout").getByTestId("result-bar").waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    // Nothing pokes out of the table on a phone (its bars show the newest 30 there).
    expect(await page.locator(".monitor-row.head").evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);
    expect(await row("Checkout").getByTestId("result-bar").evaluate((e) => e.getBoundingClientRect().width)).toBeGreaterThan(100);
    await page.screenshot({ path: `${SHOTS}/ux-overview-phone-dark.png` });
    await page.evaluate(() => (document.documentElement.dataset.theme = "light"));
    await page.screenshot({ path: `${SHOTS}/ux-overview-phone-light.png` });
    await checkA11y(page, "overview, phone");
    await page.setViewportSize({ width: 1440, height: 900 });
  }, 30_000);

  it("waits out a 429 on the session check with a banner and stays signed in", async () => {
    let refused = 0;
    await page.route("**/api/v1/user", async (route) => {
      if (refused++ === 0)
        return route.fulfill({ status: 429, headers: { "retry-after": "3", "content-type": "application/json" }, body: JSON.stringify({ error: "Too many requests", code: "RATE_LIMIT_EXCEEDED", details: { retryAfterSeconds: 3 } }) });
      return route.continue();
    });
    try {
      // Recorded by the page itself from its first moment: the banner stands for the Retry-After seconds only.
      await page.addInitScript(() => {
        const w = window as unknown as { bannerSeen?: string };
        new MutationObserver(() => {
          const b = document.querySelector("[data-testid=rate-limit-banner]");
          if (b && !w.bannerSeen) w.bannerSeen = `${b.textContent} | ${getComputedStyle(b).display} ${b.getBoundingClientRect().height > 0}`;
        }).observe(document, { subtree: true, childList: true });
      });
      await page.goto(`${api.url}/monitors`);
      await page.getByTestId("state-counts").waitFor({ timeout: 15_000 });
      expect(new URL(page.url()).pathname).toBe("/monitors");
      await page.getByTestId("rate-limit-banner").waitFor({ state: "detached" });
      expect(await page.evaluate(() => (window as unknown as { bannerSeen?: string }).bannerSeen)).toMatch(/^Too many requests for a moment: trying again in [1-3] s\. You stay signed in\. \| flex true$/);
      expect(refused).toBe(2);
    } finally {
      await page.unroute("**/api/v1/user");
    }
    expect(consoleErrors.filter((e) => !e.includes("429"))).toEqual([]);
  }, 30_000);

  it("shows an error instead of signing out when the session check keeps failing with a server error", async () => {
    await page.route("**/api/v1/user", (route) => route.fulfill({ status: 503, headers: { "content-type": "application/json" }, body: JSON.stringify({ error: "Service unavailable", code: "SERVICE_UNAVAILABLE", details: {} }) }));
    try {
      await page.goto(`${api.url}/monitors`);
      await page.getByRole("heading", { name: "Watchpost cannot be reached" }).waitFor({ timeout: 20_000 });
      expect(new URL(page.url()).pathname).toBe("/monitors");
      await checkA11y(page, "session unknown");
    } finally {
      await page.unroute("**/api/v1/user");
    }
    await page.getByRole("button", { name: "Try again" }).click();
    await page.getByTestId("state-counts").waitFor({ timeout: 15_000 });
  }, 40_000);
});
