import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import { screenshot } from "./browser.ts";
import { apiCall, captureScreen, nav, signUpInBrowser, startJourney, type JourneyEnv, SETUP_TIMEOUT_MS } from "./journey-support.ts";

/**
 * The part-1 screens against the real all-in-one server: a monitor of every check type through
 * its schema-generated form, browser-side validation, editing, the detail page with real results
 * (charts, daily bar, checks table, result detail, export), the overview's filters, keyboard and
 * bulk actions, groups, maintenance windows, the alert rules editor, escalation policies, channels,
 * the notification bell and alert history. Every main screen is screenshotted and checked with
 * axe-core in both themes; no console error or unexpected HTTP error is allowed.
 */
let env: JourneyEnv;
let email = "";
let page: Page;
let target: ReturnType<typeof Bun.serve>;
let failing = false;
const hooks: unknown[] = [];
const ids: Record<string, string> = {};
const CALLS: string[] = [];
const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

beforeAll(async () => {
  target = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: async (req) => {
      if (new URL(req.url).pathname === "/hook") {
        hooks.push(await req.json());
        return new Response("thanks");
      }
      return failing ? new Response("broken", { status: 500 }) : new Response("all good");
    },
  });
  // This journey packs several minutes of clicking into one: a per-organisation limit of 300 calls a
  // minute (the default) is too tight for it; the last test bounds the calls the screens make instead.
  env = await startJourney("p1", { RATE_LIMIT_PER_ORG: "1000", RATE_LIMIT_PER_SESSION: "1000" });
  page = env.page;
  page.on("request", (r) => {
    const u = new URL(r.url());
    if (u.pathname.startsWith("/api/v1/") && u.pathname !== "/api/v1/events") CALLS.push(`${Date.now()} ${r.method()} ${u.pathname.replace(/(mon|ntf|rule|chk|ch|esc|mw)_[0-9a-f]+/g, ":id")}`);
  });
  email = `grace-${Date.now()}@example.test`;
  await signUpInBrowser(env, "Grace", email);
  // Every check type needs its quota (browser monitors are not on Free).
  await env.db.sql`update organisations set plan_id = 'business'`;
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await env?.stop();
  target?.stop(true);
}, 30_000);

const noErrors = () => expect(env.errors).toEqual([]);
const monitorIdFromUrl = () => new URL(page.url()).pathname.split("/")[2]!;

async function newMonitor(type: string, name: string, fill: () => Promise<void>, paused = true) {
  // In-app navigation, as a person would (a full reload fetches the session again).
  await nav(page, "Monitors");
  await page.getByRole("link", { name: /^(New monitor|Create your first monitor)$/ }).click();
  await page.getByLabel("Check type").selectOption(type);
  await page.getByLabel("Name", { exact: true }).fill(name);
  await fill();
  if (paused) await page.getByLabel(/Start paused/).check();
  await page.getByRole("button", { name: "Create monitor" }).click();
  await page.getByRole("heading", { name, exact: true }).waitFor({ timeout: 10_000 });
  ids[name] = monitorIdFromUrl();
}

