import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { Page } from "playwright-core";
import { evaluateResults } from "../../alerting/runtime/evaluate.ts";
import { RuleCache } from "../../alerting/runtime/rule-cache.ts";
import { result } from "../../alerting/testing/fixtures.ts";
import { silentLogger } from "../../core/log.ts";
import { storeResults } from "../../domain/results/ingest.ts";
import type { CheckResultInput } from "../../domain/results/types.ts";
import { apiCall, captureScreen, signUpInBrowser, startJourney, type JourneyEnv, SETUP_TIMEOUT_MS, waitOrShoot } from "./journey-support.ts";

/**
 * #23 items 5 and 6 in a real Chromium against the all-in-one server: the monitor page's charts over
 * three days of seeded results (failures in red, maintenance in grey, a gap where nothing was checked,
 * the range picker with percentiles and a custom range, the 90-day calendar), a monitor with a single
 * result (its time axis spans minutes, not years), and the timeline of one alert reached from the
 * active alerts, the bell and the monitor page, with the acknowledgement of the signed-in member.
 */
let env: JourneyEnv;
let page: Page;
let email = "";
let orgId = "";
let target: ReturnType<typeof Bun.serve>;
const SHOTS = process.env.UX_SHOTS_DIR;

beforeAll(async () => {
  target = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("ok") });
  env = await startJourney("charts", { RATE_LIMIT_PER_ORG: "1000" });
  page = env.page;
  email = `ada-${Date.now()}@example.test`;
  await signUpInBrowser(env, "Ada", email);
  const [org] = await env.db.sql<{ id: string }[]>`select id from organisations`;
  orgId = org!.id;
  await env.db.sql`update organisations set plan_id = 'business'`;
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await env?.stop();
  target?.stop(true);
}, 30_000);

const HOUR = 3_600_000;
const MIN = 60_000;

/** Results every 10 minutes for three days from `location`: failing 2 h ago for 40 min, nothing checked 30–26 h ago. */
function history(monitorId: string, location: string, now: number): CheckResultInput[] {
  const out: CheckResultInput[] = [];
  const start = Math.floor((now - 72 * HOUR) / (10 * MIN)) * 10 * MIN;
  for (let t = start; t < now - 5 * MIN; t += 10 * MIN) {
    if (t > now - 30 * HOUR && t < now - 26 * HOUR) continue;
    const down = t >= now - 2 * HOUR && t < now - 80 * MIN;
    out.push({
      job_id: `job_${monitorId}_${t}`,
      org_id: orgId,
      monitor_id: monitorId,
      location,
      location_type: "region",
      scheduled_at: new Date(t),
      checked_at: new Date(t + 300),
      status: down ? "down" : "up",
      duration_ms: down ? 5000 : 80 + Math.round(40 * Math.sin(t / HOUR)) + (t % 7) * 10,
      error: down ? "HTTP 503" : null,
      data: {},
    });
  }
  return out;
}

async function shoot(name: string) {
  await captureScreen(page, `charts-${name}`);
  if (!SHOTS) return;
  for (const [w, h, size] of [
    [1440, 900, "desktop"],
    [390, 844, "phone"],
  ] as const) {
    await page.setViewportSize({ width: w, height: h });
    for (const theme of ["light", "dark"]) {
      await page.evaluate((t) => (document.documentElement.dataset.theme = t), theme);
      await page.waitForTimeout(300);
      await page.screenshot({ path: `${SHOTS}/ux-charts-${name}-${size}-${theme}.png`, fullPage: true });
    }
  }
  await page.evaluate(() => (document.documentElement.dataset.theme = "light"));
  await page.setViewportSize({ width: 1280, height: 900 });
}

const xRangeOf = async (name: RegExp) => {
  const el = page.getByRole("img", { name }).first();
  await el.locator("canvas").waitFor();
  return [Number(await el.getAttribute("data-x-min")), Number(await el.getAttribute("data-x-max"))];
};

