/**
 * First run in the browser: a fresh all-in-one server opens on its setup screen at /, which creates
 * the owner and the first organisation and lands signed in; afterwards the screen is gone for good.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { screenshot } from "./browser.ts";
import { apiCall, captureScreen, type JourneyEnv, SETUP_TIMEOUT_MS, startJourney, waitOrShoot } from "./journey-support.ts";

let env: JourneyEnv;
beforeAll(async () => {
  env = await startJourney("setup");
}, SETUP_TIMEOUT_MS);
afterAll(() => env?.stop(), 60_000);

describe("first run in the browser", () => {
  it("opens / on the setup screen, creates the owner, lands signed in, and never shows it again", async () => {
    const { page } = env;
    await page.goto(`${env.base}/`);
    await waitOrShoot(env, page.getByRole("heading", { name: "Welcome to Watchpost" }), "setup-screen", 20_000);
    expect(new URL(page.url()).pathname).toBe("/setup");
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, "setup-390x844");
    await page.setViewportSize({ width: 1440, height: 900 });
    await captureScreen(page, "setup-1440x900");

    await page.getByLabel("Your name").fill("Ada Owner");
    await page.getByLabel("Email").fill("ada@example.test");
    await page.getByLabel("Password").fill("correct horse battery");
    await page.getByLabel("Organisation name").fill("Ada's Team");
    await page.getByRole("button", { name: "Create account" }).click();
    await waitOrShoot(env, page.getByRole("heading", { name: "Watch your first site in under a minute" }), "setup-landed", 15_000);
    expect(new URL(page.url()).pathname).toBe("/monitors");
    const orgs = await apiCall(env, "GET", "/api/v1/orgs");
    expect(orgs.data.map((o: any) => [o.name, o.role])).toEqual([["Ada's Team", "owner"]]);

    // Gone for good: the API refuses a second setup, and a signed-out visitor of / or /setup gets sign-in.
    expect(await (await fetch(`${env.base}/api/v1/setup`)).json()).toEqual({ needed: false });
    const again = await fetch(`${env.base}/api/v1/setup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "eve@example.test", password: "another long password", name: "Eve", org_name: "Eve's" }),
    });
    expect(again.status).toBe(409);
    await page.context().clearCookies();
    for (const path of ["/", "/setup"]) {
      await page.goto(`${env.base}${path}`);
      await waitOrShoot(env, page.getByRole("heading", { name: "Sign in", exact: true }), `signin-after-setup${path.replace("/", "-")}`);
      expect(new URL(page.url()).pathname).toBe("/signin");
    }
    expect(await page.getByRole("heading", { name: "Welcome to Watchpost" }).count()).toBe(0);
    expect(env.errors).toEqual([]);
  }, 120_000);
});
