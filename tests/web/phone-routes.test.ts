import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { screenshot } from "./browser.ts";
import { checkA11y, phase, SETUP_TIMEOUT_MS, signUpInBrowser, startJourney, type JourneyEnv } from "./journey-support.ts";
import { dashboardUrls, horizontalOverflow, openScreen, seedEverything, VISIT_ENV, type Seeded } from "./route-visits.ts";

// Every route of the dashboard's router at a phone's size (390×844): nothing may make the page scroll sideways.
let env: JourneyEnv;
let seeded: Seeded;
const target = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("ok") });

beforeAll(async () => {
  env = await startJourney("phones", VISIT_ENV);
  await signUpInBrowser(env, "Alice Phone", `alice-${Date.now()}@example.com`);
  seeded = await phase("seed", 60_000, () => seedEverything(env, `http://127.0.0.1:${target.port}/`));
  await env.page.setViewportSize({ width: 390, height: 844 });
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await env?.stop();
  target.stop(true);
});

describe("the dashboard on a phone (390×844)", () => {
  it("folds the navigation into a menu that closes after choosing a page", async () => {
    const { page } = env;
    await openScreen(page, env.base, "/monitors");
    const nav = page.getByRole("navigation", { name: "Main" });
    const toggle = page.getByRole("button", { name: "Menu" });
    expect(await nav.isVisible()).toBe(false);
    expect(await toggle.getAttribute("aria-expanded")).toBe("false");
    await toggle.click();
    expect(await toggle.getAttribute("aria-expanded")).toBe("true");
    await screenshot(page, "phone-menu-open");
    await checkA11y(page, "phone menu open");
    await nav.getByRole("link", { name: "Status pages", exact: true }).click();
    await page.getByRole("heading", { name: "Status pages", level: 1 }).waitFor();
    expect(await nav.isVisible()).toBe(false);
    expect(await toggle.getAttribute("aria-expanded")).toBe("false");
  }, 30_000);

  it("shows the full navigation without a menu button on a wide screen", async () => {
    const { page } = env;
    await page.setViewportSize({ width: 1440, height: 900 });
    try {
      expect(await page.getByRole("navigation", { name: "Main" }).isVisible()).toBe(true);
      expect(await page.getByRole("button", { name: "Menu" }).isVisible()).toBe(false);
    } finally {
      await page.setViewportSize({ width: 390, height: 844 });
    }
  }, 30_000);

  it("folds the audit log's filters so its entries, in words, start on the first screen", async () => {
    const { page } = env;
    await openScreen(page, env.base, "/org/audit-log");
    expect(await page.getByLabel("Action").isVisible()).toBe(false);
    const first = page.getByTestId("audit-log").locator("li").first();
    expect(await first.boundingBox().then((b) => b!.y)).toBeLessThan(844);
    expect(await first.locator("summary").textContent()).toMatch(/^alice-\d+@example\.com created incident Checkout is slow/);
    await page.getByText("Filters", { exact: true }).click();
    expect(await page.getByLabel("Action").isVisible()).toBe(true);
  }, 30_000);

  it("fits every route of the router without sideways scrolling", async () => {
    const urls = dashboardUrls(seeded);
    expect(urls).toContain(`/monitors/${seeded.monitorId}/checks/${seeded.checkId}`);
    const wide: string[] = [];
    for (const url of urls) {
      await openScreen(env.page, env.base, url);
      const { overflow, culprits } = await horizontalOverflow(env.page);
      if (overflow > 0) {
        wide.push(`${url}: ${overflow} px too wide\n  ${culprits.join("\n  ")}`);
        await screenshot(env.page, `phone-overflow${url.replaceAll("/", "-")}`);
      }
    }
    expect(wide).toEqual([]);
    // Routes with parameters and the 404 page were all visited; the 404 page links back.
    await screenshot(env.page, "phone-404");
    expect(await env.page.getByRole("link", { name: "Back to monitors" }).isVisible()).toBe(true);
    // Expected 404s: the single sign-on screen asks whether one is configured (none is). The browser's own
    // "Failed to load resource" line repeats each HTTP error, which is listed by itself.
    const expected = (e: string) => /^http 404: GET \S+\/api\/v1\/org\/sso$/.test(e) || e.startsWith("console: Failed to load resource");
    expect(env.errors.filter((e) => !expected(e))).toEqual([]);
  }, 240_000);
});
