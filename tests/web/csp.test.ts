/**
 * The Content-Security-Policy headers break nothing a person sees: the dashboard loads, signs up,
 * draws its screens (charts, the 2FA QR code) with no CSP violation, and a status page with a custom
 * theme still shows the theme's colours and CSS (and only its own stylesheet applies). The violations are read from the browser itself
 * (securitypolicyviolation events and console reports), not inferred from the header text.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { Page } from "playwright-core";
import { startTestApi, type TestApi } from "../support/api.ts";
import { orgWithPage } from "../status-pages/support.ts";
import { launchChromium } from "./browser.ts";

let api: TestApi;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
beforeAll(async () => {
  api = await startTestApi();
  chromium = await launchChromium();
}, 90_000);
afterAll(async () => {
  await chromium?.close();
  await api?.stop();
}, 30_000);

/** Every CSP violation the page reports, from the DOM event and from the console. */
async function watchViolations(page: Page): Promise<string[]> {
  const seen: string[] = [];
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) seen.push(`console: ${m.text()}`);
  });
  await page.exposeFunction("__cspViolation", (v: string) => seen.push(v));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => (window as unknown as { __cspViolation(v: string): void }).__cspViolation(`${e.violatedDirective} ${e.blockedURI}`));
  });
  return seen;
}

describe("content security policy in a real browser", () => {
  it("loads and drives the dashboard with no CSP violation", async () => {
    const page = await chromium.context.newPage();
    const violations = await watchViolations(page);
    const res = await page.goto(`${api.url}/signup`);
    expect(res?.headers()["content-security-policy"]).toContain("script-src 'self'");
    await page.getByLabel("Your name").fill("Cass");
    await page.getByLabel("Email").fill(`cass-${Date.now()}@example.test`);
    await page.getByLabel("Password").fill("correct horse battery");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByRole("heading", { name: "Watch your first site in under a minute" }).waitFor({ timeout: 20_000 });
    // A monitor of the session's organisation, for the detail screen's charts (uPlot).
    const csrf = decodeURIComponent((await page.context().cookies()).find((c) => c.name === "wp_csrf")?.value ?? "");
    const created = await page.request.post(`${api.url}/api/v1/monitors`, {
      headers: { "x-csrf-token": csrf },
      data: { name: "Charted", type: "http", config: { url: "https://example.com" }, interval_seconds: 300, paused: true },
    });
    expect(created.status()).toBe(201);
    const monitorId = (await created.json()).id as string;
    // Screens with the most varied rendering: forms, charts, the 2FA QR code (SVG), status pages, billing.
    for (const path of ["/monitors/new", `/monitors/${monitorId}`, "/account/security", "/status-pages", "/org", "/alert-rules", "/billing"]) {
      await page.goto(`${api.url}${path}`);
      await page.getByRole("navigation", { name: "Main" }).waitFor({ timeout: 15_000 });
      // The live-events stream never lets the network go idle: give lazy chunks and charts a moment.
      await page.waitForTimeout(750);
    }
    expect(violations).toEqual([]);
    // A script injected inline is refused, so the policy is in force (not merely harmless).
    const ran = await page.evaluate(() => {
      const s = document.createElement("script");
      s.textContent = "window.__inline = true";
      document.body.append(s);
      return (window as unknown as { __inline?: boolean }).__inline === true;
    });
    expect(ran).toBe(false);
    await page.waitForTimeout(250);
    expect(violations.some((v) => v.startsWith("script-src"))).toBe(true);
    await page.close();
  }, 120_000);

  it("shows a status page with its custom theme's colours and CSS, with no CSP violation", async () => {
    const { call, slug, pageId } = await orgWithPage(api);
    const theme = await call("POST", "/api/v1/themes", {
      name: "Brand",
      colors: { background: "#102030", text: "#fafafa" },
      custom_css: "h1 { letter-spacing: 7px; }",
    });
    expect(theme.status).toBe(201);
    expect((await call("PATCH", `/api/v1/status-pages/${pageId}`, { theme_id: theme.body.id })).status).toBe(200);
    const page = await chromium.context.newPage();
    const violations = await watchViolations(page);
    const res = await page.goto(`${api.url}/status/${slug}`);
    expect(res?.status()).toBe(200);
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe("rgb(16, 32, 48)");
    expect(await page.evaluate(() => getComputedStyle(document.querySelector("h1")!).letterSpacing)).toBe("7px");
    expect(violations).toEqual([]);
    // Only the page's own stylesheet applies: a style element added any other way does not.
    const after = await page.evaluate(() => {
      const style = document.createElement("style");
      style.textContent = "body { background: rgb(255, 0, 0) !important; }";
      document.head.append(style);
      return getComputedStyle(document.body).backgroundColor;
    });
    expect(after).toBe("rgb(16, 32, 48)");
    await page.close();
  }, 60_000);
});
