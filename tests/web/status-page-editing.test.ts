import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { screenshot } from "./browser.ts";
import { apiCall, captureScreen, nav, type JourneyEnv, signUpInBrowser, startJourney, SETUP_TIMEOUT_MS } from "./journey-support.ts";

let env: JourneyEnv;
let pageId: string;

const layoutNames = async () =>
  ((await apiCall(env, "GET", `/api/v1/status-pages/${pageId}/layout`)).sections as { name: string; components: { display_name: string }[] }[]).map(
    (s) => `${s.name}: ${s.components.map((c) => c.display_name).join(", ")}`,
  );
const state = () => env.page.getByTestId("layout-state");
const leaveDialog = () => env.page.getByRole("dialog", { name: "Leave without saving?" });

/** Opens the page's editor through the app (in-app history, so the back button stays in the app). */
async function openEditor() {
  await nav(env.page, "Status pages");
  await env.page.getByRole("link", { name: "Shop status" }).click();
  await env.page.getByRole("heading", { name: "Shop status" }).waitFor();
  await env.page.getByRole("form", { name: "Add several monitors" }).waitFor();
}

/** The screen as it is, in the dashboard's dark theme, for the visual review. */
async function darkShot(name: string) {
  await env.page.evaluate(() => (document.documentElement.dataset.theme = "dark"));
  await screenshot(env.page, name);
  await env.page.evaluate(() => (document.documentElement.dataset.theme = "light"));
}

beforeAll(async () => {
  env = await startJourney("status-page-editing");
  await signUpInBrowser(env, "Pat", `pat-${Date.now()}@example.test`);
  for (const [name, tags] of [
    ["Storefront", ["web"]],
    ["Checkout", ["web"]],
    ["Images CDN", ["web"]],
    ["Orders API", ["api"]],
    ["Search API", ["api"]],
  ] as const) {
    await apiCall(env, "POST", "/api/v1/monitors", { name, type: "tcp", config: { host: "127.0.0.1", port: 9 }, interval_seconds: 300, tags });
  }
  pageId = (await apiCall(env, "POST", "/api/v1/status-pages", { name: "Shop status", slug: `shop-${Date.now().toString(36)}` })).id;
  await apiCall(env, "PUT", `/api/v1/status-pages/${pageId}/layout`, { sections: [{ name: "Website", components: [] }, { name: "Backend", components: [] }] });
}, SETUP_TIMEOUT_MS);
afterAll(() => env?.stop(), 30_000);

