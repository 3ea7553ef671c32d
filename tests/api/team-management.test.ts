import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import * as OTPAuth from "otpauth";
import { client, joinOrgAs, makeOrg, signUp, startTestApi, type TestApi } from "../support/api.ts";

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.stop());

type Call = ReturnType<typeof client>;

const joinAs = (owner: Call, orgId: string, role: string) => joinOrgAs(api.url, owner, orgId, role);

async function enableTotp(call: Call) {
  const setup = await call("POST", "/api/v1/user/2fa/setup");
  expect(setup.status).toBe(200);
  const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(setup.body.secret), digits: 6, period: 30, algorithm: "SHA1" });
  expect((await call("POST", "/api/v1/user/2fa/enable", { code: totp.generate() })).status).toBe(200);
}

describe("PATCH /org/security-policy require_2fa", () => {
  it("refuses a signed-in admin without 2FA (403 with a reason) and leaves the policy and their session as they were", async () => {
    const owner = await signUp(api.url);
    const res = await owner.call("PATCH", "/api/v1/org/security-policy", { require_2fa: true });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("PERMISSION_DENIED");
    expect(res.body.error).toMatch(/two-factor/i);
    expect(res.body.details).toEqual({ reason: "own_two_factor_required" });
    expect((await owner.call("GET", "/api/v1/org/security-policy")).body.require_2fa).toBe(false);
    expect((await owner.call("GET", "/api/v1/org")).status).toBe(200);
    // Turning it off stays possible (it is off already: a no-op).
    expect((await owner.call("PATCH", "/api/v1/org/security-policy", { require_2fa: false })).status).toBe(200);
  });

  it("lets an admin with 2FA turn it on, and keeps them in", async () => {
    const owner = await signUp(api.url);
    await enableTotp(owner.call);
    const res = await owner.call("PATCH", "/api/v1/org/security-policy", { require_2fa: true });
    expect(res.status).toBe(200);
    expect(res.body.require_2fa).toBe(true);
    expect((await owner.call("GET", "/api/v1/org")).status).toBe(200);
  });

  it("refuses an API key turning it on (a key has no second factor), but lets it turn it off", async () => {
    const org = await makeOrg(api.sql);
    const key = client(api.url, { key: org.api_key });
    const res = await key("PATCH", "/api/v1/org/security-policy", { require_2fa: true });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("PERMISSION_DENIED");
    expect(res.body.details).toEqual({ reason: "session_required" });
    expect((await key("GET", "/api/v1/org/security-policy")).body.require_2fa).toBe(false);
    await api.sql`insert into org_security_policies (org_id, require_2fa) values (${org.org_id}, true) on conflict (org_id) do update set require_2fa = true`;
    expect((await key("PATCH", "/api/v1/org/security-policy", { require_2fa: false })).body.require_2fa).toBe(false);
  });
});

describe("DELETE /org/roles/:id", () => {
  it("refuses an admin deleting a custom role that holds permissions they lack, as PATCH does, and lets them delete one within their own", async () => {
    const owner = await signUp(api.url);
    const mighty = await owner.call("POST", "/api/v1/org/roles", { name: "Co-owner", permissions: ["org:owner", "billing:manage"] });
    expect(mighty.status).toBe(201);
    const modest = await owner.call("POST", "/api/v1/org/roles", { name: "Readers", permissions: ["monitors:read"] });
    expect(modest.status).toBe(201);
    const admin = await joinAs(owner.call, owner.orgId, "admin");

    const patched = await admin.inOrg("PATCH", `/api/v1/org/roles/${mighty.body.id}`, { name: "Renamed" });
    expect(patched.status).toBe(403);
    const res = await admin.inOrg("DELETE", `/api/v1/org/roles/${mighty.body.id}`);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("PERMISSION_DENIED");
    expect(res.body.error).toBe("A role cannot carry permissions beyond your own");
    expect(res.body.details.permissions).toEqual(["org:owner", "billing:manage"]);
    expect((await owner.call("GET", `/api/v1/org/roles/${mighty.body.id}`)).status).toBe(200);

    expect((await admin.inOrg("DELETE", `/api/v1/org/roles/${modest.body.id}`)).status).toBe(204);
    expect((await owner.call("DELETE", `/api/v1/org/roles/${mighty.body.id}`)).status).toBe(204);
  });
});

describe("403 reasons the dashboard words without blaming the role", () => {
  it("tells a removed member they are in no organisation, with details.reason not_a_member", async () => {
    const owner = await signUp(api.url);
    // Signed up through the invitation: the account belongs to that one organisation only.
    const email = `invited-${Date.now()}@example.test`;
    const invite = await owner.call("POST", "/api/v1/org/invitations", { email, role_id: "member" });
    expect(invite.status).toBe(201);
    const signup = await fetch(`${api.url}/api/v1/auth/signup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password: "long enough password", name: "Invited", invitation_token: invite.body.token }),
    });
    expect(signup.status).toBe(201);
    const body = (await signup.json()) as { user: { id: string }; csrf_token: string };
    const member = { userId: body.user.id, call: client(api.url, { cookie: signup.headers.getSetCookie().map((c) => c.split(";")[0]).join("; "), csrf: body.csrf_token }) };
    expect((await member.call("GET", "/api/v1/monitors")).status).toBe(200);
    expect((await owner.call("DELETE", `/api/v1/org/members/${member.userId}`)).status).toBe(204);
    let res = await member.call("GET", "/api/v1/monitors");
    for (let i = 0; i < 50 && res.status !== 403; i++) {
      await Bun.sleep(100);
      res = await member.call("GET", "/api/v1/monitors");
    }
    expect(res.status).toBe(403);
    expect(res.body.error).toBe("You are not a member of any organisation");
    expect(res.body.details).toEqual({ reason: "not_a_member" });
  });

  it("gives the owner-only refusals details.reason owner_only", async () => {
    const owner = await signUp(api.url);
    const admin = await joinAs(owner.call, owner.orgId, "admin");
    const invite = await admin.inOrg("POST", "/api/v1/org/invitations", { email: `new-owner-${Date.now()}@example.test`, role_id: "owner" });
    expect(invite.status).toBe(403);
    expect(invite.body.error).toBe("Only an owner can invite another owner");
    expect(invite.body.details).toEqual({ reason: "owner_only" });
    const demote = await admin.inOrg("PATCH", `/api/v1/org/members/${owner.userId}`, { role_id: "viewer" });
    expect(demote.status).toBe(403);
    expect(demote.body.details).toEqual({ reason: "owner_only" });
    const remove = await admin.inOrg("DELETE", `/api/v1/org/members/${owner.userId}`);
    expect(remove.status).toBe(403);
    expect(remove.body.details).toEqual({ reason: "owner_only" });
  });
});