describe("monitors and alerting screens", () => {
  it("creates a monitor of every check type through the form generated from its schema", async () => {
    const url = `http://127.0.0.1:${target.port}/`;
    env.zone["status.example.test"] = [{ type: "A", name: "status.example.test", ttl: 60, data: "127.0.0.1" }];
    await newMonitor("http", "Web", async () => {
      await page.getByLabel("URL").fill(url);
      await page.getByLabel("Tags (comma separated)").fill("prod, web");
      await page.getByText("More settings").click();
      await page.getByLabel("Expected status codes (optional)").fill("200, 2xx");
      await page.getByLabel("Request headers (optional)").fill("Accept: text/plain");
      await screenshot(page, "p1-01-form-http");
    }, false);
    await newMonitor("keyword", "Keyword", async () => {
      await page.getByLabel("URL").fill(url);
      await page.getByLabel("Keyword", { exact: true }).fill("good");
    });
    await newMonitor("ssl", "Certificate", async () => page.getByLabel("Host").fill("127.0.0.1"));
    await newMonitor("tcp", "Port", async () => {
      await page.getByLabel("Host").fill("127.0.0.1");
      await page.getByLabel("Port").fill(String(target.port));
    });
    await newMonitor("dns", "Name server", async () => {
      await page.getByLabel("Record name").fill("status.example.test");
      await page.getByLabel("Record type").selectOption("A");
      await page.getByText("More settings").click();
      await page.getByLabel("Resolver (optional)").fill(env.dns.address);
      await page.getByLabel("Expected answers (optional)").fill("127.0.0.1");
    });
    await newMonitor("ping", "Ping", async () => page.getByLabel("Host").fill("127.0.0.1"));
    await newMonitor("domain", "Domain", async () => page.getByLabel("Domain").fill("example.test"));
    await newMonitor("heartbeat", "Nightly backup", async () => page.getByLabel("Expected every (seconds)").fill("86400"));
    await page.getByTestId("ping-url-success").getByText(/\/api\/v1\/heartbeat\/hb_/).waitFor();
    await newMonitor("browser_lite", "Browser page", async () => page.getByLabel("URL").fill(url));
    await newMonitor("browser_flow", "Checkout flow", async () => {
      await page.getByLabel("URL").fill(url);
      await page.getByLabel("Steps").fill(JSON.stringify([{ action: "wait_for_text", text: "good" }]));
    });
    const list = await apiCall<{ data: { type: string; config: Record<string, unknown>; paused: boolean }[] }>(env, "GET", "/api/v1/monitors?limit=100");
    expect(list.data.map((m) => m.type).sort()).toEqual(["browser_flow", "browser_lite", "dns", "domain", "heartbeat", "http", "keyword", "ping", "ssl", "tcp"]);
    const http = list.data.find((m) => m.type === "http")!;
    expect(http.config).toMatchObject({ url, expected_status: [200, "2xx"], headers: { Accept: "text/plain" } });
    expect(http.paused).toBe(false);
    expect(list.data.filter((m) => m.paused)).toHaveLength(9);
    noErrors();
  }, 90_000);

  it("refuses settings the API would refuse before sending anything, naming the field", async () => {
    let posts = 0;
    const count = (r: { method(): string; url(): string }) => r.method() === "POST" && r.url().endsWith("/api/v1/monitors") && posts++;
    page.on("request", count);
    await page.goto(`${env.base}/monitors/new`);
    await page.getByLabel("Check type").selectOption("http");
    await page.getByLabel("Name", { exact: true }).fill("Broken");
    await page.getByLabel("URL").fill("ftp://example.test/file");
    await page.getByLabel("Timeout (ms)").fill("999999");
    await page.getByRole("button", { name: "Create monitor" }).click();
    await page.getByText("URL must be an http:// or https:// URL").waitFor();
    await page.getByText("2 settings need fixing").waitFor();
    expect(await page.getByLabel("URL").getAttribute("aria-invalid")).toBe("true");
    await captureScreen(page, "p1-02-form-invalid");
    page.off("request", count);
    expect(posts).toBe(0);
    noErrors();
  }, 30_000);

  it("edits a monitor, keeping a stored password it only shows masked", async () => {
    await page.goto(`${env.base}/monitors/${ids.Web}/edit`);
    await page.getByRole("heading", { name: "Edit Web" }).waitFor();
    await page.getByText("More settings").click();
    await page.getByLabel("Kind").selectOption("basic");
    await page.getByLabel("Username").fill("ops");
    await page.getByLabel("Password").fill("s3cret-password");
    await page.getByLabel("Check every (seconds)").fill("600");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("heading", { name: "Web", exact: true }).waitFor();
    await page.getByText("every 600 s").waitFor();
    await page.goto(`${env.base}/monitors/${ids.Web}/edit`);
    await page.getByText("More settings").click();
    expect(await page.getByLabel("Password").inputValue()).toBe("••••••••");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("heading", { name: "Web", exact: true }).waitFor();
    const [row] = await env.db.sql`select secrets_enc from monitors where id = ${ids.Web!}`;
    expect(row!.secrets_enc).not.toBeNull();
    noErrors();
  }, 30_000);

  it("shows a monitor's results: uptime, daily bar, charts per region and phase, checks with detail and export", async () => {
    await page.goto(`${env.base}/monitors/${ids.Web}`);
    for (let i = 0; i < 3; i++) {
      await page.getByRole("button", { name: "Run now" }).click();
      await page.getByText(/Checked from local: up in/).waitFor({ timeout: 15_000 });
    }
    await page.getByTestId("checks-body").locator("tr").nth(2).waitFor({ timeout: 15_000 });
    await page.getByRole("img", { name: /Response time of the last \d+ checks/ }).locator("canvas").waitFor();
    await page.getByRole("img", { name: /^Timing phases \(DNS, connect, TTFB\)/ }).waitFor();
    await page.reload();
    await page.getByTestId("uptime-24h").getByText("100%").waitFor({ timeout: 15_000 });
    await page.getByRole("img", { name: /days with checks; every day at 99.9 % or better/ }).waitFor();
    await captureScreen(page, "p1-03-detail");

    await page.getByRole("button", { name: "24 hours" }).click();
    await page.getByRole("img", { name: /Average response time per hour over 24 hours/ }).locator("canvas").waitFor();

    // Keyboard: a row opens the result dialog, Escape closes it.
    await page.getByTestId("checks-body").locator("tr").first().focus();
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: /Check from local/ });
    await dialog.getByText("status_code").waitFor();
    await dialog.getByText("HTTP status code of the last response", { exact: false }).waitFor();
    await screenshot(page, "p1-04-result-dialog");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });

    await page.getByLabel("Filter checks by status").selectOption("down");
    await page.getByText("No check matches these filters.").waitFor();
    await page.getByLabel("Filter checks by status").selectOption("");
    await page.getByTestId("checks-body").locator("tr").first().waitFor();

    const [csv] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export CSV" }).click()]);
    const csvText = readFileSync((await csv.path())!, "utf8");
    expect(csvText.split("\n")[0]).toStartWith("id,scheduled_at,checked_at,status,duration_ms");
    expect(csvText.trim().split("\n").length).toBeGreaterThanOrEqual(4);
    const [json] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export JSON" }).click()]);
    expect(JSON.parse(readFileSync((await json.path())!, "utf8")).length).toBeGreaterThanOrEqual(3);

    await page.getByTestId("checks-body").locator("tr").first().click();
    await page.getByRole("link", { name: "Open as a page" }).click();
    await page.getByRole("heading", { name: "Check result" }).waitFor();
    await page.getByText(/^chk_/).waitFor();
    noErrors();
  }, 60_000);

  it("filters, sorts and searches the overview, moves by keyboard and pauses in bulk", async () => {
    await nav(page, "Monitors");
    await page.getByTestId("monitor-count").getByText("10 monitors").waitFor();
    await page.getByLabel("Filter by tag").selectOption("web");
    await page.getByTestId("monitor-count").getByText("1 monitor").waitFor();
    expect(page.url()).toContain("tag=web");
    await page.getByLabel("Filter by tag").selectOption("");
    await page.getByLabel("Sort by").selectOption("name");
    await page.waitForFunction(() => document.querySelector("[data-monitor-id] .name a")?.textContent === "Browser page");
    await page.getByRole("heading", { name: "Monitors" }).click();
    await page.keyboard.press("/");
    await page.keyboard.type("flow");
    await page.getByTestId("monitor-count").getByText("1 monitor").waitFor();
    await page.getByLabel("Search monitors by name").fill("");
    await page.getByTestId("monitor-count").getByText("10 monitors").waitFor();

    await page.locator("[data-monitor-id] .name a").first().focus();
    await page.keyboard.press("ArrowDown");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Certificate");
    await page.keyboard.press("End");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Web");

    await page.getByLabel("Select Port").check();
    await page.getByLabel("Select Ping").check();
    await page.getByRole("toolbar", { name: "Bulk actions" }).getByRole("button", { name: "Resume" }).click();
    await page.getByText("Resumed 2 monitors").waitFor();
    await page.getByLabel("Select Port").check();
    await page.getByLabel("Select Ping").check();
    await page.getByRole("toolbar", { name: "Bulk actions" }).getByRole("button", { name: "Pause" }).click();
    await page.getByText("Paused 2 monitors").waitFor();
    await captureScreen(page, "p1-05-overview");
    noErrors();
  }, 30_000);

  it("renames a group and opens its monitors", async () => {
    await nav(page, "Groups");
    await page.getByRole("button", { name: "Rename web" }).click();
    await page.getByLabel("New name for web").fill("website");
    await page.getByRole("button", { name: "Rename", exact: true }).click();
    await page.getByRole("link", { name: "website" }).waitFor();
    await captureScreen(page, "p1-06-groups");
    await page.getByRole("link", { name: "website" }).click();
    await page.getByTestId("monitor-count").getByText("1 monitor").waitFor();
    noErrors();
  }, 30_000);

  it("schedules a repeating maintenance window with a preview of its next occurrences, then edits it", async () => {
    await nav(page, "Maintenance");
    await page.getByRole("heading", { name: "Planned work without false alarms" }).waitFor();
    const form = page.getByRole("form", { name: "New maintenance window" });
    // Two days ahead in Berlin, so the window is upcoming whenever the suite runs (a fixed Sunday 02:00 was
    // active during a CI run that started at 02:01 on a Sunday there).
    const weekday = (WEEKDAYS.indexOf(new Intl.DateTimeFormat("en-US", { timeZone: "Europe/Berlin", weekday: "short" }).format(new Date())) + 2) % 7;
    const cron = `0 2 * * ${weekday}`;
    await form.getByLabel("Name", { exact: true }).fill("Weekly patching");
    await form.getByLabel("Cron schedule").check();
    await form.getByLabel("Time zone").selectOption("Europe/Berlin");
    await form.getByLabel("Cron expression").fill(cron);
    await form.getByLabel("Each occurrence lasts (minutes)").fill("90");
    await form.getByLabel("Monitors tagged (comma separated)").fill("prod");
    await form.getByText(/^Next starts \(your local time\): /).waitFor();
    await screenshot(page, "p1-07-maintenance-form");
    await form.getByRole("button", { name: "Schedule" }).click();
    const card = page.locator("[data-window='Weekly patching']");
    await card.getByText(`cron ${cron}, 90 min each (Europe/Berlin)`).waitFor();
    await card.getByText("upcoming").waitFor();
    await card.getByRole("button", { name: "Edit" }).click();
    await card.getByLabel("Each occurrence lasts (minutes)").fill("120");
    await card.getByRole("button", { name: "Save window" }).click();
    await card.getByText(`cron ${cron}, 120 min each (Europe/Berlin)`).waitFor();
    await captureScreen(page, "p1-08-maintenance");
    noErrors();
  }, 30_000);

  it("adds channels from their schemas, test-sends one, and edits another", async () => {
    await nav(page, "Channels");
    const form = page.getByRole("form", { name: "New channel" });
    await form.getByLabel("Type").selectOption("webhook");
    await form.getByLabel("Name", { exact: true }).fill("Ops hook");
    await form.getByLabel("URL").fill(`http://127.0.0.1:${target.port}/hook`);
    await form.getByText("More settings").click();
    await form.getByLabel("Secret (optional)", { exact: true }).fill("too-short");
    await form.getByRole("button", { name: "Add channel" }).click();
    await form.getByText("Secret must be at least 16 characters").waitFor();
    await form.getByLabel("Secret (optional)", { exact: true }).fill("a-long-enough-signing-secret");
    await form.getByRole("button", { name: "Add channel" }).click();
    const hook = page.locator("[data-channel='Ops hook']");
    await hook.waitFor();
    await hook.getByRole("button", { name: "Send test" }).click();
    await hook.getByText(/^Test sent/).waitFor({ timeout: 15_000 });
    expect(hooks).toHaveLength(1);

    await form.getByLabel("Type").selectOption("email");
    await form.getByLabel("Name", { exact: true }).fill("On-call mail");
    await form.getByLabel("Recipients").fill("oncall@example.test, lead@example.test");
    await form.getByRole("button", { name: "Add channel" }).click();
    const mail = page.locator("[data-channel='On-call mail']");
    await mail.getByRole("button", { name: "Edit" }).click();
    expect(await mail.getByLabel("Recipients").inputValue()).toBe("oncall@example.test\nlead@example.test");
    await mail.getByLabel("Name", { exact: true }).fill("On-call email");
    await mail.getByRole("button", { name: "Save channel" }).click();
    await page.locator("[data-channel='On-call email']").getByRole("button", { name: "Disable" }).click();
    await page.locator("[data-channel='On-call email']").getByText("disabled").waitFor();
    await captureScreen(page, "p1-09-channels");
    noErrors();
  }, 40_000);

  it("builds alert rules: one monitor picked by search, channel delays, an escalation policy", async () => {
    await nav(page, "Alert rules");
    const policy = page.getByRole("form", { name: "New escalation policy" });
    await policy.getByLabel("Policy name").fill("Escalate to mail");
    await policy.getByLabel("Ops hook").check();
    await policy.getByRole("button", { name: "Add step" }).click();
    await policy.getByLabel("Minutes after the alert starts").nth(1).fill("30");
    await policy.getByLabel("On-call email").nth(1).check();
    await policy.getByRole("button", { name: "Create policy" }).click();
    await page.getByText("After 30 min: On-call email").waitFor();

    const form = page.getByRole("form", { name: "New rule" });
    await form.getByRole("button", { name: "Create rule" }).click();
    await form.getByText("Rule name is required").waitFor();
    await form.getByLabel("Rule name").fill("Web down");
    await form.getByLabel("Applies to").selectOption("monitor");
    await form.getByLabel("Monitor", { exact: true }).fill("We");
    await form.getByLabel("Monitor: matching monitors").selectOption({ label: "Web (http)" });
    await form.getByLabel("Consecutive failing checks before alerting").fill("1");
    await form.getByLabel("Ops hook (webhook)").check();
    await form.getByLabel("On-call email (email)").check();
    await form.getByLabel("Delay for On-call email (minutes)").fill("15");
    await screenshot(page, "p1-10-rule-form");
    await form.getByRole("button", { name: "Create rule" }).click();
    const rule = page.locator("[data-rule='Web down']");
    await rule.getByText("Monitor Web: status becomes down or timeout → On-call email after 15 min, Ops hook").waitFor();

    await form.getByLabel("Rule name").fill("Slow responses");
    await form.getByLabel("Condition").selectOption("metric_threshold");
    await form.getByLabel("Metric").fill("response_time");
    await form.getByLabel("Operator").selectOption("gt");
    await form.getByLabel("Threshold").fill("2000");
    await form.getByLabel("An escalation policy").check();
    await form.getByLabel("Escalation policy", { exact: true }).selectOption({ label: "Escalate to mail" });
    await form.getByRole("button", { name: "Create rule" }).click();
    const slow = page.locator("[data-rule='Slow responses']");
    await slow.getByText("Every monitor: response_time > 2000 → policy Escalate to mail").waitFor();
    await slow.getByRole("button", { name: "Edit" }).click();
    await slow.getByLabel("Threshold").fill("3000");
    await slow.getByRole("button", { name: "Save rule" }).click();
    await slow.getByText("response_time > 3000").waitFor();
    await slow.getByRole("button", { name: "Disable" }).click();
    await slow.getByText("disabled").waitFor();
    await captureScreen(page, "p1-11-alert-rules");
    noErrors();
  }, 40_000);

  it("fires an alert on the bell, opens its timeline and monitor from there, and records the deliveries", async () => {
    failing = true;
    await page.goto(`${env.base}/monitors/${ids.Web}`);
    await page.getByRole("button", { name: "Run now" }).click();
    await page.locator("h1 + [data-status=down]").waitFor({ timeout: 20_000 });
    await page.getByTestId("unread-count").waitFor({ timeout: 20_000 });
    await nav(page, "Alerts");
    await page.getByRole("button", { name: "Acknowledge Web down on Web" }).waitFor({ timeout: 20_000 });
    await captureScreen(page, "p1-12-active-alerts");

    await page.getByRole("button", { name: /Notifications, [1-9]\d* unread/ }).click();
    const feed = page.getByRole("dialog", { name: "Notifications" });
    await feed.getByRole("button", { name: /Web down/ }).first().waitFor();
    await screenshot(page, "p1-13-bell");
    // An alert notice opens the alert's timeline, which links to its monitor.
    await feed.getByRole("button", { name: /Web down/ }).first().click();
    await page.getByRole("heading", { name: /^Web down: Web/ }).waitFor();
    await page.getByRole("link", { name: "Monitor Web" }).click();
    await page.getByRole("heading", { name: "Web", exact: true }).waitFor();

    await nav(page, "Alerts");
    await page.getByRole("button", { name: "Acknowledge Web down on Web" }).click();
    await page.getByText("acknowledged", { exact: true }).waitFor();
    await page.getByRole("link", { name: "Alert history" }).click();
    await page.getByRole("cell", { name: "Ops hook webhook" }).first().waitFor({ timeout: 15_000 });
    await page.getByRole("cell", { name: "Web down" }).first().waitFor();
    await captureScreen(page, "p1-14-alert-history");
    failing = false;
    noErrors();
  }, 60_000);

  it("fits a phone screen in the dark theme", async () => {
    await page.getByRole("button", { name: "Switch to dark theme" }).click();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${env.base}/monitors/${ids.Web}`);
    await page.getByRole("heading", { name: "Web", exact: true }).waitFor();
    await page.getByRole("img", { name: /Response time of the last/ }).locator("canvas").waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await captureScreen(page, "p1-15-detail-phone-dark");
    await nav(page, "Monitors");
    await page.locator("[data-monitor-id]").first().waitFor();
    await captureScreen(page, "p1-16-overview-phone-dark");
    await page.setViewportSize({ width: 1280, height: 900 });
    noErrors();
  }, 30_000);

  it("resets a forgotten password from the emailed link and signs in with the new one", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in", exact: true }).waitFor();
    await page.getByRole("link", { name: "Forgot your password?" }).click();
    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "Email me a link" }).click();
    await page.getByText(/we have emailed it a link/).waitFor();
    // Without SMTP the server writes mail to its log: the link is read from there.
    let link: string | undefined;
    for (let i = 0; i < 50 && !link; i++, await Bun.sleep(100)) {
      const mail = env.server.lines.find((l) => l.op === "mail.send" && JSON.stringify(l.to).includes(email));
      link = String(mail?.text ?? "").match(/https?:\/\/\S+\/password-reset\?token=[\w-]+/)?.[0];
    }
    expect(link).toBeDefined();
    await page.goto(link!.replace(/^https?:\/\/[^/]+/, env.base));
    await page.getByLabel("New password").fill("a brand new passphrase");
    await page.getByRole("button", { name: "Set password" }).click();
    await page.getByText("Your password is changed").waitFor();
    await screenshot(page, "p1-17-password-changed");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("a brand new passphrase");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByRole("heading", { name: "Monitors" }).waitFor();
    noErrors();
    // Screens ask for pages and ids they show, never one call per monitor: the whole journey stays bounded.
    expect(CALLS.length).toBeLessThan(400);
  }, 30_000);
});
