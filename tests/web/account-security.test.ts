import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import * as OTPAuth from "otpauth";
import { screenshot } from "./browser.ts";
import { apiCall, captureScreen, type JourneyEnv, phase, signUpInBrowser, startJourney, SETUP_TIMEOUT_MS } from "./journey-support.ts";

let env: JourneyEnv;
const email = `rita-${Date.now().toString(36)}@example.test`;
const password = "correct horse battery";
let totp: OTPAuth.TOTP;
let firstCodes: string[] = [];

const accountNav = (name: string) => env.page.getByRole("navigation", { name: "Account" }).getByRole("link", { name, exact: true }).click();
const codeField = () => env.page.getByLabel("Code from your app");
/** The words shown under a field (its aria-describedby error). */
const fieldError = (label: string) => env.page.locator(`small.field-error[id="${`f-${label}`}-err"]`);

/** Drops the responses a step provoked on purpose (a refused code answers 400, as designed). */
function expectOnly(status: number) {
  const unexpected = env.errors.filter((e) => !e.includes(`http ${status}`) && !(e.startsWith("console: Failed to load resource") && e.includes(String(status))));
  expect(unexpected).toEqual([]);
  env.errors.length = 0;
}

/** The screen as it is, in the dashboard's dark theme, for the visual review. */
async function darkShot(name: string) {
  await env.page.evaluate(() => (document.documentElement.dataset.theme = "dark"));
  await screenshot(env.page, name);
  await env.page.evaluate(() => (document.documentElement.dataset.theme = "light"));
}

beforeAll(async () => {
  env = await startJourney("account-security");
  await phase("clipboard permission", 10_000, () => env.chromium.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: env.base }));
  await signUpInBrowser(env, "Rita", email, password);
}, SETUP_TIMEOUT_MS);
afterAll(() => env?.stop(), 30_000);