describe("charts that tell the story, and the incident timeline", () => {
  it("shows failures, maintenance and the monitoring gap, percentiles, custom ranges and the uptime calendar", async () => {
    const url = `http://127.0.0.1:${target.port}/`;
    const mon = await apiCall(env, "POST", "/api/v1/monitors", { name: "Shop API", type: "http", config: { url }, interval_seconds: 600, paused: true });
    const now = Date.now();
    // As if it had been created four days ago: the time before a monitor existed is no gap.
    await env.db.sql`update monitors set created_at = now() - interval '4 days' where id = ${mon.id}`;
    await storeResults(env.db.sql, history(mon.id, mon.regions[0], now));
    await apiCall(env, "POST", "/api/v1/maintenance-windows", {
      name: "Database upgrade",
      starts_at: new Date(now - 12 * HOUR).toISOString(),
      ends_at: new Date(now - 11 * HOUR).toISOString(),
      monitor_ids: [mon.id],
    });
    await page.goto(`${env.base}/monitors/${mon.id}`);
    await page.getByRole("heading", { name: "Shop API" }).waitFor();

    // The last 100 checks: the failing stretch in red; the key says so in words.
    await page.getByRole("img", { name: /Response time of the last 100 checks.*1 stretch of failing checks/ }).locator("canvas").waitFor();
    await expect(page.getByTestId("band-legend").first().textContent()).resolves.toContain("failing checks");

    // 24 hours: hourly buckets, the failures and the maintenance window; the axis is the day picked.
    await page.getByRole("button", { name: "24 hours" }).click();
    const day = page.getByRole("img", { name: /Average response time per hour over 24 hours, one line per region; .*failing checks, 1 maintenance window/ });
    await waitOrShoot(env, day.locator("canvas"), "charts-24h");
    const [min, max] = await xRangeOf(/over 24 hours/);
    expect(max - min).toBe(86_400);
    expect(Math.abs(max * 1000 - now)).toBeLessThan(2 * MIN);
    await expect(page.getByTestId("band-legend").first().textContent()).resolves.toContain("maintenance");

    // 7 days: the hours nobody checked are a gap (not a line drawn across them).
    await page.getByRole("button", { name: "7 days" }).click();
    await page.getByRole("img", { name: /over 7 days.*gaps? in monitoring/ }).locator("canvas").waitFor();

    // Percentiles of every region together.
    await page.getByLabel("Lines to show").selectOption("percentiles");
    await page.getByRole("img", { name: /p50, p95 and p99 response time per hour over 7 days, all regions/ }).locator("canvas").waitFor();
    await shoot("monitor-7d-percentiles");

    // 1 hour: every result; a custom range that ends before it starts is refused in words.
    await page.getByRole("button", { name: "1 hour" }).click();
    await page.getByRole("img", { name: /Response time of every check over 1 hour/ }).locator("canvas").waitFor();
    await page.getByRole("button", { name: "Custom" }).click();
    const customForm = page.getByRole("form", { name: "Custom range" });
    const local = (ms: number) => new Date(ms - new Date(ms).getTimezoneOffset() * MIN).toISOString().slice(0, 16);
    await customForm.getByLabel("From").fill(local(now - 2 * HOUR));
    await customForm.getByLabel("To").fill(local(now - 3 * HOUR));
    await customForm.getByRole("button", { name: "Show", exact: true }).click();
    await page.getByRole("alert").filter({ hasText: "The end must be after the start." }).waitFor();
    await customForm.getByLabel("From").fill(local(now - 3 * HOUR));
    await customForm.getByLabel("To").fill(local(now - HOUR));
    await customForm.getByRole("button", { name: "Show", exact: true }).click();
    await page.getByRole("img", { name: /every check over Custom.*1 stretch of failing checks/ }).locator("canvas").waitFor();
    const [cMin, cMax] = await xRangeOf(/every check over Custom/);
    expect(cMax - cMin).toBe(2 * 3600);

    // The calendar: 90 days in week columns, the days with checks coloured.
    const calendar = page.getByTestId("uptime-calendar");
    expect(await calendar.locator(".cell[data-day]").count()).toBe(90);
    expect(await calendar.locator(".cell.bar-good, .cell.bar-ok, .cell.bar-warn, .cell.bar-bad").count()).toBeGreaterThanOrEqual(3);
    await expect(calendar.getAttribute("aria-label")).resolves.toMatch(/days with checks/);
    expect(env.errors).toEqual([]);
  });

  it("keeps the time axis of a monitor with one result within minutes of it", async () => {
    const mon = await apiCall(env, "POST", "/api/v1/monitors", { name: "Lonely", type: "http", config: { url: `http://127.0.0.1:${target.port}/` }, paused: true });
    const at = Date.now() - 5 * MIN;
    await storeResults(env.db.sql, [
      { job_id: `job_lonely`, org_id: orgId, monitor_id: mon.id, location: mon.regions[0], location_type: "region", scheduled_at: new Date(at), checked_at: new Date(at), status: "up", duration_ms: 120, error: null, data: {} },
    ]);
    await page.goto(`${env.base}/monitors/${mon.id}`);
    const [min, max] = await xRangeOf(/Response time of the last 1 checks/);
    expect(min).toBeLessThan(at / 1000);
    expect(max).toBeGreaterThan(at / 1000);
    expect(max - min).toBeLessThanOrEqual(300);
    expect(env.errors).toEqual([]);
  });

  it("shades a refused check from when it failed, not minutes before, and leaves its 2 ms off the line", async () => {
    const mon = await apiCall(env, "POST", "/api/v1/monitors", { name: "Refusing", type: "http", config: { url: `http://127.0.0.1:${target.port}/` }, interval_seconds: 300, paused: true });
    const region = mon.regions[0];
    const failedAt = Date.now() - 20_000;
    // Up every 300 s, the last one 174 s before the only failing check (as reported: 13:07:48, then refused at 13:10:42).
    const row = (at: number, down: boolean): CheckResultInput => ({
      job_id: `job_refusing_${at}`, org_id: orgId, monitor_id: mon.id, location: region, location_type: "region", scheduled_at: new Date(at), checked_at: new Date(at),
      status: down ? "down" : "up", duration_ms: down ? 2 : 180, error: down ? "connect ECONNREFUSED 127.0.0.1:1" : null, data: {},
    });
    await storeResults(env.db.sql, [...[3, 2, 1, 0].map((i) => row(failedAt - 174_000 - i * 300_000, false)), row(failedAt, true)]);
    await page.goto(`${env.base}/monitors/${mon.id}`);
    const chart = page.getByRole("img", { name: /Response time of the last 5 checks.*1 stretch of failing checks/ });
    await chart.locator("canvas").waitFor();
    const [min, max] = await xRangeOf(/Response time of the last 5 checks/);
    // The axis reaches past the failing check, so its stretch (until now) shows.
    expect(max).toBeGreaterThan(failedAt / 1000 + 10);
    // Red only from the failing check on: a minute before it the plot is not shaded.
    const redAt = (sec: number) =>
      chart.evaluate((el, f) => {
        const over = el.querySelector(".u-over")!.getBoundingClientRect();
        const canvas = el.querySelector("canvas")!;
        const box = canvas.getBoundingClientRect();
        const ratio = canvas.width / box.width;
        const px = (over.left - box.left + f * over.width) * ratio;
        const [r, g] = canvas.getContext("2d")!.getImageData(Math.round(px), Math.round((over.top - box.top + 4) * ratio), 1, 1).data;
        return r! - g! > 20;
      }, (sec - min!) / (max! - min!));
    expect(await redAt(failedAt / 1000 - 60)).toBe(false);
    expect(await redAt(failedAt / 1000 + 5)).toBe(true);
    await shoot("refused-check");
    expect(env.errors).toEqual([]);
  });

  it("tells one alert's story on its own page, linked from active alerts, the bell and the monitor page", async () => {
    const hook = await apiCall(env, "POST", "/api/v1/alert-channels", { name: "Ops hook", type: "webhook", config: { url: `http://127.0.0.1:${target.port}/hook` } });
    // Not paused (a paused monitor's alerts wait for its resume): checked once at creation, then not for an hour, so the
    // story below is told by the results this test stores, after that first check.
    const mon = await apiCall(env, "POST", "/api/v1/monitors", { name: "Checkout", type: "http", config: { url: `http://127.0.0.1:${target.port}/` }, interval_seconds: 3600 });
    for (let i = 0; !(await apiCall(env, "GET", `/api/v1/monitors/${mon.id}`)).last_checked_at; i++) {
      if (i > 300) throw new Error("the monitor's first check was never recorded");
      await Bun.sleep(100);
    }
    const rule = await apiCall(env, "POST", "/api/v1/alert-rules", { name: "Checkout down", scope: { type: "monitor", monitor_id: mon.id }, condition: { type: "status_change", to: ["down"] }, confirmation: { consecutive_failures: 2 }, channels: [{ channel_id: hook.id }] });
    const region = mon.regions[0];
    const check = async (status: "up" | "down") => {
      const r = result(orgId, mon.id, status, { location: region });
      await storeResults(env.db.sql, [{ ...r, job_id: `job_${r.id}` } as never]);
      await evaluateResults({ sql: env.db.sql, rules: new RuleCache(env.db.sql, silentLogger), publicBaseUrl: env.base }, [r]);
    };
    await check("up");
    await check("down");
    await check("down");

    // Active alerts → the alert's page; acknowledge there first, as on call.
    await page.goto(`${env.base}/alerts`);
    await page.getByRole("button", { name: `Acknowledge Checkout down on Checkout` }).click();
    await page.getByText("acknowledged", { exact: true }).waitFor();
    await page.getByRole("link", { name: "Checkout down" }).click();
    await page.getByRole("heading", { name: /Checkout down: Checkout/ }).waitFor();
    const timeline = page.getByTestId("alert-timeline");
    await timeline.getByText(`Acknowledged by ${email}`).waitFor();
    await expect(page.getByTestId("alert-status").textContent()).resolves.toBe("Acknowledged, still firing");
    // The alerting role delivers the webhook; the timeline shows its delivery.
    await page.waitForFunction(() => document.querySelector("[data-testid=alert-timeline]")?.textContent?.includes("Alert sent to Ops hook (webhook)"), null, { timeout: 20_000 }).catch(async () => {
      await page.reload();
      await timeline.getByText("Alert sent to Ops hook (webhook)").waitFor({ timeout: 20_000 });
    });
    expect(await timeline.getByRole("link", { name: /^Check down after 5000 ms$/ }).count()).toBe(2);

    await check("up");
    await page.reload();
    await timeline.getByText("Recovered").waitFor();
    await expect(page.getByTestId("alert-status").textContent()).resolves.toBe("Recovered");
    await shoot("alert-timeline");

    // Each check links to its result.
    await timeline.getByRole("link", { name: /^Check down/ }).first().click();
    await page.getByRole("heading", { name: /Result|Check/ }).first().waitFor();
    expect(page.url()).toContain(`/monitors/${mon.id}/checks/chk_`);

    // The bell's alert notice opens the same page.
    await page.goto(`${env.base}/monitors`);
    await page.getByRole("button", { name: /^Notifications, \d+ unread$/ }).click();
    await page.getByRole("dialog", { name: "Notifications" }).getByRole("button", { name: /Alert: Checkout/ }).first().click();
    await page.getByRole("heading", { name: /Checkout down: Checkout/ }).waitFor();
    expect(decodeURIComponent(page.url())).toEndWith(`/alerts/${rule.id}~${mon.id}~${region}~1`);

    // The monitor page lists it too; so does the alert history.
    await page.goto(`${env.base}/monitors/${mon.id}`);
    await page.getByTestId("monitor-alerts").getByRole("link", { name: `Checkout down in ${region}` }).click();
    await page.getByRole("heading", { name: /Checkout down: Checkout/ }).waitFor();
    await page.goto(`${env.base}/alerts/history`);
    // The rows show ids until the rule, monitor and channel names load, and the Timeline column moves when they do:
    // a click at that moment lands beside the link. Click once the row has its names.
    await page.getByRole("row").filter({ hasText: "Checkout down" }).filter({ hasText: "Ops hook" }).filter({ has: page.getByRole("link", { name: "Checkout", exact: true }) }).first().waitFor();
    await page.getByRole("link", { name: /Timeline of the alert of this alert/ }).first().click();
    await page.getByRole("heading", { name: /Checkout down: Checkout/ }).waitFor();

    expect(env.errors).toEqual([]);
    // An alert that never happened is a clear 404 on the page.
    await page.goto(`${env.base}/alerts/${rule.id}~${mon.id}~${region}~9`);
    await page.getByText(/Alert not found/).waitFor();
    expect(env.errors.every((e) => e.includes("404"))).toBe(true);
    env.errors.length = 0;
  });
});
