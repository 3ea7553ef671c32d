import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { Page } from "playwright-core";
import { storeResults } from "../../domain/results/ingest.ts";
import type { CheckResultInput } from "../../domain/results/types.ts";
import { apiCall, captureScreen, type JourneyEnv, SETUP_TIMEOUT_MS, startJourney, waitOrShoot } from "./journey-support.ts";

/**
 * What an SSL or domain-expiry monitor is for, on its own page: the certificate's or the registration's
 * expiry and days left from the newest result, marked once inside the monitor's warning days, and
 * "not known yet" before a result says so (a user walk found them only on each result's page).
 */
let env: JourneyEnv;
let page: Page;
let orgId = "";

beforeAll(async () => {
  env = await startJourney("expiry-summary", { BILLING: "false" });
  page = env.page;
  // A fresh installation: the first owner comes through the setup screen.
  await page.goto(`${env.base}/`);
  await page.getByLabel("Your name").fill("Ines Ops");
  await page.getByLabel("Email").fill("ines@example.test");
  await page.getByLabel("Password").fill("correct horse battery");
  await page.getByLabel("Organisation name").fill("Ines's Team");
  await page.getByRole("button", { name: "Create account" }).click();
  await waitOrShoot(env, page.getByRole("heading", { name: "Watch your first site in under a minute" }), "expiry-setup", 15_000);
  const [org] = await env.db.sql<{ id: string }[]>`select id from organisations`;
  orgId = org!.id;
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await env?.stop();
}, 30_000);

const DAY = 86_400_000;

function resultOf(mon: { id: string; regions: string[] }, minutesAgo: number, data: Record<string, unknown>, status: CheckResultInput["status"] = "up"): CheckResultInput {
  const at = new Date(Date.now() - minutesAgo * 60_000);
  return { job_id: `job_${mon.id}_${minutesAgo}`, org_id: orgId, monitor_id: mon.id, location: mon.regions[0]!, location_type: "region", scheduled_at: at, checked_at: at, status, duration_ms: 90, error: null, data };
}

/** The date as the page's own formatter writes it, in the browser's locale and zone. */
const dateInPage = (iso: string) => page.evaluate((v) => new Date(v).toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" }), iso);

describe("an expiry monitor's page", () => {
  it("shows the certificate's days left, expiry, issuer and subject from the newest result, marked inside warn_days", async () => {
    const mon = await apiCall(env, "POST", "/api/v1/monitors", { name: "Shop certificate", type: "ssl", config: { host: "shop.example.com", warn_days: 14 }, paused: true });
    const soon = new Date(Date.now() + 10 * DAY + 3_600_000).toISOString();
    await storeResults(env.db.sql, [
      resultOf(mon, 60, { ssl_days_remaining: 40, valid_to: new Date(Date.now() + 40 * DAY).toISOString(), issuer: "CN=Old CA", subject: "CN=shop.example.com" }),
      resultOf(mon, 5, { ssl_days_remaining: 10, valid_to: soon, issuer: "CN=R11, O=Let's Encrypt, C=US", subject: "CN=shop.example.com" }, "degraded"),
    ]);
    await page.goto(`${env.base}/monitors/${mon.id}`);
    const summary = page.getByRole("region", { name: "Certificate", exact: true });
    await waitOrShoot(env, summary, "expiry-ssl");
    const text = await summary.innerText();
    expect(text).toContain("10 days");
    expect(text).toContain(await dateInPage(soon));
    expect(text).toContain("CN=R11, O=Let's Encrypt, C=US");
    expect(text).toContain("CN=shop.example.com");
    expect(text).not.toContain("Old CA");
    expect(text).toContain("within the 14-day warning");
    expect(await summary.locator(".expiry-warn").count()).toBe(1);
    await captureScreen(page, "expiry-ssl");
    expect(env.errors).toEqual([]);
  }, 60_000);

  it("shows the registration's expiry and days left, unmarked outside warn_days", async () => {
    const mon = await apiCall(env, "POST", "/api/v1/monitors", { name: "example.com registration", type: "domain", config: { domain: "example.com" }, paused: true });
    const expiry = new Date(Date.now() + 200 * DAY + 3_600_000).toISOString();
    await storeResults(env.db.sql, [resultOf(mon, 5, { domain_days_remaining: 200, expiry_date: expiry, registrar: "RESERVED-Internet Assigned Numbers Authority", source: "rdap" })]);
    await page.goto(`${env.base}/monitors/${mon.id}`);
    const summary = page.getByRole("region", { name: "Registration", exact: true });
    await waitOrShoot(env, summary, "expiry-domain");
    const text = await summary.innerText();
    expect(text).toContain("200 days");
    expect(text).toContain(await dateInPage(expiry));
    expect(text).toContain("RESERVED-Internet Assigned Numbers Authority");
    expect(text).not.toContain("warning");
    expect(await summary.locator(".expiry-warn").count()).toBe(0);
    await captureScreen(page, "expiry-domain");
    expect(env.errors).toEqual([]);
  }, 60_000);

  it("says the expiry is not known yet without a result, or when the newest result lacks it", async () => {
    const none = await apiCall(env, "POST", "/api/v1/monitors", { name: "New domain", type: "domain", config: { domain: "example.org" }, paused: true });
    await page.goto(`${env.base}/monitors/${none.id}`);
    const empty = page.getByRole("region", { name: "Registration", exact: true });
    await waitOrShoot(env, empty, "expiry-none");
    expect(await empty.innerText()).toContain("not known yet");

    const failing = await apiCall(env, "POST", "/api/v1/monitors", { name: "Refusing TLS", type: "ssl", config: { host: "tls.example.com" }, paused: true });
    await storeResults(env.db.sql, [
      resultOf(failing, 60, { ssl_days_remaining: 50, valid_to: new Date(Date.now() + 50 * DAY).toISOString() }),
      { ...resultOf(failing, 5, { ssl_days_remaining: null, valid_to: null }, "down"), error: "connect ECONNREFUSED" },
    ]);
    await page.goto(`${env.base}/monitors/${failing.id}`);
    const lacking = page.getByRole("region", { name: "Certificate", exact: true });
    await waitOrShoot(env, lacking, "expiry-lacking");
    const text = await lacking.innerText();
    expect(text).toContain("not known yet");
    expect(text).not.toContain("50 days");

    // Other types show no such summary.
    const http = await apiCall(env, "POST", "/api/v1/monitors", { name: "Plain HTTP", type: "http", config: { url: "http://127.0.0.1:9/" }, paused: true });
    await page.goto(`${env.base}/monitors/${http.id}`);
    await page.getByText("Daily uptime, last 90 days").waitFor();
    expect(await page.getByTestId("expiry-summary").count()).toBe(0);
    expect(env.errors).toEqual([]);
  }, 60_000);
});
