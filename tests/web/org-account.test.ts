import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import * as OTPAuth from "otpauth";
import { injectScript } from "./browser.ts";
import { apiCall, captureScreen, JSQR_PATH, nav, type JourneyEnv, signUpInBrowser, startJourney, waitOrShoot, SETUP_TIMEOUT_MS } from "./journey-support.ts";

let env: JourneyEnv;
const stamp = Date.now().toString(36);
const owner = { name: "Olga", email: `olga-${stamp}@example.test`, password: "correct horse battery" };
const member = { name: "Vic", email: `vic-${stamp}@example.test`, password: "another long password" };
let ownerTotp: OTPAuth.TOTP;
const lastStep = new Map<string, number>();

/**
 * A code of a step later than the last one used with this secret: the server takes a code once, and only of a
 * later step (±1 step of now). The next step's code is valid now, so a second code within a step needs no wait.
 */
async function freshCode(totp: OTPAuth.TOTP) {
  const key = totp.secret.base32;
  const step = Math.max(totp.counter(), (lastStep.get(key) ?? -1) + 1);
  while (step > totp.counter() + 1) await Bun.sleep(1000);
  lastStep.set(key, step);
  return totp.generate({ timestamp: step * totp.period * 1000 });
}

const orgNav = (name: string) => env.page.getByRole("navigation", { name: "Organisation" }).getByRole("link", { name, exact: true }).click();
const accountNav = (name: string) => env.page.getByRole("navigation", { name: "Account" }).getByRole("link", { name, exact: true }).click();

/** Signs out, and checks the screens that were showing asked nothing more of the API (a burst of 401s once). */
async function signOut() {
  const before = env.errors.length;
  await env.page.getByRole("button", { name: "Sign out" }).click();
  await env.page.getByRole("heading", { name: "Sign in", exact: true }).waitFor();
  await env.page.waitForLoadState("networkidle");
  expect(env.errors.slice(before)).toEqual([]);
}

