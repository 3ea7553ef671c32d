import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { Page } from "playwright-core";
import { apiCall, checkA11y, nav, signUpInBrowser, startJourney, type JourneyEnv, SETUP_TIMEOUT_MS } from "./journey-support.ts";

/**
 * A heartbeat on a cron schedule through the dashboard: the form's schedule input with its
 * "next runs" preview in the chosen zone, the browser refusing a bad expression, then the detail
 * page showing a run's duration (start → success) and its ping body as text.
 */
let env: JourneyEnv;
let page: Page;

beforeAll(async () => {
  env = await startJourney("hb-cron");
  page = env.page;
  await page.setViewportSize({ width: 1440, height: 900 });
  await signUpInBrowser(env, "Ada", `ada-${Date.now()}@example.test`);
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await env?.stop();
}, 30_000);

/** Waits until `read` gives a value `ok` accepts; returns the last value read (the assertion after it says why it failed). */
async function eventually<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > deadline) return v;
    await Bun.sleep(100);
  }
}

describe("heartbeat schedule screens", () => {
  it("previews the next runs of a schedule in its zone, refuses a bad one, and saves a good one", async () => {
    let posts = 0;
    page.on("request", (r) => r.method() === "POST" && r.url().endsWith("/api/v1/monitors") && posts++);
    await nav(page, "Monitors");
    await page.getByRole("link", { name: /^(New monitor|Create your first monitor)$/ }).click();
    await page.getByLabel("Check type").selectOption("heartbeat");
    await page.getByLabel("Name", { exact: true }).fill("Nightly backup");
    await page.getByLabel("On a cron schedule").check();
    await page.getByLabel("Time zone").selectOption("Europe/Berlin");
    await page.getByLabel("Cron expression").fill("30 3 * * 1-5");
    const preview = page.getByTestId("schedule-preview");
    const runs = await eventually(() => preview.getByRole("listitem").allTextContents(), (r) => r.length === 3 && r[0]!.includes("03:30"));
    expect(runs).toHaveLength(3);
    for (const r of runs) {
      expect(r).toContain("03:30:00");
      expect(r).not.toMatch(/^(Sat|Sun)/);
    }
    await page.screenshot({ path: "/tmp/cron-form.png" });
    await checkA11y(page, "heartbeat schedule form");

    await page.getByLabel("Cron expression").fill("61 3 * * *");
    const words = 'Cron expression has a minute out of range (0–59): "61"';
    expect(await eventually(() => preview.textContent(), (t) => Boolean(t?.includes(words)))).toContain(words);
    await page.getByRole("button", { name: "Create monitor" }).click();
    // Said by the field once it is refused, not again by the preview (nor garbled as "Cron expression invalid cron expression").
    await page.locator("small.field-error").filter({ hasText: words }).first().waitFor();
    expect(await preview.textContent()).toBe("No runs to show until the cron expression is fixed.");
    expect(await page.locator("small.field-error").filter({ hasText: "61" }).count()).toBe(1);
    expect(posts).toBe(0);

    await page.getByLabel("Cron expression").fill("30 3 * * 1-5");
    await page.getByLabel("Grace period (seconds)").fill("1200");
    await page.getByRole("button", { name: "Create monitor" }).click();
    await page.getByRole("heading", { name: "Nightly backup", exact: true }).waitFor({ timeout: 10_000 });
    await page.getByText("expected on schedule 30 3 * * 1-5 (Europe/Berlin), 1200 s grace").waitFor();
    const list = await apiCall<{ data: { config: Record<string, unknown> }[] }>(env, "GET", "/api/v1/monitors");
    expect(list.data[0]!.config).toEqual({ schedule: "30 3 * * 1-5", timezone: "Europe/Berlin", grace_seconds: 1200 });
    expect(env.errors).toEqual([]);
  }, 90_000);

  it("shows a run's duration and its ping body, as text, on the detail page", async () => {
    const url = (await page.getByTestId("ping-url-success").textContent())!;
    // The ping URLs come with copy buttons and a cron file of its own in the monitor's schedule and zone.
    expect(await page.getByTestId("ping-url-failure").textContent()).toBe(`${url}/fail`);
    await page.getByRole("button", { name: "Copy start URL" }).waitFor();
    expect((await page.getByTestId("ping-crontab").textContent())!.split("\n").slice(1)).toEqual(["CRON_TZ=Europe/Berlin", `30 3 * * 1-5 root /usr/local/bin/my-job; curl -fsS -m 10 --retry 3 ${url}/$? > /dev/null`]);
    await fetch(`${url}/start`, { method: "POST" });
    await Bun.sleep(400);
    await fetch(url, { method: "POST", body: "<b>copied 42 files</b>\nsize 1.2 GB" });
    const row = page.getByTestId("checks-body").getByRole("row").first();
    expect(await eventually(() => row.textContent(), (t) => Boolean(t?.includes("<b>copied 42 files</b>")))).toContain("<b>copied 42 files</b>");
    expect(await page.locator("[data-testid=checks-body] b").count()).toBe(0);
    const ms = Number((await row.locator("td").nth(3).textContent())!.replace(/[^\d.]/g, ""));
    expect(ms).toBeGreaterThanOrEqual(400);
    await page.screenshot({ path: "/tmp/cron-detail.png" });
    await checkA11y(page, "heartbeat detail");
    await row.click();
    const dialog = page.getByRole("dialog");
    expect(await dialog.locator("pre.ping-body").textContent()).toBe("<b>copied 42 files</b>\nsize 1.2 GB");
    expect(await dialog.textContent()).toContain("success");
    await page.screenshot({ path: "/tmp/cron-result.png" });
    await dialog.getByRole("button", { name: "Close" }).click();

    await fetch(`${url}/fail`, { method: "POST", body: "disk full" });
    const failed = await eventually(() => page.getByTestId("checks-body").getByRole("row").first().textContent(), (t) => Boolean(t?.includes("disk full")));
    expect(failed).toContain("the job reported a failure: disk full");
    // The exit-status URL the snippets use: a non-zero status is a failure that says the status.
    await fetch(`${url}/3`, { method: "POST", body: "rsync: no space left" });
    const exited = await eventually(() => page.getByTestId("checks-body").getByRole("row").first().textContent(), (t) => Boolean(t?.includes("status 3")));
    expect(exited).toContain("the job exited with status 3: rsync: no space left");
    expect(env.errors).toEqual([]);
  }, 60_000);

  it("keeps a schedule saved without a zone in UTC when edited from a browser in another zone", async () => {
    // The API reads a schedule without `timezone` in UTC (as the CLI and the API create them); the edit form
    // once offered the browser's zone for it, so saving any change moved the job's expected runs by hours.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Emulation.setTimezoneOverride", { timezoneId: "America/New_York" });
    try {
      const m = await apiCall<{ id: string }>(env, "POST", "/api/v1/monitors", { name: "UTC job", type: "heartbeat", config: { schedule: "0 3 * * *", grace_seconds: 600 } });
      await page.goto(`${env.base}/monitors/${m.id}/edit`);
      await page.getByLabel("Cron expression").waitFor();
      expect(await page.getByLabel("Time zone").inputValue()).toBe("UTC");
      await page.getByLabel("Name", { exact: true }).fill("UTC job, renamed");
      await page.getByRole("button", { name: "Save changes" }).click();
      await page.getByRole("heading", { name: "UTC job, renamed", exact: true }).waitFor({ timeout: 10_000 });
      const saved = await apiCall<{ config: Record<string, unknown> }>(env, "GET", `/api/v1/monitors/${m.id}`);
      expect(saved.config.timezone ?? "UTC").toBe("UTC");
    } finally {
      await cdp.send("Emulation.setTimezoneOverride", { timezoneId: "" });
      await cdp.detach();
    }
  }, 60_000);
});
