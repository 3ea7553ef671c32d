import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import net from "node:net";
import type { Page } from "playwright-core";
import { apiCall, type JourneyEnv, SETUP_TIMEOUT_MS, startJourney, waitOrShoot } from "./journey-support.ts";

/**
 * A new self-hosted user's first hour on the dashboard (the defects they reported): a TCP monitor's page names
 * the port it checks; a webhook channel's bad URL is called that, not answered with the field's description; a
 * wrong password on the sign-in form offers no "Sign in again" link back to the same form; a status page address
 * the browser refuses says what an address may hold.
 */
let env: JourneyEnv;
let page: Page;
let tcp: net.Server;

beforeAll(async () => {
  tcp = net.createServer((s) => s.end()).listen(0, "127.0.0.1");
  env = await startJourney("first-hour", { BILLING: "false" });
  page = env.page;
  await page.goto(`${env.base}/`);
  await page.getByLabel("Your name").fill("Ada Owner");
  await page.getByLabel("Email").fill("ada@example.test");
  await page.getByLabel("Password").fill("correct horse battery");
  await page.getByLabel("Organisation name").fill("Ada's Team");
  await page.getByRole("button", { name: "Create account" }).click();
  await waitOrShoot(env, page.getByRole("heading", { name: "Watch your first site in under a minute" }), "first-hour-setup", 15_000);
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await env?.stop();
  tcp?.close();
}, 30_000);

describe("a new user's first hour", () => {
  it("names the port of a TCP monitor on its page, not only the host", async () => {
    const port = (tcp.address() as net.AddressInfo).port;
    const m = await apiCall(env, "POST", "/api/v1/monitors", { type: "tcp", name: "Database port", config: { host: "127.0.0.1", port } });
    await page.goto(`${env.base}/monitors/${m.id}`);
    await page.getByRole("heading", { name: "Database port", exact: true }).waitFor({ timeout: 10_000 });
    const summary = await page.locator("section > p.muted").first().textContent();
    expect(summary).toContain(`tcp · 127.0.0.1:${port} · every`);
  });

  it("says a webhook channel's URL must be an http(s) URL, without repeating the field's description as the rule", async () => {
    await page.goto(`${env.base}/alert-channels`);
    await page.getByLabel("Type").selectOption("webhook");
    await page.getByLabel("Name", { exact: true }).fill("Ops hook");
    await page.locator("input[name='config.url']").fill("ftp://hooks.example.test/in");
    await page.getByRole("button", { name: "Add channel" }).click();
    const alert = page.getByRole("alert");
    await alert.waitFor({ timeout: 10_000 });
    expect(await alert.textContent()).toContain("URL: must be an http:// or https:// URL");
    expect(await page.locator("main").textContent()).not.toContain("must be: Where to POST");
    // What the user typed stays for them to correct.
    expect(await page.locator("input[name='config.url']").inputValue()).toBe("ftp://hooks.example.test/in");
    expect(await page.getByLabel("Name", { exact: true }).inputValue()).toBe("Ops hook");
  });

  it("answers a wrong password on the sign-in form without a 'Sign in again' link to the form itself", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in" }).waitFor({ timeout: 10_000 });
    await page.getByLabel("Email").fill("ada@example.test");
    await page.getByLabel("Password").fill("not my password");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    const alert = page.getByRole("alert");
    await alert.waitFor({ timeout: 10_000 });
    expect(await alert.textContent()).toContain("Invalid email, password or code");
    expect(await alert.getByRole("link").count()).toBe(0);
    await page.getByLabel("Password").fill("correct horse battery");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByRole("heading", { name: "Monitors" }).waitFor({ timeout: 10_000 });
  });

  it("says what a status page address may hold when the typed one is refused", async () => {
    await page.goto(`${env.base}/status-pages`);
    await page.getByLabel("Name", { exact: true }).fill("Acme Status");
    await page.getByLabel("Address (slug)").fill("Acme Status!");
    await page.getByRole("button", { name: "Create status page" }).click();
    const slug = page.getByLabel("Address (slug)");
    expect(await slug.evaluate((i: HTMLInputElement) => i.validationMessage)).toBe("Use lower-case letters, digits and hyphens, e.g. acme-status");
    await page.getByText("Address (slug) must use lower-case letters, digits and hyphens, e.g. acme-status").waitFor({ timeout: 5_000 });
    // The address shown is not one the page could have.
    expect(await page.getByText("/status/Acme Status!").count()).toBe(0);
    expect(new URL(page.url()).pathname).toBe("/status-pages");
    await slug.fill("acme-status");
    expect(await slug.evaluate((i: HTMLInputElement) => i.validationMessage)).toBe("");
    await page.getByRole("button", { name: "Create status page" }).click();
    await page.getByRole("link", { name: "View public page" }).waitFor({ timeout: 10_000 });
  });
});
