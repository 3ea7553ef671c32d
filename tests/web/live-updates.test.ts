import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { Page } from "playwright-core";
import { publishLiveEvent } from "../../domain/events/publish-live-event.ts";
import { announceStored } from "../../domain/results/announce.ts";
import { storeResults } from "../../domain/results/ingest.ts";
import { makeResult } from "../../domain/results/test-fixtures.ts";
import { client, makeOrg, startTestApi, type TestApi } from "../support/api.ts";
import { launchChromium, screenshot, watchConsole } from "./browser.ts";

let api: TestApi;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let page: Page;
let consoleErrors: string[];
let orgId: string;
const ids: string[] = [];
const monitorListCalls: string[] = [];
const uptimeCalls: string[] = [];

beforeAll(async () => {
  api = await startTestApi({ ALLOW_PRIVATE_IPS: "true" });
  const org = await makeOrg(api.sql, "business");
  orgId = org.org_id;
  const call = client(api.url, { key: org.api_key });
  for (const name of ["Alpha", "Bravo", "Charlie"]) ids.push((await call("POST", "/api/v1/monitors", { name, type: "http", config: { url: "http://127.0.0.1:9/" }, interval_seconds: 60 })).body.id);
  chromium = await launchChromium();
  page = chromium.context.pages()[0] ?? (await chromium.context.newPage());
  // A step that hangs fails naming its locator, before the test's own 30 s limit hides which one it was (it timed
  // out once in CI, not reproduced since).
  page.setDefaultTimeout(10_000);
  consoleErrors = watchConsole(page);
  page.on("request", (r) => {
    if (new URL(r.url()).pathname === "/api/v1/monitors/overview") monitorListCalls.push(r.url());
    if (new URL(r.url()).pathname === "/api/v1/monitors/uptime") uptimeCalls.push(r.url());
  });
  const signin = await chromium.context.request.post(`${api.url}/api/v1/auth/signin`, { data: { email: org.email, password: org.password } });
  expect(signin.status()).toBe(200);
}, 120_000);

afterAll(async () => {
  await chromium?.close();
  await api?.stop();
}, 30_000);

const row = (id: string) => page.locator(`[data-monitor-id="${id}"]`);
/** Stores results and announces them on the bus, as ingest does: the page hears of them live. */
const ingest = async (...results: Parameters<typeof storeResults>[1]) => announceStored(api.bus, await storeResults(api.sql, results), results);

describe("live updates from /events", () => {
  it("changes a row's status and response time in place, without reloading the list", async () => {
    await page.goto(`${api.url}/monitors`);
    await row(ids[0]!).waitFor();
    await page.locator(".live.on").waitFor();
    const before = monitorListCalls.length;
    publishLiveEvent(api.bus, orgId, "monitor.status_changed", { monitor_id: ids[0], from: "pending", to: "down", at: new Date().toISOString() });
    publishLiveEvent(api.bus, orgId, "check.result", { id: "chk_live0", monitor_id: ids[0], location: "local", status: "down", duration_ms: 123, error: "connection refused", checked_at: new Date().toISOString(), data: {} });
    await row(ids[0]!).locator("[data-status=down]").waitFor({ timeout: 5000 });
    await row(ids[0]!).getByText("123 ms").waitFor({ timeout: 5000 });
    expect(monitorListCalls.length).toBe(before);
    await screenshot(page, "live-overview");
    expect(consoleErrors).toEqual([]);
  }, 30_000);

  it("fills the monitor page's checks table and response-time chart as results arrive", async () => {
    await row(ids[1]!).getByRole("link", { name: "Bravo" }).click();
    await page.getByRole("heading", { name: "Bravo" }).waitFor();
    await page.locator(".live.on").waitFor();
    // The page has read the stored results (none yet); live ones go on top of that first page.
    await page.getByText("No checks yet").waitFor();
    // The charts read their own page of results. A live result that arrives while that read is in flight makes it read
    // again (web/src/lib/live.ts), and these results were never stored: wait for the first read to be over.
    await page.getByText(/^No results yet\. The chart fills in live/).waitFor();
    const t = Date.now();
    for (let i = 0; i < 3; i++) {
      publishLiveEvent(api.bus, orgId, "check.result", {
        id: `chk_live${i + 1}`,
        monitor_id: ids[1],
        location: "local",
        status: "up",
        duration_ms: 40 + i * 10,
        error: null,
        checked_at: new Date(t + i * 1000).toISOString(),
        data: { dns_ms: 1, connect_ms: 2, tls_ms: null, ttfb_ms: 30, status_code: 200 },
      });
    }
    await page.getByTestId("checks-body").locator("tr").nth(2).waitFor({ timeout: 5000 });
    // Response time per region, and the timing phases the HTTP check measured (TLS was not).
    await page.getByRole("img", { name: /Response time of the last 3 checks/ }).locator("canvas").waitFor();
    await page.getByRole("img", { name: "Timing phases (DNS, connect, TTFB) of the last checks from local" }).locator("canvas").waitFor();
    await screenshot(page, "live-detail");
    expect(consoleErrors).toEqual([]);
  }, 30_000);

  it("refreshes a row's 24 h uptime when a failing result arrives, in the detail page's format, without reloading the list", async () => {
    await ingest(makeResult(orgId, ids[2]!, new Date(Date.now() - 60_000), "up", { location: "local" }));
    await page.goto(`${api.url}/monitors`);
    const uptime = row(ids[2]!).getByTestId("uptime-24h");
    await uptime.getByText("100%", { exact: true }).waitFor();
    await page.locator(".live.on").waitFor();
    const before = monitorListCalls.length;
    const uptimeBefore = uptimeCalls.length;
    await ingest(makeResult(orgId, ids[2]!, new Date(), "down", { location: "local" }));
    await row(ids[2]!).locator("[data-status=down]").waitFor({ timeout: 5000 });
    await uptime.getByText("50.00%", { exact: true }).waitFor({ timeout: 5000 });
    // Only that monitor's uptime was asked for, not the list again.
    expect(monitorListCalls.length).toBe(before);
    expect(uptimeCalls.slice(uptimeBefore).map((u) => new URL(u).searchParams.get("ids"))).toEqual([ids[2]!]);
    await screenshot(page, "live-overview-uptime");
    await row(ids[2]!).getByRole("link", { name: "Charlie" }).click();
    await page.getByTestId("uptime-24h").getByText("50.00%", { exact: true }).waitFor();
    expect(consoleErrors).toEqual([]);
  }, 30_000);
});