describe("status page editing", () => {
  it("adds every monitor of a group at once, and a few picked by hand", async () => {
    const { page } = env;
    await page.setViewportSize({ width: 1440, height: 900 });
    await openEditor();
    const form = page.getByRole("form", { name: "Add several monitors" });
    await form.getByLabel("Into section").selectOption({ label: "Website" });
    await form.locator('option[value="web"]').waitFor({ state: "attached" });
    await form.getByLabel("Group (tag)").selectOption("web");
    const choices = form.getByTestId("monitor-choices").locator("li");
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=monitor-choices] li").length === 3);
    // By name, with each monitor's tags.
    expect((await choices.allTextContents()).map((t) => t.trim())).toEqual(["Checkout · web", "Images CDN · web", "Storefront · web"]);
    await form.getByRole("button", { name: "Select all 3 shown" }).click();
    await form.getByRole("button", { name: "Add 3 monitors" }).click();
    await page.locator('[data-section="Website"] [data-component]').nth(2).waitFor();
    await state().filter({ hasText: "Unsaved changes" }).waitFor();

    // By hand, from the whole list: the ones on the page already cannot be picked twice.
    await form.getByLabel("Into section").selectOption({ label: "Backend" });
    await form.getByLabel("Group (tag)").selectOption("");
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=monitor-choices] li").length === 5);
    expect(await form.getByRole("checkbox", { name: /Storefront/ }).isDisabled()).toBe(true);
    await form.getByLabel("Name contains").fill("API");
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=monitor-choices] li").length === 2);
    await form.getByRole("checkbox", { name: /Orders API/ }).check();
    await form.getByRole("checkbox", { name: /Search API/ }).check();
    await form.getByRole("button", { name: "Add 2 monitors" }).click();
    await page.locator('[data-section="Backend"] [data-component="Search API"]').waitFor();
    expect(await form.getByRole("button", { name: "Add monitors" }).isDisabled()).toBe(true);
    await captureScreen(page, "ux-pages-status-add-several");
    await darkShot("ux-pages-status-add-several-dark");
    expect(await layoutNames()).toEqual(["Website: ", "Backend: "]);
    expect(env.errors).toEqual([]);
  }, 60_000);

  it("previews the unsaved layout in light and dark", async () => {
    const { page } = env;
    const preview = page.getByTestId("layout-preview").getByTestId("theme-preview");
    await preview.getByText("Search API").waitFor();
    const bg = () => preview.evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(await bg()).toBe("rgb(247, 248, 250)");
    await page.getByRole("radio", { name: "Dark" }).check();
    expect(await bg()).toBe("rgb(13, 17, 23)");
    expect(await preview.getAttribute("aria-label")).toBe("Preview in Dark");
    await preview.scrollIntoViewIfNeeded();
    await captureScreen(page, "ux-pages-status-preview-dark");
    await page.getByRole("radio", { name: "Light" }).check();
    expect(await bg()).toBe("rgb(247, 248, 250)");
    expect(env.errors).toEqual([]);
  }, 30_000);

  it("asks before in-app navigation and the back button lose unsaved edits, and the browser asks on reload", async () => {
    const { page } = env;
    // A link in the app: the dialog, and staying keeps every edit.
    await nav(page, "Monitors");
    await leaveDialog().waitFor();
    await captureScreen(page, "ux-pages-status-leave-warning");
    await leaveDialog().getByRole("button", { name: "Stay and keep editing" }).click();
    await leaveDialog().waitFor({ state: "detached" });
    expect(new URL(page.url()).pathname).toBe(`/status-pages/${pageId}`);
    await state().filter({ hasText: "Unsaved changes" }).waitFor();

    // Another tab of the same page unmounts the editor, so it asks as well.
    await page.getByRole("navigation", { name: "Status page" }).getByRole("link", { name: "Theme" }).click();
    await leaveDialog().waitFor();
    await leaveDialog().getByRole("button", { name: "Stay and keep editing" }).click();

    // The back button: the address comes back and the edits stay.
    await page.goBack();
    await leaveDialog().waitFor();
    expect(new URL(page.url()).pathname).toBe(`/status-pages/${pageId}`);
    await leaveDialog().getByRole("button", { name: "Stay and keep editing" }).click();
    await page.locator('[data-section="Backend"] [data-component="Search API"]').waitFor();

    // A reload or closing the tab: the browser's own prompt (beforeunload); dismissing it stays.
    let asked = "";
    page.once("dialog", (d) => {
      asked = d.type();
      void d.dismiss();
    });
    await page.reload({ timeout: 3000 }).catch(() => {});
    expect(asked).toBe("beforeunload");
    await state().filter({ hasText: "Unsaved changes" }).waitFor();
    expect(env.errors).toEqual([]);
  }, 60_000);

  it("leaves without asking once saved, and discards when told to", async () => {
    const { page } = env;
    await page.getByRole("button", { name: "Save layout" }).click();
    await state().filter({ hasText: "All changes saved" }).waitFor();
    expect(await layoutNames()).toEqual(["Website: Checkout, Images CDN, Storefront", "Backend: Orders API, Search API"]);
    await nav(page, "Monitors");
    await page.waitForURL((u) => u.pathname === "/monitors");
    expect(await page.getByRole("dialog").count()).toBe(0);

    // An edit, then "Leave without saving": the saved layout stays as it was.
    await openEditor();
    await page.getByRole("button", { name: "Remove Checkout" }).click();
    await state().filter({ hasText: "Unsaved changes" }).waitFor();
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, "ux-pages-status-editor-phone");
    await page.setViewportSize({ width: 1440, height: 900 });
    await nav(page, "Status pages");
    await leaveDialog().getByRole("button", { name: "Leave without saving" }).click();
    await page.getByRole("heading", { name: "Status pages" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/status-pages");
    expect((await layoutNames())[0]).toBe("Website: Checkout, Images CDN, Storefront");
    expect(env.errors).toEqual([]);
  }, 60_000);
});
