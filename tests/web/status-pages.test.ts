import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { Locator, Page } from "playwright-core";
import { apiCall, captureScreen, nav, type JourneyEnv, signUpInBrowser, startJourney, waitOrShoot, SETUP_TIMEOUT_MS } from "./journey-support.ts";

let env: JourneyEnv;
let pageId: string;
const slug = `acme-${Date.now().toString(36)}`;

/** A mouse drag in small steps, as dnd-kit's pointer sensor needs to see it. */
async function drag(page: Page, source: Locator, target: Locator, below = false) {
  // The mouse works in viewport coordinates: bring the handle on screen (a click further down the editor scrolls it away).
  await source.scrollIntoViewIfNeeded();
  const s = (await source.boundingBox())!;
  const t = (await target.boundingBox())!;
  await page.mouse.move(s.x + s.width / 2, s.y + s.height / 2);
  await page.mouse.down();
  await page.mouse.move(s.x + s.width / 2 + 6, s.y + s.height / 2 + 6, { steps: 4 });
  const ty = below ? t.y + t.height - 4 : t.y + t.height / 2;
  await page.mouse.move(t.x + t.width / 2, ty, { steps: 20 });
  await page.mouse.move(t.x + t.width / 2, ty + 1, { steps: 2 });
  await page.mouse.up();
  // dnd-kit swallows clicks for 50 ms after a drop (the click a drag's mouse-up would cause).
  await Bun.sleep(100);
}

const layoutNames = async () =>
  ((await apiCall(env, "GET", `/api/v1/status-pages/${pageId}/layout`)).sections as { name: string; components: { display_name: string }[] }[]).map(
    (s) => `${s.name}: ${s.components.map((c) => c.display_name).join(", ")}`,
  );

beforeAll(async () => {
  env = await startJourney("status-pages");
  await signUpInBrowser(env, "Sam", `sam-${Date.now()}@example.test`);
  // A paid plan (custom domains need one), bought through the simulator's hosted checkout.
  const { checkout_url } = await apiCall(env, "POST", "/api/v1/billing/checkout", { plan: "starter", cycle: "monthly" });
  expect((await fetch(`${checkout_url}/pay`, { method: "POST" })).status).toBe(200);
  for (let i = 0; i < 50 && (await apiCall(env, "GET", "/api/v1/entitlements")).plan.id !== "starter"; i++) await Bun.sleep(100);
  for (const [name, tags] of [
    ["Homepage", ["web"]],
    ["Public API", ["api"]],
    ["Mail relay", ["mail"]],
  ] as const) {
    await apiCall(env, "POST", "/api/v1/monitors", { name, type: "tcp", config: { host: "127.0.0.1", port: 9 }, interval_seconds: 300, tags });
  }
}, SETUP_TIMEOUT_MS);
afterAll(() => env?.stop(), 30_000);

