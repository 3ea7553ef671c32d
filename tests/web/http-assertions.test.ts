import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { Page } from "playwright-core";
import { apiCall, captureScreen, nav, signUpInBrowser, startJourney, waitOrShoot, type JourneyEnv, SETUP_TIMEOUT_MS } from "./journey-support.ts";

/**
 * The assertions editor of the monitor form (rows of source, property, operator, target, severity)
 * against the real all-in-one server: rows added and removed, operator choices following the source,
 * a bad regular expression refused in the browser, the rows shown again on edit, and the outcome of
 * each assertion in a run's result detail.
 */
let env: JourneyEnv;
let page: Page;
let target: ReturnType<typeof Bun.serve>;
let monitorId = "";

beforeAll(async () => {
  target = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: () => Response.json({ status: "ok", version: "2.4.1" }, { headers: { "x-build": "2026.11.3" } }),
  });
  env = await startJourney("assert");
  page = env.page;
  await page.setViewportSize({ width: 1440, height: 900 });
  await signUpInBrowser(env, "Ada", `ada-${Date.now()}@example.test`);
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await env?.stop();
  target?.stop(true);
}, 30_000);

const row = (n: number) => page.getByRole("group", { name: `Assertion ${n}`, exact: true });

describe("assertions editor", () => {
  it("adds and removes assertion rows, offers each source's operators and refuses a bad regular expression before sending", async () => {
    let posts = 0;
    page.on("request", (r) => void (r.method() === "POST" && r.url().endsWith("/api/v1/monitors") && posts++));
    await nav(page, "Monitors");
    await page.getByRole("link", { name: /^(New monitor|Create your first monitor)$/ }).click();
    await page.getByLabel("Check type").selectOption("http");
    await page.getByLabel("Name", { exact: true }).fill("API health");
    await page.getByLabel("URL").fill(`http://127.0.0.1:${target.port}/health`);
    await page.getByText("More settings").click();
    for (let i = 0; i < 3; i++) await page.getByRole("button", { name: "Add assertion" }).click();

    await row(1).getByLabel("Source").selectOption("status_code");
    expect(await row(1).getByLabel("Operator").locator("option").allTextContents()).toEqual(["equals", "not_equals", "greater_than", "less_than"]);
    await row(1).getByLabel("Operator").selectOption("equals");
    await row(1).getByLabel("Target").fill("200");
    // A status code has no property: the column is left out.
    expect(await row(1).getByLabel("Property").isDisabled()).toBe(true);

    await row(2).getByLabel("Source").selectOption("json");
    await row(2).getByLabel("Property").fill("$.status");
    await row(2).getByLabel("Operator").selectOption("equals");
    await row(2).getByLabel("Target").fill("ok");
    await row(2).getByLabel("Severity").selectOption("degraded");

    await row(3).getByLabel("Source").selectOption("body");
    expect(await row(3).getByLabel("Operator").locator("option").allTextContents()).toEqual(["contains", "not_contains", "matches"]);
    await row(3).getByLabel("Operator").selectOption("matches");
    await row(3).getByLabel("Target").fill("(unclosed");
    await page.getByRole("button", { name: "Create monitor" }).click();
    await waitOrShoot(env, row(3).getByText("Target not a valid regular expression (RE2 syntax): missing closing ): `(unclosed`"), "assert-bad-regex");
    expect(await row(3).getByLabel("Target").getAttribute("aria-invalid")).toBe("true");
    await page.screenshot({ path: "/tmp/assert-form-invalid.png" });
    expect(posts).toBe(0);

    await page.getByRole("button", { name: "Remove assertion 3" }).click();
    await expect(row(3).count()).resolves.toBe(0);
    // The refusal named the removed row; it is not shown against the row added in its place.
    await page.getByRole("button", { name: "Add assertion" }).click();
    await row(3).getByLabel("Source").selectOption("header");
    await row(3).getByLabel("Property").fill("X-Build");
    await row(3).getByLabel("Operator").selectOption("matches");
    await row(3).getByLabel("Target").fill("^2026\\.");
    expect(await row(3).getByText("not a valid regular expression").count()).toBe(0);
    await row(3).getByLabel("Operator").selectOption("exists");
    expect(await row(3).getByLabel("Target").isDisabled()).toBe(true);
    await row(3).getByLabel("Operator").selectOption("matches");
    await captureScreen(page, "assert-01-form");
    await page.screenshot({ path: "/tmp/assert-form.png" });
    await page.getByRole("button", { name: "Create monitor" }).click();
    await page.getByRole("heading", { name: "API health", exact: true }).waitFor({ timeout: 10_000 });
    monitorId = new URL(page.url()).pathname.split("/")[2]!;

    const saved = await apiCall<{ config: { assertions: unknown[] } }>(env, "GET", `/api/v1/monitors/${monitorId}`);
    expect(saved.config.assertions).toEqual([
      { source: "status_code", operator: "equals", target: 200, severity: "down" },
      { source: "json", property: "$.status", operator: "equals", target: "ok", severity: "degraded" },
      { source: "header", property: "X-Build", operator: "matches", target: "^2026\\.", severity: "down" },
    ]);
    expect(env.errors).toEqual([]);
  }, 90_000);

  it("shows the saved rows again on edit and keeps them when saved unchanged", async () => {
    await page.goto(`${env.base}/monitors/${monitorId}/edit`);
    await page.getByRole("heading", { name: "Edit API health" }).waitFor();
    await page.getByText("More settings").click();
    expect(await row(2).getByLabel("Property").inputValue()).toBe("$.status");
    expect(await row(2).getByLabel("Severity").inputValue()).toBe("degraded");
    expect(await row(3).getByLabel("Operator").inputValue()).toBe("matches");
    await row(2).getByLabel("Target").fill("fine");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("heading", { name: "API health", exact: true }).waitFor({ timeout: 10_000 });
    const saved = await apiCall<{ config: { assertions: Array<{ target: unknown }> } }>(env, "GET", `/api/v1/monitors/${monitorId}`);
    expect(saved.config.assertions.map((a) => a.target)).toEqual([200, "fine", "^2026\\."]);
    expect(env.errors).toEqual([]);
  }, 60_000);

  it("shows each assertion's outcome in the result detail, the failed one marked", async () => {
    await page.getByRole("button", { name: "Run now" }).click();
    // The monitor was checked once at creation (before the edit): the run-now's result is the one that fails.
    const first = page.getByTestId("checks-body").locator("tr").filter({ hasText: "assertion failed" }).first();
    await waitOrShoot(env, first, "assert-run");
    expect(await first.textContent()).toContain('assertion failed: #2 json $.status equals "fine" (got "ok")');
    await first.click();
    const table = page.getByRole("table", { name: "assertions" });
    await waitOrShoot(env, table, "assert-result");
    const rows = table.locator("tbody tr");
    expect(await rows.count()).toBe(3);
    expect(await rows.nth(1).getAttribute("class")).toBe("failed");
    expect(await rows.nth(0).textContent()).toContain("status_code");
    expect(await table.locator("thead th").allTextContents()).toEqual(["index", "source", "property", "operator", "target", "actual", "passed", "severity"]);
    await page.screenshot({ path: "/tmp/assert-result.png" });
    await captureScreen(page, "assert-02-result");
    expect(env.errors).toEqual([]);
  }, 60_000);
});