describe("account security", () => {
  it("says in words what is wrong with a code, before and after asking the API", async () => {
    const { page } = env;
    await page.getByRole("link", { name: "Account" }).first().click();
    await accountNav("Two-factor authentication");
    await page.getByRole("button", { name: "Set up two-factor authentication" }).click();
    const secret = (await page.getByTestId("totp-secret").textContent())!;
    totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) });
    const turnOn = page.getByRole("button", { name: "Turn on" });
    const posted: string[] = [];
    page.on("request", (r) => {
      if (r.url().endsWith("/2fa/enable")) posted.push(r.url());
    });

    await turnOn.click();
    await fieldError("enable_code").getByText("Enter the 6-digit code your authenticator app shows now.").waitFor();
    expect(await codeField().getAttribute("aria-invalid")).toBe("true");
    await codeField().fill("12ab56");
    await turnOn.click();
    await fieldError("enable_code").getByText("The code is digits only: type the 6 digits your app shows, without letters.").waitFor();
    await codeField().fill("123");
    await turnOn.click();
    await fieldError("enable_code").getByText("The code has 6 digits; this one has 3.").waitFor();
    // Checked in the page: nothing went to the API yet.
    expect(posted).toEqual([]);
    await page.setViewportSize({ width: 1440, height: 900 });
    await captureScreen(page, "ux-pages-2fa-code-in-words");

    // A well-formed code that is not the current one: the API's refusal, in words next to the field.
    const now = totp.generate();
    await codeField().fill(now === "000000" ? "111111" : "000000");
    await turnOn.click();
    await fieldError("enable_code").getByText(/^That code did not match\. Codes change every 30 seconds/).waitFor();
    expect(posted).toHaveLength(1);
    // No raw field keys anywhere on the screen.
    expect(await page.locator("main").textContent()).not.toContain("body.code");
    expect(await page.getByRole("alert").count()).toBe(0);
    expectOnly(400);
  }, 60_000);

  it("shows the recovery codes once, with copy and a .txt download, until they are said to be saved", async () => {
    const { page } = env;
    await codeField().fill(totp.generate());
    await page.getByRole("button", { name: "Turn on" }).click();
    await page.getByTestId("2fa-state").filter({ hasText: "on" }).waitFor();
    const panel = page.getByRole("region", { name: "Your recovery codes" });
    firstCodes = await panel.getByTestId("recovery-codes").locator("code").allTextContents();
    expect(firstCodes).toHaveLength(10);

    await panel.getByRole("button", { name: "Copy all recovery codes" }).click();
    await panel.getByText("Copied").waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(firstCodes.join("\n"));

    const [file] = await Promise.all([page.waitForEvent("download"), panel.getByRole("button", { name: "Download .txt" }).click()]);
    expect(file.suggestedFilename()).toBe("watchpost-recovery-codes.txt");
    const text = readFileSync((await file.path())!, "utf8");
    for (const c of firstCodes) expect(text).toContain(`\n${c}\n`);
    expect(text).toContain(`Account: ${email}`);
    await panel.getByText("Downloaded watchpost-recovery-codes.txt").waitFor();

    // Done waits for the confirmation that they were saved.
    const done = panel.getByRole("button", { name: "Done" });
    expect(await done.isDisabled()).toBe(true);
    await captureScreen(page, "ux-pages-2fa-recovery-codes");
    await darkShot("ux-pages-2fa-recovery-codes-dark");
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, "ux-pages-2fa-recovery-codes-phone");
    await page.setViewportSize({ width: 1440, height: 900 });

    // Leaving before that asks first; staying keeps the codes on screen.
    await accountNav("Sessions");
    const dialog = page.getByRole("dialog", { name: "Leave before saving your recovery codes?" });
    await dialog.waitFor();
    await captureScreen(page, "ux-pages-2fa-leave-warning");
    await dialog.getByRole("button", { name: "Stay and save them" }).click();
    await dialog.waitFor({ state: "detached" });
    expect(new URL(page.url()).pathname).toBe("/account/security");
    expect(await panel.getByTestId("recovery-codes").locator("code").allTextContents()).toEqual(firstCodes);

    await panel.getByRole("checkbox", { name: /I have saved these codes/ }).check();
    await done.click();
    await panel.waitFor({ state: "detached" });
    // Saved: leaving no longer asks.
    await accountNav("Sessions");
    await page.getByRole("heading", { name: "Sessions" }).waitFor();
    expect(await page.getByRole("dialog").count()).toBe(0);
    expect(env.errors).toEqual([]);
  }, 60_000);

  it("regenerates the codes after the password, in words when it is missing or wrong", async () => {
    const { page } = env;
    await accountNav("Two-factor authentication");
    const form = page.getByRole("form", { name: "Generate new recovery codes" });
    const submit = form.getByRole("button", { name: "Generate new recovery codes" });
    await submit.click();
    await fieldError("recovery_password").getByText("Enter your password to generate new codes.").waitFor();
    await form.getByLabel("Your password").fill("not my password");
    await submit.click();
    await fieldError("recovery_password").getByText("That password is not correct. It is the one you sign in with.").waitFor();
    expect(await form.getByLabel("Your password").getAttribute("aria-invalid")).toBe("true");
    await captureScreen(page, "ux-pages-2fa-regenerate-wrong-password");
    expectOnly(400);

    await form.getByLabel("Your password").fill(password);
    await submit.click();
    const panel = page.getByRole("region", { name: "Your new recovery codes" });
    await panel.getByText("Your previous codes no longer work.").waitFor();
    const renewed = await panel.getByTestId("recovery-codes").locator("code").allTextContents();
    expect(renewed).toHaveLength(10);
    expect(renewed.filter((c) => firstCodes.includes(c))).toEqual([]);
    expect(await panel.getByRole("button", { name: "Done" }).isDisabled()).toBe(true);
    await panel.getByRole("checkbox", { name: /I have saved these codes/ }).check();
    await panel.getByRole("button", { name: "Done" }).click();
    await panel.waitFor({ state: "detached" });

    // The old codes stopped working; a new one turns 2FA off.
    const stale = await apiCall(env, "POST", "/api/v1/user/2fa/disable", { recovery_code: firstCodes[0] }, false);
    expect(stale?.code).toBe("VALIDATION_ERROR");
    await apiCall(env, "POST", "/api/v1/user/2fa/disable", { recovery_code: renewed[0] });
    expect((await apiCall(env, "GET", "/api/v1/user")).two_factor_enabled).toBe(false);
  }, 60_000);
});
