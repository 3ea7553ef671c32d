import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { Page } from "playwright-core";
import { client, makeOrg, startTestApi, type TestApi } from "../support/api.ts";
import { startTestOidcProvider, type TestOidcProvider } from "../support/oidc-provider.ts";
import { launchChromium, screenshot, watchConsole } from "./browser.ts";
import { checkA11y } from "./journey-support.ts";

let api: TestApi;
let idp: TestOidcProvider;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let page: Page;
let consoleErrors: string[];
let owner: Awaited<ReturnType<typeof makeOrg>>;
const tag = Date.now().toString(36);
const domain = `sso-${tag}.example`;

beforeAll(async () => {
  api = await startTestApi({ ALLOW_PRIVATE_IPS: "true" });
  idp = await startTestOidcProvider(`${api.url}/api/v1/auth/sso/callback`);
  owner = await makeOrg(api.sql, "pro");
  chromium = await launchChromium({ width: 1440, height: 900 });
  page = chromium.context.pages()[0] ?? (await chromium.context.newPage());
  consoleErrors = watchConsole(page);
}, 120_000);

afterAll(async () => {
  await chromium?.close();
  await idp?.stop();
  await api?.stop();
}, 30_000);

describe("single sign-on in the dashboard", () => {
  it("an owner configures the provider, tests the connection and turns SSO on", async () => {
    const signin = await chromium.context.request.post(`${api.url}/api/v1/auth/signin`, { data: { email: owner.email, password: owner.password } });
    expect(signin.status()).toBe(200);
    await page.goto(`${api.url}/org/sso`);
    await page.getByRole("heading", { name: "Single sign-on" }).waitFor();
    await expect(page.getByTestId("sso-redirect-uri").textContent()).resolves.toBe(`${api.url}/api/v1/auth/sso/callback`);
    await page.getByLabel("SSO name").fill(`acme-${tag}`);
    await page.getByLabel("Issuer URL").fill(idp.issuer);
    await page.getByLabel("Client ID").fill(idp.clientId);
    await page.getByLabel("Client secret").fill(idp.clientSecret);
    await page.getByLabel("Allowed email domains (optional)").fill(domain);
    await page.getByLabel("Role for new members").selectOption("viewer");
    await page.getByRole("button", { name: "Test connection" }).click();
    await page.getByTestId("sso-test-result").getByText(`Connected to ${idp.issuer}.`).waitFor({ timeout: 10_000 });
    await page.getByRole("button", { name: "Turn on single sign-on" }).click();
    await page.getByRole("status").getByText("Saved.").waitFor();
    // Saved: the secret field is empty again and says the stored one is kept.
    await expect(page.getByLabel("Client secret").inputValue()).resolves.toBe("");
    await page.screenshot({ path: `/tmp/sso-settings.png` });
    await screenshot(page, "sso-settings");
    await checkA11y(page, "organisation single sign-on");
    const [row] = await api.sql<{ slug: string; default_role_id: string; allowed_domains: string[] }[]>`select slug, default_role_id, allowed_domains from org_sso_configs where org_id = ${owner.org_id}`;
    expect(row).toEqual({ slug: `acme-${tag}`, default_role_id: "viewer", allowed_domains: [domain] });
  }, 60_000);

  it("the owner, signed in with a password, links their account to single sign-on from Account, then signs in with it", async () => {
    const idpEmail = `owner-${tag}@${domain}`;
    idp.addAccount({ sub: `owner-${tag}`, email: idpEmail, email_verified: true, name: "Owner" });
    await page.goto(`${api.url}/account`);
    await page.getByRole("heading", { name: "Single sign-on" }).waitFor();
    await page.getByRole("button", { name: "Link my account to single sign-on" }).click();
    await page.getByRole("heading", { name: "Test identity provider" }).waitFor({ timeout: 15_000 });
    await page.getByLabel("Email").fill(idpEmail);
    await page.getByRole("button", { name: "Continue" }).click();
    await page.waitForURL(`${api.url}/account?sso=linked`, { timeout: 15_000 });
    await page.getByRole("status").getByText("Linked: you can now sign in").waitFor();
    await page.screenshot({ path: `/tmp/sso-linked.png` });

    // Signed out, Sign in with SSO now signs in as the owner's account (a session for this organisation only).
    await chromium.context.clearCookies();
    await page.goto(`${api.url}/signin`);
    await page.getByRole("button", { name: "Sign in with SSO" }).click();
    await page.getByLabel("Work email or SSO name").fill(`acme-${tag}`);
    await page.getByRole("button", { name: "Continue with SSO" }).click();
    await page.getByRole("heading", { name: "Test identity provider" }).waitFor({ timeout: 15_000 });
    await page.getByLabel("Email").fill(idpEmail);
    await page.getByRole("button", { name: "Continue" }).click();
    await page.waitForURL(`${api.url}/monitors`, { timeout: 15_000 });
    const me = await page.evaluate(() => fetch("/api/v1/user").then((r) => r.json()));
    expect(me.id).toBe(owner.user_id);
  }, 60_000);

  it("a new person signs in with SSO from the sign-in page and lands in the organisation as a viewer", async () => {
    await chromium.context.clearCookies();
    const email = `ada-${tag}@${domain}`;
    idp.addAccount({ sub: `ada-${tag}`, email, email_verified: true, name: "Ada Lovelace" });
    await page.goto(`${api.url}/signin`);
    await page.getByRole("button", { name: "Sign in with SSO" }).click();
    await page.getByLabel("Work email or SSO name").fill(email);
    await page.screenshot({ path: `/tmp/sso-signin.png` });
    await checkA11y(page, "sign in with SSO");
    await page.getByRole("button", { name: "Continue with SSO" }).click();
    // The provider's own login page, on its own origin.
    await page.getByRole("heading", { name: "Test identity provider" }).waitFor({ timeout: 15_000 });
    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "Continue" }).click();
    await page.waitForURL(`${api.url}/monitors`, { timeout: 15_000 });
    const me = await page.evaluate(() => fetch("/api/v1/user").then((r) => r.json()));
    expect(me).toMatchObject({ email, name: "Ada Lovelace" });
    const selected = await page.evaluate(() => localStorage.getItem("wp_org"));
    expect(selected).toBe(owner.org_id);
    const [member] = await api.sql<{ role_id: string }[]>`select m.role_id from memberships m join users u on u.id = m.user_id where u.email = ${email} and m.org_id = ${owner.org_id}`;
    expect(member?.role_id).toBe("viewer");
    // Only the "not configured yet" answer of the settings screen's first load (404) may appear as a console error.
    expect(consoleErrors.filter((e) => !e.includes("404"))).toEqual([]);
  }, 60_000);

  it("shows why a sign-in was refused when the provider's account is outside the allowed domains", async () => {
    await chromium.context.clearCookies();
    const email = `eve-${tag}@elsewhere-${tag}.example`;
    idp.addAccount({ sub: `eve-${tag}`, email, email_verified: true, name: "Eve" });
    await page.goto(`${api.url}/signin`);
    await page.getByRole("button", { name: "Sign in with SSO" }).click();
    await page.getByLabel("Work email or SSO name").fill(`acme-${tag}`);
    await page.getByRole("button", { name: "Continue with SSO" }).click();
    await page.getByRole("heading", { name: "Test identity provider" }).waitFor({ timeout: 15_000 });
    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByRole("alert").getByText("Your email domain may not sign in to this organisation.").waitFor({ timeout: 15_000 });
    expect(new URL(page.url()).pathname).toBe("/signin");
  }, 60_000);

  it("with require SSO, a member's password sign-in turns into Sign in with SSO, with the organisation filled in", async () => {
    await chromium.context.clearCookies();
    const key = client(api.url, { key: owner.api_key });
    const current = (await key("GET", "/api/v1/org/sso")).body;
    const { redirect_uri: _r, created_at: _c, updated_at: _u, ...body } = current;
    expect((await key("PUT", "/api/v1/org/sso", { ...body, require_sso: true })).status).toBe(200);
    // Signed up from the invitation: a member of this organisation only (one that also owns another signs in there).
    const member = { email: `grace-${tag}@${domain}`, password: "long enough password" };
    const invitation = await key("POST", "/api/v1/org/invitations", { email: member.email, role_id: "member" });
    const up = await fetch(`${api.url}/api/v1/auth/signup`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ ...member, name: "Grace", invitation_token: invitation.body.token }) });
    expect(up.status).toBe(201);

    await page.goto(`${api.url}/signin`);
    await page.getByLabel("Email").fill(member.email);
    await page.getByLabel("Password").fill(member.password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByRole("note").getByText("Your organisation requires single sign-on").waitFor({ timeout: 10_000 });
    await expect(page.getByLabel("Work email or SSO name").inputValue()).resolves.toBe(`acme-${tag}`);
  }, 60_000);
});
