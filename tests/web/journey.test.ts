import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import * as OTPAuth from "otpauth";
import type { Page } from "playwright-core";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { spawnRole, type RoleProcess } from "../support/processes.ts";
import { until } from "../support/scheduling.ts";
import { launchChromium, screenshot, watchConsole } from "./browser.ts";
import { freePort } from "../support/free-port.ts";

let db: TestDatabase;
let server: RoleProcess;
let base: string;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let page: Page;
let consoleErrors: string[];
let failing = false;
let target: ReturnType<typeof Bun.serve>;
const hooks: unknown[] = [];
const email = `ada-${Date.now()}@example.test`;
const password = "correct horse battery";

/** A cookie-authenticated API call from the page's own session (cookies plus X-CSRF-Token). */
async function apiCall(method: "POST" | "GET", path: string, data?: unknown) {
  const csrf = (await page.context().cookies()).find((c) => c.name === "wp_csrf")?.value ?? "";
  const res = await page.request.fetch(`${base}${path}`, { method, data, headers: { "x-csrf-token": decodeURIComponent(csrf) } });
  expect(res.status()).toBeLessThan(300);
  return res.json();
}

beforeAll(async () => {
  db = await createTestDatabase();
  target = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: async (req) => {
      if (new URL(req.url).pathname === "/hook") {
        hooks.push(await req.json());
        return new Response("thanks");
      }
      return failing ? new Response("broken", { status: 500 }) : new Response("ok");
    },
  });
  const port = freePort();
  server = spawnRole("scripts/start.ts", { DATABASE_URL: db.url, PORT: String(port), HOST: "127.0.0.1", ALLOW_PRIVATE_IPS: "true", DATA_DIR: `/tmp/wp-web-e2e-${port}` });
  await server.waitForLog("API listening", 30_000);
  base = `http://127.0.0.1:${port}`;
  chromium = await launchChromium();
  page = chromium.context.pages()[0] ?? (await chromium.context.newPage());
  consoleErrors = watchConsole(page);
}, 120_000);

afterAll(async () => {
  await chromium?.close();
  await server?.stop(3000);
  target?.stop(true);
  await db?.drop();
}, 30_000);

