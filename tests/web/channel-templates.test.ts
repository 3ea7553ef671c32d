import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { Page } from "playwright-core";
import { captureScreen, nav, signUpInBrowser, startJourney, type JourneyEnv, SETUP_TIMEOUT_MS } from "./journey-support.ts";

/**
 * The channel form's message template in a real browser against the all-in-one server: the
 * variables list, the live preview (rendered by the API with a sample alert, escaped per channel
 * type), an unknown variable named in the form, and a test send whose payload carries the template.
 */
let env: JourneyEnv;
let page: Page;
let target: ReturnType<typeof Bun.serve>;
const hooks: { message?: { title?: string; body?: string } }[] = [];

beforeAll(async () => {
  target = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: async (req) => (hooks.push(await req.json()), new Response("thanks")),
  });
  env = await startJourney("tmpl");
  page = env.page;
  await page.setViewportSize({ width: 1440, height: 900 });
  await signUpInBrowser(env, "Ada", `ada-${Date.now()}@example.test`);
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await env?.stop();
  target?.stop(true);
}, 30_000);

describe("message template editor", () => {
  it("previews the template live, names an unknown variable, and the test send carries the rendered message", async () => {
    await nav(page, "Channels");
    const form = page.getByRole("form", { name: "New channel" });
    await form.getByLabel("Type").selectOption("slack");
    await form.getByText("Message template").click();
    const title = form.getByLabel("Title template");
    const body = form.getByLabel("Body template");
    await title.fill("[{{kind_label}}] {{monitor.name}}");
    await body.fill("*{{monitor.name}}* is {{status}} in {{region}}\n{{#error}}Error: {{error}}{{/error}}");
    await form.getByLabel("Time zone").fill("Europe/Berlin");
    // Insert a variable from the list at the end of the body.
    await body.press("Control+End");
    await form.getByText("Variables").click();
    await form.getByRole("button", { name: "{{time}}" }).click();
    expect(await body.inputValue()).toEndWith("Error: {{error}}{{/error}}{{time}}");
    const previewBody = form.getByTestId("preview-body");
    // The preview follows the editor after a short pause: wait for the inserted variable's value, not an earlier one.
    await previewBody.getByText("Service Unavailable2026-11-22 05:42:10 CET", { exact: false }).waitFor({ timeout: 10_000 });
    expect(await form.getByTestId("preview-title").textContent()).toBe("[Triggered] Checkout API");
    expect(await previewBody.textContent()).toBe("*Checkout API* is down in eu-west\nError: HTTP 503 Service Unavailable2026-11-22 05:42:10 CET");
    await form.getByText("Body (Slack mrkdwn):").waitFor();
    await captureScreen(page, "tmpl-01-template-preview");
    await form.getByLabel("Title template").scrollIntoViewIfNeeded();
    await page.evaluate(() => window.scrollBy(0, -60));
    await page.screenshot({ path: "/tmp/tmpl-preview.png" });

    // An unknown variable: the preview says which and where, and saving is refused the same way.
    const errorsBefore = env.errors.length;
    await title.fill("{{monitor.nme}}");
    await form.getByText('Title template at 0: unknown variable "monitor.nme"', { exact: false }).waitFor({ timeout: 10_000 });
    await title.fill("[{{kind_label}}] {{monitor.name}}");
    await form.getByTestId("preview-title").getByText("[Triggered] Checkout API").waitFor({ timeout: 10_000 });
    // The refused preview was the only failed request (a 400 on purpose).
    expect(env.errors.slice(errorsBefore)).toEqual([
      expect.stringMatching(/^http 400: POST http:\/\/127\.0\.0\.1:\d+\/api\/v1\/alert-channels\/preview$/),
      "console: Failed to load resource: the server responded with a status of 400 (Bad Request)",
    ]);
    env.errors.length = errorsBefore;

    // Saved on a webhook channel, a test send carries the rendered template in `message`.
    await form.getByLabel("Type").selectOption("webhook");
    await form.getByLabel("Name", { exact: true }).fill("Templated hook");
    await form.getByLabel("URL").fill(`http://127.0.0.1:${target.port}/hook`);
    await form.getByTestId("preview-body").getByText("*Checkout API* is down", { exact: false }).waitFor();
    await form.getByRole("button", { name: "Add channel" }).click();
    const hook = page.locator("[data-channel='Templated hook']");
    await hook.getByText("custom message").waitFor();
    await hook.getByRole("button", { name: "Send test" }).click();
    await hook.getByText(/^Test sent/).waitFor({ timeout: 15_000 });
    expect(hooks.at(-1)?.message?.title).toBe("[Test] Test monitor");
    expect(hooks.at(-1)?.message?.body).toMatch(/^\*Test monitor\* is down in test\n\d{4}-\d\d-\d\d \d\d:\d\d:\d\d CES?T$/);

    // Editing shows the stored template; clearing both parts returns the channel to Watchpost's layout.
    await hook.getByRole("button", { name: "Edit" }).click();
    const edit = hook.getByRole("form", { name: "Edit Templated hook" });
    expect(await edit.getByLabel("Title template").inputValue()).toBe("[{{kind_label}}] {{monitor.name}}");
    expect(await edit.getByLabel("Time zone").inputValue()).toBe("Europe/Berlin");
    await edit.getByLabel("Title template").fill("");
    await edit.getByLabel("Body template").fill("");
    await edit.getByRole("button", { name: "Save channel" }).click();
    await edit.waitFor({ state: "detached" });
    await hook.getByText("custom message").waitFor({ state: "detached" });
    const before = hooks.length;
    await hook.getByRole("button", { name: "Send test" }).click();
    for (let i = 0; i < 150 && hooks.length === before; i++) await Bun.sleep(100);
    expect(hooks.length).toBe(before + 1);
    expect(hooks.at(-1)?.message).toBeUndefined();
    expect(env.errors).toEqual([]);
  }, 120_000);
});
