import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import * as OTPAuth from "otpauth";
import { client, signUp } from "../support/api.ts";
import { type JourneyEnv, SETUP_TIMEOUT_MS, startJourney } from "./journey-support.ts";

// What each role is offered in the dashboard, the 2FA step of signing in, and the invited sign-up form.
let env: JourneyEnv;
const stamp = Date.now().toString(36);
const password = "correct horse battery";
let owner: Awaited<ReturnType<typeof signUp>>;
let totp: OTPAuth.TOTP;
const admin = { name: "Ada Admin", email: `ada-${stamp}@example.test` };
const viewer = { name: "Val Viewer", email: `val-${stamp}@example.test` };
let lastStep = -1;

/** A code of a later step than the last one used (the server takes each step once). */
async function freshCode() {
  const step = Math.max(totp.counter(), lastStep + 1);
  while (step > totp.counter() + 1) await Bun.sleep(1000);
  lastStep = step;
  return totp.generate({ timestamp: step * totp.period * 1000 });
}

/** Invites `who` as `role` and signs them up with the invitation's token (they belong to this organisation only). */
async function join(who: { name: string; email: string }, role: string) {
  const inv = await owner.call("POST", "/api/v1/org/invitations", { email: who.email, role_id: role });
  expect(inv.status).toBe(201);
  const res = await client(env.base)("POST", "/api/v1/auth/signup", { email: who.email, password, name: who.name, invitation_token: inv.body.token });
  expect(res.status).toBe(201);
}

async function signInAs(email: string) {
  const { page } = env;
  await page.context().clearCookies();
  await page.goto(`${env.base}/signin`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.getByRole("navigation", { name: "Main" }).waitFor();
}

const optionTexts = (select: ReturnType<JourneyEnv["page"]["getByLabel"]>) => select.locator("option").allTextContents();

beforeAll(async () => {
  env = await startJourney("team-permissions");
  owner = await signUp(env.base, `olga-${stamp}@example.test`, password);
  // Room for the four people of this file (the free plan holds fewer members).
  await env.db.sql`update organisations set plan_id = 'business' where id = ${owner.orgId}`;
  expect((await owner.call("POST", "/api/v1/org/roles", { name: "Billing lead", permissions: ["billing:manage", "monitors:read"] })).status).toBe(201);
  expect((await owner.call("POST", "/api/v1/monitors", { name: "Home", type: "http", config: { url: "http://127.0.0.1:9/" } })).status).toBe(201);
  await join(admin, "admin");
  await join(viewer, "viewer");
  const setup = await owner.call("POST", "/api/v1/user/2fa/setup");
  totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(setup.body.secret), digits: 6, period: 30, algorithm: "SHA1" });
  expect((await owner.call("POST", "/api/v1/user/2fa/enable", { code: await freshCode() })).status).toBe(200);
}, SETUP_TIMEOUT_MS);
afterAll(() => env?.stop(), 30_000);

describe("signing in with 2FA", () => {
  it("asks for the code with a neutral prompt, not an error with 'Sign in again'", async () => {
    const { page } = env;
    await page.goto(`${env.base}/signin`);
    await page.getByLabel("Email").fill(owner.email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByLabel("Authentication code").waitFor();
    await page.getByRole("status").filter({ hasText: "enter the code from your authenticator app" }).waitFor();
    expect(await page.getByRole("alert").count()).toBe(0);
    expect(await page.getByText("Two-factor code required").count()).toBe(0);
    expect(await page.getByRole("link", { name: "Sign in again" }).count()).toBe(0);
    await page.getByLabel("Authentication code").fill(await freshCode());
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByRole("navigation", { name: "Main" }).waitFor();
  }, 60_000);
});

describe("a viewer", () => {
  it("is not offered New monitor, the new monitor form or the add-channel form", async () => {
    const { page } = env;
    await signInAs(viewer.email);
    await page.goto(`${env.base}/monitors`);
    await page.getByRole("heading", { name: "Monitors" }).waitFor();
    await page.getByText("Home").first().waitFor();
    expect(await page.getByRole("link", { name: "New monitor" }).count()).toBe(0);
    await page.goto(`${env.base}/monitors/new`);
    await page.getByRole("heading", { name: "Not available with your role" }).waitFor();
    expect(await page.getByRole("button", { name: /Create|Save/ }).count()).toBe(0);
    await page.goto(`${env.base}/alert-channels`);
    await page.getByRole("heading", { name: "Alert channels" }).waitFor();
    await page.getByRole("heading", { name: "Where should alerts go?" }).waitFor();
    expect(await page.getByRole("heading", { name: "Add a channel" }).count()).toBe(0);
  }, 60_000);
});

describe("an admin", () => {
  it("is offered only roles within their own permissions: no Owner, no billing role, no select on the owner's row", async () => {
    const { page } = env;
    await signInAs(admin.email);
    await page.goto(`${env.base}/org`);
    await page.getByRole("heading", { name: "Members" }).waitFor();
    const invite = page.getByRole("form", { name: "Invite someone" }).getByLabel("Role");
    const offered = await optionTexts(invite);
    expect(offered).toContain("Member");
    expect(offered).not.toContain("Owner");
    expect(offered).not.toContain("Billing lead");
    expect(await page.getByLabel("Role of Test User").count()).toBe(0);
    const viewerRole = await optionTexts(page.getByLabel(`Role of ${viewer.name}`));
    expect(viewerRole).toContain("Viewer");
    expect(viewerRole).not.toContain("Owner");
    expect(viewerRole).not.toContain("Billing lead");
  }, 60_000);
});

describe("an invited person signing up", () => {
  it("finds the invited address filled in", async () => {
    const { page } = env;
    const email = `newcomer-${stamp}@example.test`;
    const inv = await owner.call("POST", "/api/v1/org/invitations", { email, role_id: "member" });
    expect(inv.status).toBe(201);
    await page.context().clearCookies();
    await page.goto(inv.body.accept_url.replace(/^https?:\/\/[^/]+/, env.base));
    await page.getByRole("heading", { name: "You are invited" }).waitFor();
    await page.getByRole("link", { name: "Create an account" }).click();
    await page.getByRole("heading", { name: "Create your account" }).waitFor();
    expect(await page.getByLabel("Email").inputValue()).toBe(email);
  }, 60_000);
});
