/**
 * First run in the browser: a fresh self-hosted all-in-one server opens on its setup screen at /, which creates
 * the owner and the first organisation and lands signed in; afterwards the screen is gone for good, and sign-up
 * is closed: people join by invitation.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { screenshot } from "./browser.ts";
import { apiCall, captureScreen, type JourneyEnv, SETUP_TIMEOUT_MS, startJourney, waitOrShoot } from "./journey-support.ts";

let env: JourneyEnv;
beforeAll(async () => {
  // Self-hosted, as `npm start` without a payment provider is.
  env = await startJourney("setup", { BILLING: "false" });
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
    expect(await (await fetch(`${env.base}/api/v1/setup`)).json()).toEqual({ needed: false, signup_open: false });
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

  it("is then closed to sign-up: no link to it, its screen says to ask for an invitation", async () => {
    const { page } = env;
    await page.context().clearCookies();
    await page.goto(`${env.base}/signin`);
    await waitOrShoot(env, page.getByRole("link", { name: "Forgot your password?" }), "signin-closed");
    expect(await page.getByRole("link", { name: "Create an account" }).count()).toBe(0);
    await page.goto(`${env.base}/signup`);
    await waitOrShoot(env, page.getByRole("heading", { name: "Sign-up is closed" }), "signup-closed");
    await captureScreen(page, "signup-closed");
    expect(await page.getByLabel("Password").count()).toBe(0);
  }, 60_000);

  it("lets an invited colleague create an account from the emailed link, into the owner's organisation only", async () => {
    const { page } = env;
    await page.goto(`${env.base}/signin`);
    await page.getByLabel("Email").fill("ada@example.test");
    await page.getByLabel("Password").fill("correct horse battery");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await waitOrShoot(env, page.getByRole("heading", { name: "Watch your first site in under a minute" }), "owner-back", 15_000);
    // Invited from the Members screen, which shows the emailed link once: no mail server is set up here.
    await page.goto(`${env.base}/org`);
    await page.getByLabel("Email to invite").fill("grace@example.test");
    await page.getByRole("button", { name: "Send invitation" }).click();
    await waitOrShoot(env, page.getByRole("region", { name: "Invitation link" }), "invitation-link");
    await captureScreen(page, "invitation-link");
    const link = (await page.getByTestId("secret-value").innerText()).trim();
    expect(link).toStartWith(`${env.base}/invitations/accept?token=`);
    await page.context().clearCookies();
    await page.goto(link);
    await page.getByRole("link", { name: "Create an account" }).click();
    await waitOrShoot(env, page.getByRole("heading", { name: "Create your account" }), "invited-signup");
    await page.getByText("You are joining the organisation that invited you").waitFor();
    expect(await page.getByLabel("Organisation name (optional)").count()).toBe(0);
    await captureScreen(page, "invited-signup");
    await page.getByLabel("Your name").fill("Grace Colleague");
    await page.getByLabel("Email").fill("grace@example.test");
    await page.getByLabel("Password").fill("another long password");
    await page.getByRole("button", { name: "Create account" }).click();
    await waitOrShoot(env, page.getByRole("heading", { name: "Watch your first site in under a minute" }), "invited-landed", 15_000);
    const orgs = await apiCall(env, "GET", "/api/v1/orgs");
    expect(orgs.data.map((o: any) => [o.name, o.role])).toEqual([["Ada's Team", "member"]]);
    expect(await page.getByTestId("invitation-banner").count()).toBe(0);
    expect(env.errors).toEqual([]);
  }, 60_000);

  it("proposes a check every minute: self-hosted, no plan asks for five", async () => {
    const { page } = env;
    await page.goto(`${env.base}/monitors/new`);
    const interval = page.getByLabel("Check every (seconds)");
    await waitOrShoot(env, page.getByText("Every 10 s or more"), "form-interval");
    expect(await interval.inputValue()).toBe("60");
  }, 60_000);
});
