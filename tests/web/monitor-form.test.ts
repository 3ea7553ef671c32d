import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { Page } from "playwright-core";
import { apiCall, captureScreen, checkA11y, signUpInBrowser, startJourney, waitOrShoot, type JourneyEnv, SETUP_TIMEOUT_MS } from "./journey-support.ts";

/**
 * Issue 23 items 3 and 7 against the real all-in-one server: the monitor form takes the address
 * first, names the monitor from its host and assumes https; errors are in words beside the fields;
 * "Test" runs the check before saving; a created monitor shows its first check within seconds; the
 * keyboard shortcuts (/, ↑ ↓ Enter from the search box, n, ?).
 */
let env: JourneyEnv;
let page: Page;
let target: ReturnType<typeof Bun.serve>;
let posts = 0;

beforeAll(async () => {
  target = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("fine") });
  env = await startJourney("form");
  page = env.page;
  await page.setViewportSize({ width: 1440, height: 900 });
  page.on("request", (r) => void (r.method() === "POST" && r.url().endsWith("/api/v1/monitors") && posts++));
  await signUpInBrowser(env, "Ada", `ada-${Date.now()}@example.test`);
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await env?.stop();
  target?.stop(true);
}, 30_000);

const shot = (name: string) => page.screenshot({ path: `/tmp/ux-forms-${name}.png` });

describe("the monitor form", () => {
  it("asks for the address first, assumes https and names the monitor after its host", async () => {
    await page.goto(`${env.base}/monitors/new`);
    const url = page.getByLabel("URL");
    await url.waitFor();
    // The address comes before the name in the form.
    const order = await page.locator("form input[name='config.url'], form input[name='name']").evaluateAll((els) => els.map((e) => (e as HTMLInputElement).name));
    expect(order).toEqual(["config.url", "name"]);
    await url.fill("shop.example.com/cart");
    expect(await page.getByLabel("Name", { exact: true }).inputValue()).toBe("shop.example.com");
    await url.blur();
    expect(await url.inputValue()).toBe("https://shop.example.com/cart");
    // A name typed by hand stays when the address changes.
    await page.getByLabel("Name", { exact: true }).fill("Shop");
    await url.fill("https://other.example.com/");
    expect(await page.getByLabel("Name", { exact: true }).inputValue()).toBe("Shop");
    await checkA11y(page, "monitor form");
  }, 60_000);

  it("offers no name made of an address with spaces, which the browser would percent-encode", async () => {
    await page.goto(`${env.base}/monitors/new?type=domain`);
    const domain = page.getByLabel("Domain", { exact: true });
    await domain.waitFor();
    await domain.fill("not a domain");
    expect(await page.getByLabel("Name", { exact: true }).inputValue()).toBe("");
    await domain.fill("example.co.uk");
    expect(await page.getByLabel("Name", { exact: true }).inputValue()).toBe("example.co.uk");
  }, 60_000);

  it("names each problem in words next to its field and in the summary, never by its key", async () => {
    await page.goto(`${env.base}/monitors/new`);
    await page.getByLabel("URL").fill("ftp://example.test/file");
    await page.getByLabel("Timeout (ms)").fill("999999");
    await page.getByRole("button", { name: "Create monitor" }).click();
    const alert = page.getByRole("alert");
    await alert.waitFor();
    const text = await alert.innerText();
    expect(text).toContain("URL: must be");
    expect(text).toContain("Timeout (ms): must be");
    expect(text).not.toMatch(/config\.|timeout_ms|body\./);
    await page.locator("small.field-error").filter({ hasText: "Timeout (ms) must be" }).waitFor();
    expect(await page.getByLabel("URL").getAttribute("aria-invalid")).toBe("true");
    await captureScreen(page, "ux-forms-invalid");
    expect(posts).toBe(0);
  }, 60_000);

  it("tests the check before saving, and saves nothing", async () => {
    await page.goto(`${env.base}/monitors/new`);
    await page.getByLabel("URL").fill(`http://127.0.0.1:${target.port}/health`);
    expect(await page.getByLabel("Name", { exact: true }).inputValue()).toBe(`127.0.0.1:${target.port}`);
    await page.getByRole("button", { name: "Test", exact: true }).click();
    const outcome = page.getByTestId("check-outcome");
    await waitOrShoot(env, outcome, "form-test", 20_000);
    expect(await outcome.innerText()).toMatch(/up in \d+ ms from local · HTTP 200/);
    await shot("test-result");
    await captureScreen(page, "ux-forms-tested");
    expect(posts).toBe(0);
    expect((await apiCall<{ data: unknown[] }>(env, "GET", "/api/v1/monitors")).data).toHaveLength(0);
  }, 60_000);

  it("creates the monitor and shows its first check within seconds, not an interval later", async () => {
    await page.getByLabel("Name", { exact: true }).fill("Health endpoint");
    await page.getByLabel("Check every (seconds)").fill("3600");
    await page.getByRole("button", { name: "Create monitor" }).click();
    await page.getByRole("heading", { name: "Health endpoint", exact: true }).waitFor({ timeout: 10_000 });
    const started = Date.now();
    const notice = page.getByTestId("first-check");
    await notice.getByTestId("check-outcome").waitFor({ timeout: 15_000 });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await notice.innerText()).toContain("Monitor created.");
    expect(await notice.getByTestId("check-outcome").innerText()).toMatch(/^up in/);
    await shot("first-check");
    await captureScreen(page, "ux-forms-first-check");
  }, 60_000);
});

