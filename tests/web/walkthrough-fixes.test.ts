import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { Page } from "playwright-core";
import { apiCall, nav, type JourneyEnv, SETUP_TIMEOUT_MS, startJourney, waitOrShoot } from "./journey-support.ts";

/**
 * A new self-hosted user's walk through heartbeats, alerts and status pages (the defects they reported): the
 * heartbeat form without the interval that does nothing, a missed run shown as such (not "0 ms") on the monitor
 * page, the alert timeline and active alerts, the alert history of a deleted monitor without a 404, the layout
 * preview with the monitors' real statuses, and the unlimited plan's status page count.
 */
let env: JourneyEnv;
let page: Page;
let hook: ReturnType<typeof Bun.serve>;
const hooks: unknown[] = [];
let backupId = "";

beforeAll(async () => {
  hook = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: async (r) => (hooks.push(await r.json().catch(() => null)), new Response("ok")) });
  // Self-hosted: the unlimited plan, and the setup screen makes the owner.
  env = await startJourney("walkthrough", { BILLING: "false", RATE_LIMIT_PER_ORG: "1000" });
  page = env.page;
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`${env.base}/`);
  await page.getByLabel("Your name").fill("Ada Owner");
  await page.getByLabel("Email").fill("ada@example.test");
  await page.getByLabel("Password").fill("correct horse battery");
  await page.getByLabel("Organisation name").fill("Ada's Team");
  await page.getByRole("button", { name: "Create account" }).click();
  await waitOrShoot(env, page.getByRole("heading", { name: "Watch your first site in under a minute" }), "walkthrough-setup", 15_000);
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await env?.stop();
  hook?.stop(true);
}, 30_000);

/** Waits until `read` gives a value `ok` accepts; returns the last value read. */
async function eventually<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > deadline) return v;
    await Bun.sleep(200);
  }
}