describe("status pages", () => {
  it("lists no pages at first and creates one with a suggested address", async () => {
    const { page } = env;
    await nav(page, "Status pages");
    await page.getByRole("heading", { name: "Tell your users how things are going" }).waitFor();
    await captureScreen(page, "p2-status-01-empty");
    await page.getByLabel("Name", { exact: true }).fill("Acme status");
    expect(await page.getByLabel("Address (slug)").inputValue()).toBe("acme-status");
    await page.getByLabel("Address (slug)").fill(slug);
    await page.getByRole("button", { name: "Create status page" }).click();
    await page.getByRole("heading", { name: "Acme status" }).waitFor();
    pageId = page.url().split("/").pop()!;
    expect(pageId).toMatch(/^sp/);
    await page.getByRole("heading", { name: "An empty page" }).waitFor();
    expect(env.errors).toEqual([]);
  }, 30_000);

  it("builds sections and components, then rearranges them by dragging", async () => {
    const { page } = env;
    for (const name of ["Website", "Backend"]) {
      await page.getByLabel("Section name", { exact: true }).last().fill(name);
      await page.getByRole("button", { name: "Add section" }).click();
    }
    const add = page.getByRole("form", { name: "Add a component" });
    for (const [section, monitor] of [
      ["Website", "Homepage"],
      ["Website", "Public API"],
      ["Backend", "Mail relay"],
    ] as const) {
      await add.getByLabel("Section").selectOption({ label: section });
      await add.getByLabel("Shows").selectOption({ label: monitor });
      expect(await add.getByLabel("Display name").inputValue()).toBe(monitor);
      await add.getByRole("button", { name: "Add component" }).click();
    }
    await add.getByLabel("Section").selectOption({ label: "Backend" });
    await add.locator('option[value="tag:api"]').waitFor({ state: "attached" });
    await add.getByLabel("Shows").selectOption({ label: "api" });
    await add.getByLabel("Display name").fill("Every API endpoint");
    await add.getByRole("button", { name: "Add component" }).click();
    await page.getByTestId("layout-state").filter({ hasText: "Unsaved changes" }).waitFor();
    await page.getByRole("button", { name: "Save layout" }).click();
    await page.getByTestId("layout-state").filter({ hasText: "All changes saved" }).waitFor();
    expect(await layoutNames()).toEqual(["Website: Homepage, Public API", "Backend: Mail relay, Every API endpoint"]);
    await captureScreen(page, "p2-status-02-layout");

    // Mouse: move "Public API" into Backend, above "Mail relay".
    await drag(page, page.getByRole("button", { name: "Drag Public API" }), page.locator('[data-component="Mail relay"]'));
    await page.locator('[data-section="Backend"] [data-component="Public API"]').waitFor();
    // Mouse: move the Backend section above Website.
    await drag(page, page.getByRole("button", { name: "Drag section Backend" }), page.getByRole("button", { name: "Drag section Website" }));
    await page.waitForFunction(() => [...document.querySelectorAll("[data-section]")].map((s) => s.getAttribute("data-section")).join() === "Backend,Website");
    await page.getByRole("button", { name: "Save layout" }).click();
    await waitOrShoot(env, page.getByTestId("layout-state").filter({ hasText: "All changes saved" }), "layout-drag-save");
    const after = await layoutNames();
    expect(after[0]).toStartWith("Backend: ");
    expect(after[0]).toContain("Public API");
    expect(after[1]).toBe("Website: Homepage");

    // Keyboard: pick "Homepage" up with Space, move it down into Backend, drop with Space.
    const handle = page.getByRole("button", { name: "Drag Homepage" });
    await handle.focus();
    await page.keyboard.press("Space");
    await Bun.sleep(150);
    await page.keyboard.press("ArrowUp");
    await Bun.sleep(250);
    await page.keyboard.press("Space");
    await page.locator('[data-section="Backend"] [data-component="Homepage"]').waitFor();
    await page.getByRole("button", { name: "Save layout" }).click();
    await page.getByTestId("layout-state").filter({ hasText: "All changes saved" }).waitFor();
    expect((await layoutNames())[1]).toBe("Website: ");
    await captureScreen(page, "p2-status-03-layout-dragged");
    expect(env.errors).toEqual([]);
  }, 60_000);

  it("switches access to a password and back, and the public page follows", async () => {
    const { page } = env;
    await page.getByRole("navigation", { name: "Status page" }).getByRole("link", { name: "Settings and access" }).click();
    await page.getByLabel("Anyone with a shared password").check();
    await page.getByLabel("Password", { exact: true }).fill("a shared secret");
    await captureScreen(page, "p2-status-04-access");
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByRole("status").filter({ hasText: "Saved" }).waitFor();
    expect((await apiCall(env, "GET", `/api/v1/status-pages/${pageId}`)).access).toMatchObject({ mode: "password", password_set: true });
    expect((await fetch(`${env.base}/status/${slug}`)).status).toBe(401);

    await page.getByLabel("Anyone with the address").check();
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByRole("status").filter({ hasText: "Saved" }).waitFor();
    expect((await fetch(`${env.base}/status/${slug}`)).status).toBe(200);
    expect(env.errors).toEqual([]);
  }, 30_000);

  it("sets a custom domain, shows the TXT record, and checks it until it matches", async () => {
    const { page } = env;
    await page.getByRole("navigation", { name: "Status page" }).getByRole("link", { name: "Custom domain" }).click();
    await page.getByRole("textbox", { name: "Domain" }).fill("status.acme.test");
    await page.getByRole("button", { name: "Set domain" }).click();
    const record = page.getByTestId("txt-record");
    await record.waitFor();
    expect(await record.textContent()).toContain("_watchpost-verify.status.acme.test");
    const value = (await apiCall(env, "GET", `/api/v1/status-pages/${pageId}`)).custom_domain.txt_record.value as string;
    expect(await record.textContent()).toContain(value);
    await page.getByTestId("domain-state").filter({ hasText: "not verified" }).waitFor();
    await captureScreen(page, "p2-status-05-domain-record");

    // Not published yet: the check says what it found (the API answers 409, as documented).
    await page.getByRole("button", { name: "Check DNS record" }).click();
    await page.getByTestId("verify-error").getByText("No TXT record was found").waitFor();
    await captureScreen(page, "p2-status-06-domain-missing");
    expect(env.errors.filter((e) => !/409/.test(e))).toEqual([]);
    env.errors.length = 0;

    env.zone["_watchpost-verify.status.acme.test"] = [{ type: "TXT", name: "_watchpost-verify.status.acme.test", ttl: 60, data: value }];
    await page.getByRole("button", { name: "Check DNS record" }).click();
    await page.getByText("The record matches").waitFor();
    await page.getByTestId("domain-state").filter({ hasText: "active" }).waitFor();
    // The page answers at the verified domain (Host header).
    const res = await fetch(`${env.base}/`, { headers: { host: "status.acme.test" } });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("Acme status");
    await captureScreen(page, "p2-status-07-domain-verified");
    expect(env.errors).toEqual([]);
  }, 30_000);

  it("previews themes live and applies one, and makes a custom theme", async () => {
    const { page } = env;
    await page.getByRole("navigation", { name: "Status page" }).getByRole("link", { name: "Theme" }).click();
    const preview = page.getByTestId("theme-preview");
    await preview.waitFor();
    const bg = () => preview.evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(await bg()).toBe("rgb(247, 248, 250)");
    await page.getByRole("radio", { name: "Dark" }).check();
    expect(await bg()).toBe("rgb(13, 17, 23)");
    await captureScreen(page, "p2-status-08-theme-dark");
    await page.getByRole("button", { name: "Use Dark" }).click();
    await page.getByText("The page now uses this theme.").waitFor();
    expect((await apiCall(env, "GET", `/api/v1/status-pages/${pageId}`)).theme_id).toBe("dark");

    await page.getByRole("button", { name: "New theme from Dark" }).click();
    await page.getByLabel("Theme name").fill("Acme night");
    await page.getByLabel("Links and accents").fill("#ffa657");
    expect(await preview.getByRole("link", { name: "Subscribe to updates" }).evaluate((el) => getComputedStyle(el).color)).toBe("rgb(255, 166, 87)");
    await captureScreen(page, "p2-status-09-theme-custom");
    await page.getByRole("button", { name: "Save theme" }).click();
    // The new theme is chosen, not in use yet: the line about Dark is gone (it stayed, and the wait below passed
    // before the page used the new theme).
    await page.getByRole("button", { name: "Use Acme night" }).waitFor();
    expect(await page.getByText("The page now uses this theme.").count()).toBe(0);
    await page.getByRole("button", { name: "Use Acme night" }).click();
    await page.getByText("The page now uses this theme.").waitFor();
    const themes = (await apiCall(env, "GET", "/api/v1/themes")).data as { id: string; name: string; colors: Record<string, string> }[];
    const mine = themes.find((t) => t.name === "Acme night")!;
    expect(mine.colors.accent).toBe("#ffa657");
    expect((await apiCall(env, "GET", `/api/v1/status-pages/${pageId}`)).theme_id).toBe(mine.id);
    expect(env.errors).toEqual([]);
  }, 30_000);

  it("adds and removes subscribers", async () => {
    const { page } = env;
    await page.getByRole("navigation", { name: "Status page" }).getByRole("link", { name: "Subscribers" }).click();
    await page.getByRole("heading", { name: "No subscribers yet" }).waitFor();
    await page.getByLabel("Email address").fill("reader@example.test");
    await page.getByRole("button", { name: "Add subscriber" }).click();
    await page.getByRole("row", { name: /reader@example\.test/ }).getByText("waiting for confirmation").waitFor();
    await page.getByLabel("Webhook").check();
    await page.getByLabel("Webhook URL").fill("https://hooks.example.test/status");
    await page.getByRole("button", { name: "Add subscriber" }).click();
    await page.getByRole("row", { name: /hooks\.example\.test/ }).getByText(/^confirmed/).waitFor();
    // The webhook's signing secret, shown once under the table (the API answers it only when adding).
    const signing = page.getByRole("region", { name: /^Signing secret for https:\/\/hooks\.example\.test/ });
    const secret = (await signing.getByTestId("secret-value").textContent()) ?? "";
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(await page.getByTestId("subscribers").textContent()).not.toContain(secret.slice(6));
    await page.setViewportSize({ width: 1440, height: 900 });
    await captureScreen(page, "p2-status-10-subscribers");
    await page.setViewportSize({ width: 1280, height: 900 });
    await signing.getByRole("button", { name: "Done" }).click();
    await signing.waitFor({ state: "detached" });
    await page.getByRole("button", { name: "Remove reader@example.test" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Remove subscriber" }).click();
    await page.getByRole("row", { name: /reader@example\.test/ }).waitFor({ state: "detached" });
    expect((await apiCall(env, "GET", `/api/v1/status-pages/${pageId}/subscribers`)).pagination.total).toBe(1);
    expect(env.errors).toEqual([]);
  }, 30_000);

  it("opens an incident on a component, posts updates, resolves it, and shows the timeline", async () => {
    const { page } = env;
    await nav(page, "Incidents");
    await page.getByRole("heading", { name: "No open incidents" }).waitFor();
    await page.getByLabel("Title").fill("Slow API responses");
    await page.getByLabel("Impact").selectOption("major");
    await page.getByLabel("First update").fill("We are looking into slow API responses.");
    await page.getByRole("checkbox", { name: "Public API" }).check();
    await captureScreen(page, "p2-incidents-01-new");
    await page.getByRole("button", { name: "Open incident" }).click();
    await page.getByRole("heading", { name: "Slow API responses" }).waitFor();
    const timeline = page.getByTestId("timeline");
    expect(await timeline.locator("li").count()).toBe(1);
    // It shows on the page holding the component.
    const json = (await (await fetch(`${env.base}/status/${slug}/index.json`)).json()) as Record<string, unknown>;
    expect(JSON.stringify(json)).toContain("Slow API responses");
    // Through its component only: the page is not listed as named as well.
    expect(await page.getByText(/Affects: Public API[^,]*\.$/).count()).toBe(1);

    await page.getByRole("form", { name: "Post an update" }).getByLabel("Status").selectOption("identified");
    await page.getByLabel("Message", { exact: true }).fill("A slow database query; a fix is rolling out.");
    await page.getByRole("button", { name: "Post update" }).click();
    await timeline.locator("li").nth(1).waitFor();
    expect(await timeline.locator("li").first().textContent()).toContain("A slow database query");
    await page.locator("header [data-status=identified]").waitFor();
    await captureScreen(page, "p2-incidents-02-detail");

    await page.getByLabel("Closing message (optional)").fill("Responses are fast again.");
    await page.getByRole("button", { name: "Resolve incident" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Resolve", exact: true }).click();
    await page.locator("header [data-status=resolved]").waitFor();
    expect(await timeline.locator("li").count()).toBe(3);
    expect(await timeline.locator("li").first().textContent()).toContain("Responses are fast again.");
    await captureScreen(page, "p2-incidents-03-resolved");

    await page.getByRole("link", { name: "← Incidents" }).click();
    await page.getByRole("heading", { name: "No open incidents" }).waitFor();
    await page.getByText("Resolved", { exact: true }).click();
    await page.getByRole("link", { name: "Slow API responses" }).waitFor();
    await captureScreen(page, "p2-incidents-04-list");
    expect(env.errors).toEqual([]);
  }, 60_000);

  it("lists the page with its custom domain and component count", async () => {
    const { page } = env;
    await nav(page, "Status pages");
    const row = page.getByRole("row", { name: /Acme status/ });
    await row.getByText("status.acme.test (active)").waitFor();
    await captureScreen(page, "p2-status-11-list");
    expect(env.errors).toEqual([]);
  }, 30_000);
});