describe("keyboard shortcuts", () => {
  it("/ focuses the search box, ↓ and ↑ move through the results, Enter opens the first one", async () => {
    await apiCall(env, "POST", "/api/v1/monitors", { name: "Zeta site", type: "http", config: { url: `http://127.0.0.1:${target.port}/z` }, paused: true });
    await page.goto(`${env.base}/monitors`);
    const search = page.getByRole("searchbox", { name: "Search monitors by name" });
    await search.waitFor();
    await page.locator("body").click({ position: { x: 5, y: 5 } });
    await page.keyboard.press("/");
    expect(await search.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.type("site");
    await page.locator("[data-testid=monitor-count]").filter({ hasText: "1 monitor" }).waitFor();
    await page.keyboard.press("ArrowDown");
    await page.waitForFunction(() => document.activeElement?.textContent === "Zeta site");
    await page.keyboard.press("ArrowUp");
    expect(await search.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Zeta site", exact: true }).waitFor();
  }, 60_000);

  it("n opens a new monitor and ? lists the shortcuts in a dialog", async () => {
    await page.goto(`${env.base}/monitors`);
    await page.getByRole("heading", { name: "Monitors" }).waitFor();
    await page.keyboard.press("Shift+Slash");
    const dialog = page.getByRole("dialog", { name: "Keyboard shortcuts" });
    await dialog.waitFor();
    expect(await dialog.innerText()).toContain("New monitor");
    await shot("shortcuts");
    await captureScreen(page, "ux-forms-shortcuts");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    // Typing in a field is never a shortcut.
    await page.getByRole("searchbox").fill("n");
    expect(new URL(page.url()).pathname).toBe("/monitors");
    await page.locator("body").click({ position: { x: 5, y: 5 } });
    await page.keyboard.press("n");
    await page.getByRole("heading", { name: "New monitor" }).waitFor();
    // "/" elsewhere goes to the overview's search box.
    await page.locator("body").click({ position: { x: 5, y: 5 } });
    await page.keyboard.press("/");
    await page.waitForFunction(() => document.activeElement?.getAttribute("aria-label") === "Search monitors by name");
  }, 60_000);

  it("lays the form out in one column on a phone, in both themes", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${env.base}/monitors/new`);
    await page.getByLabel("URL").fill(`127.0.0.1:${target.port}`);
    await page.getByLabel("URL").blur();
    await shot("phone-light");
    await page.evaluate(() => (document.documentElement.dataset.theme = "dark"));
    await shot("phone-dark");
    await page.evaluate(() => (document.documentElement.dataset.theme = "light"));
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await checkA11y(page, "monitor form on a phone");
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(`${env.base}/monitors/new`);
    await page.getByLabel("URL").fill("example.com");
    await page.getByRole("button", { name: "Create monitor" }).focus();
    await page.evaluate(() => (document.documentElement.dataset.theme = "dark"));
    await shot("form-dark");
    await page.evaluate(() => (document.documentElement.dataset.theme = "light"));
  }, 60_000);
});