describe("a new user's walk-through", () => {
  it("creates and edits a heartbeat without an interval field, and says what its empty pages wait for", async () => {
    const bodies: Record<string, unknown>[] = [];
    page.on("request", (r) => {
      if (/\/api\/v1\/monitors(\/mon_[^/]+)?$/.test(r.url()) && (r.method() === "POST" || r.method() === "PATCH")) bodies.push(r.postDataJSON());
    });
    await nav(page, "Monitors");
    await page.getByRole("link", { name: /^(New monitor|Create your first monitor)$/ }).click();
    await page.getByLabel("Check type").selectOption("heartbeat");
    await page.getByLabel("Name", { exact: true }).fill("Nightly backup");
    await page.getByLabel("Expected every (seconds)").fill("3600");
    // The sweep looks for missed pings every 5 s: an interval field did nothing.
    expect(await page.locator("input[name=interval_seconds]").count()).toBe(0);
    expect(await page.getByText("Check for missed pings every").count()).toBe(0);
    await page.screenshot({ path: "/tmp/walk-hb-form.png" });
    await page.getByRole("button", { name: "Create monitor" }).click();
    await page.getByRole("heading", { name: "Nightly backup", exact: true }).waitFor({ timeout: 10_000 });
    backupId = new URL(page.url()).pathname.split("/")[2]!;

    // No "Run now" for a heartbeat: the empty states say what brings the first result.
    await page.getByText("No results yet. One appears here live when the first ping arrives or a deadline passes without one.").waitFor();
    await page.getByText("No results yet. The chart fills in live when the first ping arrives or a deadline passes without one.").waitFor();
    expect(await page.getByText("Run now").count()).toBe(0);
    // The output lines report the job's own exit status (a pipe's status was curl's).
    await page.getByText("More ways to ping").click();
    const url = (await page.getByTestId("ping-url-success").textContent())!;
    expect(await page.getByTestId("ping-output").textContent()).toContain(`2>&1); status=$?`);
    expect(await page.getByTestId("ping-output").textContent()).toContain(`"${url}/$status"`);
    await page.screenshot({ path: "/tmp/walk-hb-empty.png", fullPage: true });

    await page.getByRole("link", { name: "Edit" }).click();
    await page.getByLabel("Name", { exact: true }).fill("Nightly backup job");
    expect(await page.locator("input[name=interval_seconds]").count()).toBe(0);
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("heading", { name: "Nightly backup job", exact: true }).waitFor({ timeout: 10_000 });
    expect(bodies).toHaveLength(2);
    for (const b of bodies) expect(b).not.toHaveProperty("interval_seconds");
    expect(env.errors).toEqual([]);
  }, 60_000);

  it("shows a missed run as a missed run, not 0 ms, on the monitor page, active alerts and the alert timeline", async () => {
    const channel = await apiCall(env, "POST", "/api/v1/alert-channels", { name: "Ops hook", type: "webhook", config: { url: `http://127.0.0.1:${hook.port}/hook` } });
    await apiCall(env, "POST", "/api/v1/alert-rules", {
      name: "Backup missed",
      scope: { type: "monitor", monitor_id: backupId },
      condition: { type: "status_change", to: ["down"] },
      confirmation: { consecutive_failures: 1 },
      channels: [{ channel_id: channel.id }],
    });
    // The deadline passes: the sweep (every 5 s) records the miss.
    await eventually(
      async () => (await env.db.sql`update monitors set heartbeat_due_at = now() - interval '1 second' where id = ${backupId} and heartbeat_due_at is not null`).count,
      (n) => n === 1,
    );
    const row = page.getByTestId("checks-body").getByRole("row").first();
    expect(await eventually(() => row.textContent(), (t) => Boolean(t?.includes("no ping")))).toContain("no ping received yet");
    expect(await row.locator("td").nth(3).textContent()).toBe("missed run");
    await page.reload();
    const lastRun = page.locator("dl.stats > div").filter({ hasText: "Last run time" }).locator("dd");
    expect(await eventually(() => lastRun.textContent(), (t) => t === "—")).toBe("—");
    await page.screenshot({ path: "/tmp/walk-hb-missed.png", fullPage: true });

    await page.goto(`${env.base}/alerts`);
    const alert = page.getByTestId("active-alerts").getByRole("row").filter({ hasText: "Backup missed" });
    await waitOrShoot(env, alert, "walk-active-alert", 15_000);
    expect(await alert.textContent()).toContain("(1 check)");
    // The State cell stays a table cell, lined up with the others (a flex <td> was not).
    const state = alert.locator("td").last();
    expect(await state.evaluate((td) => getComputedStyle(td).display)).toBe("table-cell");
    const tops = await alert.locator("td").evaluateAll((tds) => tds.map((td) => Math.round(td.getBoundingClientRect().top)));
    expect(new Set(tops).size).toBe(1);
    await page.screenshot({ path: "/tmp/walk-active-alerts.png" });

    await alert.getByRole("link", { name: "Backup missed" }).click();
    const timeline = page.getByTestId("alert-timeline");
    await timeline.getByText("Check down: missed run").waitFor();
    expect(await timeline.textContent()).not.toContain("after 0 ms");
    await page.screenshot({ path: "/tmp/walk-alert-timeline.png", fullPage: true });
    expect(env.errors).toEqual([]);
  }, 60_000);

  it("previews a layout with the monitors' real statuses, and an empty one as empty", async () => {
    const up = await apiCall(env, "POST", "/api/v1/monitors", { name: "Web ping", type: "heartbeat", config: { period_seconds: 3600 } });
    const down = await apiCall(env, "POST", "/api/v1/monitors", { name: "Export job", type: "heartbeat", config: { period_seconds: 3600 } });
    await fetch(up.heartbeat_url, { method: "POST" });
    await fetch(`${down.heartbeat_url}/fail`, { method: "POST", body: "disk full" });
    await eventually(
      async () => (await apiCall(env, "GET", `/api/v1/monitors/${down.id}`)).status,
      (s) => s === "down",
    );
    const sp = await apiCall(env, "POST", "/api/v1/status-pages", { name: "Acme status", slug: "acme" });
    await page.goto(`${env.base}/status-pages/${sp.id}`);
    const preview = page.getByTestId("layout-preview").getByTestId("theme-preview");
    await preview.getByText("Nothing else yet: add a section, then monitors to it.").waitFor();
    // No made-up "Website / Homepage" section for an empty page.
    expect(await preview.textContent()).not.toContain("Homepage");
    await page.screenshot({ path: "/tmp/walk-layout-empty.png", fullPage: true });

    await apiCall(env, "PUT", `/api/v1/status-pages/${sp.id}/layout`, {
      sections: [
        {
          name: "Jobs",
          components: [
            { monitor_id: up.id, display_name: "Website" },
            { monitor_id: down.id, display_name: "Exports" },
          ],
        },
      ],
    });
    await page.reload();
    await preview.getByText("Exports").waitFor();
    const status = (name: string) => preview.locator(".row-status").filter({ hasText: name }).locator("span").last().textContent();
    expect(await status("Website")).toBe("Operational");
    expect(await status("Exports")).toBe("Major outage");
    expect(await preview.getByTestId("preview-overall").textContent()).toBe("Major outage");
    await preview.scrollIntoViewIfNeeded();
    await page.screenshot({ path: "/tmp/walk-layout-preview.png", fullPage: true });

    // The theme picker keeps sample statuses, and says so.
    await page.getByRole("navigation", { name: "Status page" }).getByRole("link", { name: "Theme" }).click();
    await page.getByTestId("theme-preview").getByText("Preview with sample statuses").waitFor();
    expect(env.errors).toEqual([]);
  }, 60_000);

  it("says the unlimited plan's status pages and runner slots are unlimited, not 0 of 100000", async () => {
    await page.goto(`${env.base}/status-pages`);
    await page.getByText("1 page used (unlimited)").waitFor();
    expect(await page.locator("main").textContent()).not.toContain("100000");
    await page.screenshot({ path: "/tmp/walk-status-pages.png" });
    await page.goto(`${env.base}/runners`);
    await page.getByTestId("runner-usage").filter({ hasText: "0 runner slots used (unlimited)" }).waitFor();
    expect(env.errors).toEqual([]);
  }, 30_000);

  it("lists a deleted monitor's alerts in the history without asking for the monitor", async () => {
    await eventually(
      async () => (await apiCall(env, "GET", "/api/v1/alerts/history")).data.length,
      (n) => n > 0,
    );
    await apiCall(env, "DELETE", `/api/v1/monitors/${backupId}`);
    const asked: string[] = [];
    page.on("request", (r) => r.url().includes(`/api/v1/monitors/${backupId}`) && asked.push(r.url()));
    await page.goto(`${env.base}/alerts/history`);
    await page.getByRole("row").filter({ hasText: "Backup missed" }).filter({ hasText: "(deleted monitor)" }).first().waitFor();
    await page.screenshot({ path: "/tmp/walk-history.png" });
    expect(asked).toEqual([]);
    expect(env.errors).toEqual([]);
  }, 30_000);
});
