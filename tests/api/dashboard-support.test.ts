import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import * as OTPAuth from "otpauth";
import { client, signUp, startTestApi, type TestApi } from "../support/api.ts";

// Reads the dashboard needs beyond CRUD: runner install settings, the scopes a user may grant,
// and whether an organisation's policy asks the user for 2FA.
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ RUNNER_IMAGE_REGISTRY: "ghcr.io/acme/watchpost", PUBLIC_BASE_URL: "https://watch.example.test" });
});
afterAll(() => api.stop());

let n = 0;
const newEmail = (tag: string) => `${tag}-${Date.now().toString(36)}-${++n}@example.test`;

/** A second user who joined `owner`'s organisation with `roleId`, calling with X-Org-Id of that organisation. */
async function joinedMember(owner: Awaited<ReturnType<typeof signUp>>, roleId: string) {
  const email = newEmail("member");
  const inv = await owner.call("POST", "/api/v1/org/invitations", { email, role_id: roleId });
  expect(inv.status).toBe(201);
  const member = await signUp(api.url, email);
  expect((await member.call("POST", "/api/v1/invitations/accept", { token: inv.body.token })).status).toBe(200);
  return { ...member, inOrg: client(api.url, { cookie: member.cookie, csrf: member.csrf, headers: { "x-org-id": owner.orgId } }) };
}

describe("GET /runners/setup", () => {
  it("answers the API URL, the configured image registry and the five image variants with their BROWSERS value", async () => {
    const owner = await signUp(api.url);
    const res = await owner.call("GET", "/api/v1/runners/setup");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      api_url: "https://watch.example.test",
      image_registry: "ghcr.io/acme/watchpost",
      variants: [
        { id: "standard", browsers: "none" },
        { id: "chromium", browsers: "chromium" },
        { id: "firefox", browsers: "firefox" },
        { id: "webkit", browsers: "webkit" },
        { id: "full", browsers: "all" },
      ],
    });
  });

  it("needs runners:read like the rest of /runners", async () => {
    const owner = await signUp(api.url);
    const role = await owner.call("POST", "/api/v1/org/roles", { name: "Monitors only", permissions: ["monitors:read"] });
    const member = await joinedMember(owner, role.body.id);
    const res = await member.inOrg("GET", "/api/v1/runners/setup");
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("PERMISSION_DENIED");
  });
});

describe("GET /api-keys/scopes", () => {
  it("offers an owner every scope", async () => {
    const owner = await signUp(api.url);
    const res = await owner.call("GET", "/api/v1/api-keys/scopes");
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(res.body.all);
    expect(res.body.all).toContain("org:admin");
  });

  it("offers a member with a custom role only what the role holds, and the API refuses more", async () => {
    const owner = await signUp(api.url);
    const role = await owner.call("POST", "/api/v1/org/roles", { name: "Status editor", permissions: ["status_pages:read", "status_pages:write", "incidents:read", "api_keys:write"] });
    const member = await joinedMember(owner, role.body.id);
    const res = await member.inOrg("GET", "/api/v1/api-keys/scopes");
    expect(res.body.data).toEqual(["status_pages:read", "status_pages:write", "incidents:read", "api_keys:write"]);
    expect((await member.inOrg("POST", "/api/v1/api-keys", { name: "too much", scopes: ["monitors:write"] })).status).toBe(403);
    expect((await member.inOrg("POST", "/api/v1/api-keys", { name: "fine", scopes: ["incidents:read"] })).status).toBe(201);
  });

  it("offers a key calling it only the scopes the key itself carries", async () => {
    const owner = await signUp(api.url);
    const key = await owner.call("POST", "/api/v1/api-keys", { name: "narrow", scopes: ["runners:read", "monitors:read", "api_keys:write"] });
    const res = await client(api.url, { key: key.body.key })("GET", "/api/v1/api-keys/scopes");
    expect(res.body.data).toEqual(["monitors:read", "runners:read", "api_keys:write"]);
  });
});

describe("GET /orgs two_factor_required", () => {
  it("tells a member without 2FA that the organisation's policy now requires it", async () => {
    const owner = await signUp(api.url);
    const member = await joinedMember(owner, "member");
    const before = await member.call("GET", "/api/v1/orgs");
    expect(before.body.data.find((o: { id: string }) => o.id === owner.orgId).two_factor_required).toBe(false);
    // Turning the policy on needs 2FA on the owner's own account.
    const setup = await owner.call("POST", "/api/v1/user/2fa/setup");
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(setup.body.secret), digits: 6, period: 30, algorithm: "SHA1" });
    expect((await owner.call("POST", "/api/v1/user/2fa/enable", { code: totp.generate() })).status).toBe(200);
    expect((await owner.call("PATCH", "/api/v1/org/security-policy", { require_2fa: true })).status).toBe(200);
    const after = await member.call("GET", "/api/v1/orgs");
    expect(after.body.data.find((o: { id: string }) => o.id === owner.orgId).two_factor_required).toBe(true);
    expect(after.body.data.find((o: { id: string }) => o.id === member.orgId).two_factor_required).toBe(false);
    const blocked = await member.inOrg("GET", "/api/v1/monitors");
    expect(blocked.status).toBe(403);
    expect(blocked.body.details.reason).toBe("two_factor_required");
  });
});

describe("DELETE /user", () => {
  it("clears the session cookies along with the account, so the browser holds no dead session", async () => {
    const user = await signUp(api.url);
    const res = await user.call("DELETE", "/api/v1/user", { password: user.password });
    expect(res.status).toBe(200);
    const cleared = res.headers.getSetCookie();
    expect(cleared.some((c) => c.startsWith("wp_session=;") && c.includes("Max-Age=0"))).toBe(true);
    expect(cleared.some((c) => c.startsWith("wp_csrf=;") && c.includes("Max-Age=0"))).toBe(true);
  });

  it("keeps the cookies when the password is wrong", async () => {
    const user = await signUp(api.url);
    const res = await user.call("DELETE", "/api/v1/user", { password: "not the password" });
    expect(res.status).toBe(401);
    expect(res.headers.getSetCookie()).toEqual([]);
  });
});