async function signIn(who: { email: string; password: string }, totp?: OTPAuth.TOTP) {
  const { page } = env;
  await page.getByLabel("Email").fill(who.email);
  await page.getByLabel("Password").fill(who.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  if (totp) {
    await page.getByLabel("Authentication code").fill(await freshCode(totp));
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
  }
  await page.getByRole("navigation", { name: "Main" }).waitFor();
  // The first attempt of a 2FA account answers 401 asking for the code, as designed.
  if (totp) {
    const expected = (e: string) => e === `http 401: POST ${env.base}/api/v1/auth/signin` || (e.startsWith("console: Failed to load resource") && e.includes("401"));
    env.errors.splice(0, env.errors.length, ...env.errors.filter((e) => !expected(e)));
  }
}

/** Reads the QR code on the page back (jsQR on a canvas copy of the SVG) and returns its text. */
async function decodeQr(): Promise<string> {
  const { page } = env;
  await page.getByTestId("totp-qr").waitFor();
  await injectScript(page, JSQR_PATH);
  return page.evaluate(async () => {
    const svg = document.querySelector("[data-testid=totp-qr]") as SVGSVGElement;
    const img = new Image();
    img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(new XMLSerializer().serializeToString(svg))}`;
    await img.decode();
    const canvas = document.createElement("canvas");
    canvas.width = canvas.height = 400;
    const ctx = canvas.getContext("2d")!;
    ctx.fillStyle = "#fff";
    ctx.fillRect(0, 0, 400, 400);
    ctx.drawImage(img, 0, 0, 400, 400);
    const pixels = ctx.getImageData(0, 0, 400, 400);
    const jsQR = (window as unknown as { jsQR: (d: Uint8ClampedArray, w: number, h: number) => { data: string } | null }).jsQR;
    return jsQR(pixels.data, 400, 400)?.data ?? "";
  });
}

beforeAll(async () => {
  env = await startJourney("org-account");
  await signUpInBrowser(env, owner.name, owner.email, owner.password);
}, SETUP_TIMEOUT_MS);
afterAll(() => env?.stop(), 30_000);

describe("organisation", () => {
  it("lists the owner as the only member and renames the organisation", async () => {
    const { page } = env;
    await nav(page, "Organisation");
    await page.getByRole("row", { name: /Olga.* \(you\)/ }).waitFor();
    await page.getByRole("heading", { name: "No pending invitations" }).waitFor();
    await captureScreen(page, "p2-org-01-members");
    await page.getByLabel("Organisation name").fill("Olga & Co");
    await page.getByRole("button", { name: "Rename" }).click();
    await page.getByRole("status").filter({ hasText: "Saved" }).waitFor();
    expect((await apiCall(env, "GET", "/api/v1/org")).name).toBe("Olga & Co");
    expect(env.errors).toEqual([]);
  }, 30_000);

  it("creates a custom role from the permission matrix and edits it in place", async () => {
    const { page } = env;
    await orgNav("Roles");
    const matrix = page.getByTestId("permission-matrix");
    await matrix.waitFor();
    // System roles are read-only.
    expect(await matrix.getByRole("checkbox", { name: "Viewer: Monitors: read" }).isDisabled()).toBe(true);
    expect(await matrix.getByRole("checkbox", { name: "Viewer: Monitors: read" }).isChecked()).toBe(true);
    const form = page.getByRole("form", { name: "New custom role" });
    await form.getByLabel("Role name").fill("Status editor");
    for (const p of ["Monitors: read", "Status pages: read", "Status pages: change", "Incidents: read", "API keys: manage"]) await form.getByRole("checkbox", { name: p, exact: true }).check();
    await form.getByRole("button", { name: "Create role" }).click();
    await page.getByText("Created Status editor.").waitFor();
    const cell = matrix.getByRole("checkbox", { name: "Status editor: Incidents: change" });
    expect(await cell.isDisabled()).toBe(false);
    await cell.check();
    await page.getByRole("button", { name: "Save Status editor" }).click();
    await page.getByText("Saved Status editor.").waitFor();
    const roles = (await apiCall(env, "GET", "/api/v1/org/roles")).data as { name: string; permissions: string[] }[];
    expect(roles.find((r) => r.name === "Status editor")!.permissions.sort()).toEqual(["api_keys:write", "incidents:read", "incidents:write", "monitors:read", "status_pages:read", "status_pages:write"]);
    await captureScreen(page, "p2-org-02-roles");
    expect(env.errors).toEqual([]);
  }, 30_000);

  it("invites a colleague with the custom role", async () => {
    const { page } = env;
    await orgNav("Members");
    await page.getByLabel("Email to invite").fill(member.email);
    await page.getByLabel("Role", { exact: true }).selectOption({ label: "Status editor" });
    await page.getByRole("button", { name: "Send invitation" }).click();
    await page.getByText(`Invitation sent to ${member.email}.`).waitFor();
    await page.getByTestId("invitations").getByRole("row", { name: new RegExp(member.email) }).getByText("Status editor").waitFor();
    await captureScreen(page, "p2-org-03-invited");
    expect(env.errors).toEqual([]);
  }, 30_000);

  it("creates an API key shown once, offering every scope to the owner, and revokes it", async () => {
    const { page } = env;
    await orgNav("API keys");
    await page.getByRole("heading", { name: "No API keys" }).waitFor();
    const scopes = page.getByTestId("scopes").getByRole("checkbox");
    expect(await scopes.count()).toBe(12);
    await page.getByLabel("Key name").fill("CI deploys");
    await page.getByRole("checkbox", { name: /Monitors: read/ }).check();
    await page.getByRole("button", { name: "Create key" }).click();
    const key = (await page.getByTestId("secret-value").textContent())!;
    expect(key).toMatch(/_live_/);
    await captureScreen(page, "p2-org-04-api-key-once");
    // The key works, with its scope only.
    const res = await fetch(`${env.base}/api/v1/monitors`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    expect((await fetch(`${env.base}/api/v1/runners`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(403);
    await page.getByRole("button", { name: "I have saved the key" }).click();
    expect(await page.getByTestId("secret-value").count()).toBe(0);
    const row = page.getByRole("row", { name: /CI deploys/ });
    expect(await row.textContent()).not.toContain(key);
    await row.getByText("monitors:read").waitFor();
    await page.getByRole("button", { name: "Revoke CI deploys" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Revoke key" }).click();
    await row.waitFor({ state: "detached" });
    expect((await fetch(`${env.base}/api/v1/monitors`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(401);
    expect(env.errors).toEqual([]);
  }, 30_000);

  it("filters the audit log", async () => {
    const { page } = env;
    await orgNav("Audit log");
    const log = page.getByTestId("audit-log");
    await log.waitFor();
    expect(await log.locator("li").count()).toBeGreaterThan(3);
    // Entries read as sentences; the raw record opens beneath one.
    const created = log.locator('li[data-action="api_keys.create"]').first();
    expect(await created.locator("summary").textContent()).toMatch(/created API key CI deploys/);
    await created.locator("summary").click();
    await created.getByText('"method": "POST"').waitFor();
    await page.getByLabel("Action").fill("api_keys");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForFunction(() => [...document.querySelectorAll("[data-testid=audit-log] li")].every((li) => li.getAttribute("data-action")!.startsWith("api_keys")));
    const actions = await log.locator("li").evaluateAll((lis) => lis.map((li) => li.getAttribute("data-action")!));
    expect(actions.length).toBeGreaterThanOrEqual(2);
    expect(actions.every((a) => a.startsWith("api_keys"))).toBe(true);
    await captureScreen(page, "p2-org-05-audit-filtered");
    await page.getByLabel("From").fill("2099-01-01T00:00");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.getByRole("heading", { name: "Nothing matches these filters" }).waitFor();
    await page.getByRole("button", { name: "Clear" }).click();
    await log.waitFor();
    expect(env.errors).toEqual([]);
  }, 30_000);
});

describe("account", () => {
  it("renames the user, asking for the current password only when the email changes", async () => {
    const { page } = env;
    await page.getByRole("link", { name: "Account", exact: true }).click();
    const form = page.getByRole("form", { name: "Profile" });
    await form.waitFor();
    expect(await form.getByLabel("Current password").count()).toBe(0);
    await form.getByLabel("Email").fill(`other-${owner.email}`);
    await form.getByLabel("Current password").waitFor();
    await form.getByLabel("Email").fill(owner.email);
    expect(await form.getByLabel("Current password").count()).toBe(0);
    await form.getByLabel("Your name").fill("Olga Petrova");
    await form.getByRole("button", { name: "Save profile" }).click();
    await form.getByRole("status").filter({ hasText: "Saved" }).waitFor();
    expect((await apiCall(env, "GET", "/api/v1/user")).name).toBe("Olga Petrova");
    expect(env.errors).toEqual([]);
  }, 30_000);

  it("sets up two-factor authentication from a QR code that carries the secret", async () => {
    const { page } = env;
    await page.getByRole("heading", { name: "Account" }).waitFor();
    await captureScreen(page, "p2-account-01-profile");
    await accountNav("Two-factor authentication");
    await page.getByRole("button", { name: "Set up two-factor authentication" }).click();
    await page.getByTestId("totp-qr").waitFor();
    const secret = (await page.getByTestId("totp-secret").textContent())!;
    const url = await decodeQr();
    expect(url).toStartWith("otpauth://totp/");
    expect(new URL(url).searchParams.get("secret")).toBe(secret);
    await captureScreen(page, "p2-account-02-2fa-qr");
    ownerTotp = OTPAuth.URI.parse(url) as OTPAuth.TOTP;
    await page.getByLabel("Code from your app").fill(await freshCode(ownerTotp));
    await page.getByRole("button", { name: "Turn on" }).click();
    await page.getByTestId("2fa-state").filter({ hasText: "on" }).waitFor();
    expect((await apiCall(env, "GET", "/api/v1/user")).two_factor_enabled).toBe(true);
    // The ten recovery codes are shown once, with copy and download, until the user says they are saved.
    const codes = await page.getByTestId("recovery-codes").locator("code").allTextContents();
    expect(codes).toHaveLength(10);
    expect(await page.getByRole("button", { name: "Download .txt" }).isVisible()).toBe(true);
    await captureScreen(page, "p2-account-03-2fa-recovery-codes");
    await page.getByRole("checkbox", { name: /I have saved these codes/ }).check();
    await page.getByRole("button", { name: "Done" }).click();
    await page.getByRole("button", { name: "Generate new recovery codes" }).waitFor();
    expect(await page.getByTestId("recovery-codes").count()).toBe(0);
    expect(env.errors).toEqual([]);
  }, 30_000);

  it("makes 2FA mandatory for the organisation", async () => {
    const { page } = env;
    await nav(page, "Organisation");
    await orgNav("Security");
    const toggle = page.getByLabel("Require two-factor authentication for every member");
    expect(await toggle.isDisabled()).toBe(false);
    await toggle.check();
    for (let i = 0; i < 50 && !(await apiCall(env, "GET", "/api/v1/org/security-policy")).require_2fa; i++) await Bun.sleep(100);
    expect((await apiCall(env, "GET", "/api/v1/org/security-policy")).require_2fa).toBe(true);
    expect(await toggle.isChecked()).toBe(true);
    await captureScreen(page, "p2-org-06-security");
    expect(env.errors).toEqual([]);
  }, 30_000);

  it("lists sessions and signs another one out", async () => {
    const { page } = env;
    // A second session, from another client.
    const other = await fetch(`${env.base}/api/v1/auth/signin`, {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": "curl/8.5.0" },
      body: JSON.stringify({ email: owner.email, password: owner.password, totp_code: await freshCode(ownerTotp) }),
    });
    expect(other.status).toBe(200);
    const cookie = other.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
    await page.getByRole("link", { name: "Account", exact: true }).click();
    await accountNav("Sessions");
    const rows = page.getByTestId("sessions").locator("tbody tr");
    await rows.nth(1).waitFor();
    await page.locator("tr[data-current=true]").getByText("this session").waitFor();
    await captureScreen(page, "p2-account-03-sessions");
    await page.getByRole("button", { name: /^Sign out curl/ }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Sign out" }).click();
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=sessions] tbody tr").length === 1);
    expect((await fetch(`${env.base}/api/v1/user`, { headers: { cookie } })).status).toBe(401);
    expect(env.errors).toEqual([]);
  }, 60_000);

  it("downloads a data export", async () => {
    const { page } = env;
    await accountNav("Data and deletion");
    const download = page.waitForEvent("download");
    await page.getByRole("button", { name: "Download my data" }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^watchpost-export-\d{4}-\d\d-\d\d\.json$/);
    const json = JSON.parse(readFileSync((await file.path())!, "utf8"));
    expect(json.user.email).toBe(owner.email);
    expect(JSON.stringify(json)).not.toContain("password_hash");
    await captureScreen(page, "p2-account-04-data");
    expect(env.errors).toEqual([]);
  }, 30_000);
});

describe("a member", () => {
  it("accepts the invitation after signing up, and is held at the 2FA policy until they set it up", async () => {
    const { page } = env;
    await signOut();
    await page.getByRole("link", { name: "Create an account" }).click();
    await page.getByLabel("Your name").fill(member.name);
    await page.getByLabel("Email").fill(member.email);
    await page.getByLabel("Password").fill(member.password);
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL(/\/monitors/);
    // Nobody proved this address at sign-up, so invitations to it are not offered: the emailed link is the proof.
    const mail = env.server.lines.find((l) => l.op === "mail.send" && l.to === member.email) as { text: string } | undefined;
    const token = new URL(/https?:\/\/\S+\/invitations\/accept\?token=\S+/.exec(mail!.text)![0]).searchParams.get("token")!;
    await page.goto(`${env.base}/invitations/accept?token=${encodeURIComponent(token)}`);
    await page.getByRole("heading", { name: "Join an organisation" }).waitFor();
    await captureScreen(page, "p2-member-01-invitation");
    await page.getByRole("button", { name: "Accept invitation" }).click();
    // In Olga's organisation now, which requires 2FA: every screen says so and the API refuses.
    await waitOrShoot(env, page.getByTestId("two-factor-banner"), "two-factor-banner");
    expect(await page.getByLabel("Organisation").locator("option:checked").textContent()).toBe("Olga & Co");
    await captureScreen(page, "p2-member-02-2fa-required");
    expect(env.errors.filter((e) => !/403/.test(e))).toEqual([]);
    env.errors.length = 0;

    await page.getByTestId("two-factor-banner").getByRole("link", { name: "Set up two-factor authentication" }).click();
    await page.getByRole("button", { name: "Set up two-factor authentication" }).click();
    const totp = OTPAuth.URI.parse(await decodeQr()) as OTPAuth.TOTP;
    await page.getByLabel("Code from your app").fill(await freshCode(totp));
    await page.getByRole("button", { name: "Turn on" }).click();
    await page.getByTestId("2fa-state").filter({ hasText: "on" }).waitFor();
    await page.getByTestId("two-factor-banner").waitFor({ state: "detached" });
    await page.getByRole("checkbox", { name: /I have saved these codes/ }).check();
    await page.getByRole("button", { name: "Done" }).click();
    await nav(page, "Status pages");
    await page.getByRole("heading", { name: "Status pages" }).waitFor();
    expect(env.errors).toEqual([]);
  }, 60_000);

  it("offers the member only the scopes of their role for API keys", async () => {
    const { page } = env;
    await nav(page, "Organisation");
    await page.getByRole("row", { name: /Vic \(you\)/ }).getByText("Status editor").waitFor();
    // Not an admin: no role changes, no invitations.
    expect(await page.getByRole("heading", { name: "Invitations" }).count()).toBe(0);
    await orgNav("API keys");
    await page.getByTestId("scopes").waitFor();
    const offered = await page.getByTestId("scopes").locator("input[type=checkbox]").evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value));
    expect(offered).toEqual(["monitors:read", "status_pages:read", "status_pages:write", "incidents:read", "incidents:write", "api_keys:write"]);
    await page.getByText("Only the scopes your role holds are offered.").waitFor();
    await captureScreen(page, "p2-member-03-api-key-scopes");
    await orgNav("Audit log");
    await page.getByText("Only administrators can read the audit log.").waitFor();
    expect(env.errors).toEqual([]);
  }, 30_000);

  it("deletes their account and lands signed out", async () => {
    const { page } = env;
    await page.getByRole("link", { name: "Account", exact: true }).click();
    await accountNav("Data and deletion");
    await page.getByLabel("Your password").fill(member.password);
    await page.getByRole("button", { name: "Delete my account" }).click();
    await captureScreen(page, "p2-member-04-delete-dialog");
    await page.getByRole("dialog").getByRole("button", { name: "Delete account" }).click();
    await page.getByRole("heading", { name: "Sign in", exact: true }).waitFor();
    const again = await fetch(`${env.base}/api/v1/auth/signin`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: member.email, password: member.password }) });
    expect(again.status).toBe(401);
    expect(env.errors).toEqual([]);

    // Olga's organisation lost a member, not its data.
    await signIn(owner, ownerTotp);
    await nav(page, "Organisation");
    await page.getByRole("row", { name: /Olga.* \(you\)/ }).waitFor();
    expect(await page.getByTestId("members").locator("tbody tr").count()).toBe(1);
    expect(env.errors).toEqual([]);
  }, 60_000);
});

describe("an emailed invitation link", () => {
  it("welcomes a signed-out visitor, whose new account joins the organisation from it", async () => {
    const { page } = env;
    const wes = { email: `wes-${stamp}@example.test`, password: "wes has a long password" };
    await orgNav("Members");
    await page.getByLabel("Email to invite").fill(wes.email);
    await page.getByRole("button", { name: "Send invitation" }).click();
    await page.getByText(`Invitation sent to ${wes.email}.`).waitFor();
    // The all-in-one mode's mailer writes messages to its log; the alerting role sends them from the outbox.
    const logged = () => env.server.lines.find((l) => l.op === "mail.send" && l.to === wes.email) as { text: string } | undefined;
    for (let i = 0; i < 200 && !logged(); i++) await Bun.sleep(50);
    const mail = logged();
    const link = /https?:\/\/\S+\/invitations\/accept\?token=\S+/.exec(mail!.text)![0];
    const token = new URL(link).searchParams.get("token")!;
    await signOut();

    await page.goto(`${env.base}/invitations/accept?token=${encodeURIComponent(token)}`);
    await page.getByRole("heading", { name: "You are invited" }).waitFor();
    await captureScreen(page, "p2-invite-01-signed-out");
    await page.getByRole("link", { name: "Create an account" }).click();
    await page.getByLabel("Your name").fill("Wes");
    await page.getByLabel("Email").fill(wes.email);
    await page.getByLabel("Password").fill(wes.password);
    await page.getByRole("button", { name: "Create account" }).click();
    // (Once missing in full runs: the sign-up was refused with 429 by the anonymous per-IP budget; the journeys now raise it.)
    // The sign-up carried the invitation's token: the account is a member of Olga & Co and has no organisation of its own.
    // Olga & Co requires 2FA, which Wes has not set up yet.
    await page.getByTestId("two-factor-banner").waitFor();
    await captureScreen(page, "p2-invite-02-joined");
    expect(await page.getByTestId("invitation-banner").count()).toBe(0);
    expect((await apiCall(env, "GET", "/api/v1/orgs")).data.map((o: { name: string }) => o.name)).toEqual(["Olga & Co"]);
    expect(env.errors.filter((e) => !/403/.test(e))).toEqual([]);
  }, 60_000);
});