describe("dashboard journey", () => {
  it("sets up the fresh installation and lands on an empty overview that teaches the first monitor", async () => {
    await page.goto(`${base}/`);
    await page.getByRole("heading", { name: "Welcome to Watchpost" }).waitFor();
    await screenshot(page, "01-setup");
    await page.getByLabel("Your name").fill("Ada");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByLabel("Organisation name").fill("Ada's organisation");
    await screenshot(page, "02-setup-filled");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByRole("heading", { name: "Watch your first site in under a minute" }).waitFor();
    await screenshot(page, "03-empty-overview");
    expect(consoleErrors).toEqual([]);
  }, 30_000);

  it("creates an HTTP monitor for a loopback target and shows it", async () => {
    await page.getByRole("link", { name: "Create your first monitor" }).click();
    await page.getByLabel("Name").fill("Loopback site");
    await page.getByLabel("URL").fill(`http://127.0.0.1:${target.port}/`);
    await page.getByLabel("Timeout (ms)").fill("2000");
    await screenshot(page, "04-new-monitor");
    await page.getByRole("button", { name: "Create monitor" }).click();
    await page.getByRole("heading", { name: "Loopback site" }).waitFor({ timeout: 10_000 }).catch(async (err) => {
      await screenshot(page, "fail-create-monitor");
      throw new Error(`${err}\n${consoleErrors.join("\n")}`);
    });
    await screenshot(page, "05-monitor-detail");
    await page.getByRole("link", { name: "← Monitors" }).click();
    await page.getByRole("link", { name: "Loopback site" }).waitFor();
    expect(await page.getByTestId("monitor-count").textContent()).toBe("1 monitor");
    await screenshot(page, "06-overview");
    expect(consoleErrors).toEqual([]);
  }, 30_000);

  it("shows the alerting screens", async () => {
    for (const [link, heading, shot] of [
      ["Alerts", "Active alerts", "07-active-alerts"],
      ["Alert rules", "Alert rules", "08-alert-rules"],
      ["Channels", "Alert channels", "09-channels"],
      ["Maintenance", "Maintenance windows", "10-maintenance"],
      ["Groups", "Monitor groups", "11-groups"],
    ] as const) {
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: link, exact: true }).click();
      await page.getByRole("heading", { name: heading, exact: true }).waitFor();
      await screenshot(page, shot);
    }
    expect(consoleErrors).toEqual([]);
  }, 30_000);

  it("pauses and resumes the monitor from its page", async () => {
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Monitors", exact: true }).click();
    await page.getByRole("link", { name: "Loopback site" }).click();
    await page.getByRole("button", { name: "Pause" }).click();
    await page.locator("[data-status=paused]").waitFor();
    await page.getByRole("button", { name: "Resume" }).click();
    await page.getByRole("button", { name: "Pause" }).waitFor();
    expect(consoleErrors).toEqual([]);
  }, 30_000);

  it("adds a webhook channel, test-sends it to a loopback receiver, and binds it in an alert rule", async () => {
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Channels", exact: true }).click();
    await page.getByLabel("Type").selectOption("webhook");
    await page.getByLabel("Name").fill("Loopback hook");
    await page.getByLabel("URL").fill(`http://127.0.0.1:${target.port}/hook`);
    await page.getByRole("button", { name: "Add channel" }).click();
    await page.getByText("Loopback hook").waitFor();
    await page.getByRole("button", { name: "Send test" }).click();
    await page.getByText(/^Test (sent|failed)/).waitFor({ timeout: 15_000 });
    expect(await page.getByText(/^Test (sent|failed)/).textContent()).toStartWith("Test sent");
    expect(hooks.length).toBe(1);
    await screenshot(page, "12-channel-tested");

    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Alert rules", exact: true }).click();
    await page.getByLabel("Rule name").fill("Anything down");
    await page.getByLabel("Loopback hook (webhook)").check();
    await page.getByRole("button", { name: "Create rule" }).click();
    await page.getByText("Anything down").waitFor();
    await screenshot(page, "13-alert-rule");
    expect(consoleErrors).toEqual([]);
  }, 30_000);

  it("switches to the dark theme and fits a phone screen", async () => {
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Monitors", exact: true }).click();
    await page.getByRole("button", { name: "Switch to dark theme" }).click();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe("dark");
    await screenshot(page, "14-overview-dark");
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole("link", { name: "Loopback site" }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
    await screenshot(page, "15-overview-phone");
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByRole("button", { name: "Switch to light theme" }).click();
    expect(consoleErrors).toEqual([]);
  }, 30_000);

  it("switches organisation with the switcher, each showing its own monitors", async () => {
    const org = await apiCall("POST", "/api/v1/orgs", { name: "Second org" });
    await page.reload();
    const switcher = page.getByLabel("Organisation");
    await switcher.selectOption({ label: "Second org" });
    await page.getByRole("heading", { name: "Watch your first site in under a minute" }).waitFor({ timeout: 10_000 }).catch(async (err) => {
      await screenshot(page, "fail-switch-org");
      throw new Error(`${err}\n${consoleErrors.join("\n")}`);
    });
    expect(await page.evaluate(() => localStorage.getItem("wp_org"))).toBe(org.id);
    await switcher.selectOption({ label: "Ada's organisation" });
    await page.getByRole("link", { name: "Loopback site" }).waitFor();
    expect(consoleErrors).toEqual([]);
  }, 30_000);

  it("asks for the authenticator code at sign-in once two-factor is on", async () => {
    const { secret } = await apiCall("POST", "/api/v1/user/2fa/setup");
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) });
    await apiCall("POST", "/api/v1/user/2fa/enable", { code: totp.generate() });
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in", exact: true }).waitFor();
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    const code = page.getByLabel("Authentication code");
    await code.waitFor();
    await screenshot(page, "16-sign-in-totp");
    // The 401 that asked for the code is expected; nothing else may have failed.
    expect(consoleErrors.filter((e) => !e.includes("401"))).toEqual([]);
    expect(consoleErrors.filter((e) => e.startsWith("http 401")).every((e) => e.endsWith("/api/v1/auth/signin"))).toBe(true);
    consoleErrors.length = 0;
    // The next step's code: the one used to enable 2FA may not be accepted twice.
    await code.fill(totp.generate({ timestamp: Date.now() + 30_000 }));
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByRole("link", { name: "Loopback site" }).waitFor();
    expect(consoleErrors).toEqual([]);
  }, 30_000);

  it("sees the monitor go up live, then down with an alert when the target fails, acknowledges it, and sees it recover", async () => {
    await page.getByRole("link", { name: "Loopback site" }).click();
    await page.getByRole("button", { name: "Run now" }).click();
    await page.locator("h1 + [data-status=up]").waitFor({ timeout: 20_000 });
    await page.getByTestId("checks-body").locator("tr").first().waitFor();
    await screenshot(page, "17-monitor-up-live");

    failing = true;
    await page.getByRole("button", { name: "Run now" }).click();
    await page.locator("h1 + [data-status=down]").waitFor({ timeout: 20_000 });
    await page.getByTestId("unread-count").waitFor({ timeout: 20_000 });
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Alerts", exact: true }).click();
    await page.getByRole("button", { name: /Acknowledge Anything down on Loopback site/ }).waitFor({ timeout: 20_000 });
    // The page shows the alert once it fires; its webhook goes out from the alerting process's outbox a moment later.
    await until(() => hooks.length > 1, 20_000, "the alert's webhook");
    await screenshot(page, "18-alert-firing");
    await page.getByRole("button", { name: /Acknowledge Anything down on Loopback site/ }).click();
    await page.getByText("acknowledged", { exact: true }).waitFor();

    failing = false;
    await page.getByRole("link", { name: "Loopback site" }).click();
    await page.getByRole("button", { name: "Run now" }).click();
    await page.locator("h1 + [data-status=up]").waitFor({ timeout: 20_000 });
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Alerts", exact: true }).click();
    await page.getByRole("heading", { name: "All quiet" }).waitFor({ timeout: 20_000 });
    await screenshot(page, "19-recovered");
    expect(consoleErrors).toEqual([]);
  }, 120_000);
});
