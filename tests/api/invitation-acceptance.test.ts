/**
 * Joining an organisation takes proof of the invited address: the emailed token, or an account
 * whose address a mailed token has already proven. Anyone can sign up with any address (there is
 * no sign-up verification), so the account's email alone must not stand in for that proof.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { client, makeOrg, signUp, startTestApi, type TestApi } from "../support/api.ts";

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.stop());

type Call = ReturnType<typeof client>;
let n = 0;
const newEmail = (tag: string) => `${tag}-${Date.now().toString(36)}${(n++).toString(36)}@example.test`;

async function invite(owner: Call, email: string, role = "member") {
  const res = await owner("POST", "/api/v1/org/invitations", { email, role_id: role });
  expect(res.status).toBe(201);
  return res.body as { id: string; token: string };
}

const memberEmails = async (owner: Call) => (await owner("GET", "/api/v1/org/members?limit=100")).body.data.map((m: { email: string }) => m.email.toLowerCase());

describe("accepting an invitation", () => {
  it("refuses to join by id, or even to list, from an account that merely claims the invited address", async () => {
    const org = await makeOrg(api.sql, "pro");
    const owner = client(api.url, { key: org.api_key });
    const email = newEmail("victim");
    const inv = await invite(owner, email, "admin");
    // Whoever signs up first with the invited address (no one proves it at sign-up).
    const squatter = await signUp(api.url, email);
    expect((await squatter.call("GET", "/api/v1/invitations")).body.data).toEqual([]);
    const res = await squatter.call("POST", "/api/v1/invitations/accept", { invitation_id: inv.id });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: "PERMISSION_DENIED", details: { reason: "email_unverified" } });
    expect(await memberEmails(owner)).not.toContain(email.toLowerCase());
    // The emailed token is the proof: it still works, and proves the address for next time.
    expect((await squatter.call("POST", "/api/v1/invitations/accept", { token: inv.token })).status).toBe(200);
    const other = await makeOrg(api.sql, "pro");
    const second = await invite(client(api.url, { key: other.api_key }), email, "viewer");
    expect((await squatter.call("GET", "/api/v1/invitations")).body.data.map((i: { id: string }) => i.id)).toEqual([second.id]);
    expect((await squatter.call("POST", "/api/v1/invitations/accept", { invitation_id: second.id })).status).toBe(200);
  });

  it("accepts by id once an emailed token proved the address, and not after the email changes to another address", async () => {
    const first = await makeOrg(api.sql, "pro");
    const user = await signUp(api.url);
    const proof = await invite(client(api.url, { key: first.api_key }), user.email, "viewer");
    expect((await user.call("POST", "/api/v1/invitations/accept", { token: proof.token })).status).toBe(200);
    const org = await makeOrg(api.sql, "pro");
    const owner = client(api.url, { key: org.api_key });
    const byId = await invite(owner, user.email.toUpperCase(), "viewer");
    expect((await user.call("GET", "/api/v1/invitations")).body.data.map((i: { id: string }) => i.id)).toEqual([byId.id]);
    expect((await user.call("POST", "/api/v1/invitations/accept", { invitation_id: byId.id })).status).toBe(200);
    const proven = user.call;

    // Switching the account to another (unproven) address does not carry the proof over.
    const target = newEmail("target");
    const other = await makeOrg(api.sql, "pro");
    const theirOwner = client(api.url, { key: other.api_key });
    const inv = await invite(theirOwner, target, "admin");
    expect((await proven("PATCH", "/api/v1/user", { email: target, current_password: user.password })).status).toBe(200);
    expect((await proven("GET", "/api/v1/invitations")).body.data).toEqual([]);
    const res = await proven("POST", "/api/v1/invitations/accept", { invitation_id: inv.id });
    expect(res.status).toBe(403);
    expect(res.body.details).toEqual({ reason: "email_unverified" });
    expect(await memberEmails(theirOwner)).not.toContain(target.toLowerCase());
  });
});

describe("an invitation outlives neither its sender's powers nor the key that sent it", () => {
  async function joinAs(owner: Call, orgId: string, role: string) {
    const user = await signUp(api.url);
    const inv = await invite(owner, user.email, role);
    expect((await user.call("POST", "/api/v1/invitations/accept", { token: inv.token })).status).toBe(200);
    return { ...user, inOrg: client(api.url, { cookie: user.cookie, csrf: user.csrf, headers: { "x-org-id": orgId } }) };
  }

  it("revokes the pending invitations a key sent when the key (or the key that made it) is revoked", async () => {
    const org = await makeOrg(api.sql, "pro");
    const owner = client(api.url, { key: org.api_key });
    const made = await owner("POST", "/api/v1/api-keys", { name: "leaked", scopes: ["org:admin"] });
    const leaked = client(api.url, { key: made.body.key });
    const child = await leaked("POST", "/api/v1/api-keys", { name: "child", scopes: ["org:admin"] });
    const planted = await invite(leaked, newEmail("planted"), "admin");
    const viaChild = await invite(client(api.url, { key: child.body.key }), newEmail("child-planted"), "admin");
    const kept = await invite(owner, newEmail("kept"), "viewer");

    expect((await owner("DELETE", `/api/v1/api-keys/${made.body.id}`)).status).toBe(204);
    expect((await owner("GET", "/api/v1/org/invitations")).body.data.map((i: { id: string }) => i.id)).toEqual([kept.id]);
    for (const inv of [planted, viaChild]) {
      const attacker = await signUp(api.url);
      const res = await attacker.call("POST", "/api/v1/invitations/accept", { token: inv.token });
      expect(res.status).toBe(404);
    }
    expect((await memberEmails(owner)).length).toBe(1);
  });

  it("refuses an invitation whose sender was demoted below the role or left the organisation", async () => {
    const org = await makeOrg(api.sql, "pro");
    const owner = client(api.url, { key: org.api_key });
    const admin = await joinAs(owner, org.org_id, "admin");
    const toAdmin = await invite(admin.inOrg, newEmail("to-admin"), "admin");
    const toViewer = await invite(admin.inOrg, newEmail("to-viewer"), "viewer");
    expect((await owner("PATCH", `/api/v1/org/members/${admin.userId}`, { role_id: "member" })).status).toBe(200);
    const late = await signUp(api.url);
    const res = await late.call("POST", "/api/v1/invitations/accept", { token: toAdmin.token });
    expect(res.status).toBe(404);
    expect(await memberEmails(owner)).not.toContain(late.email.toLowerCase());
    // A viewer's permissions are still within the demoted sender's member role.
    expect((await (await signUp(api.url)).call("POST", "/api/v1/invitations/accept", { token: toViewer.token })).status).toBe(200);

    const other = await joinAs(owner, org.org_id, "admin");
    const fromLeaver = await invite(other.inOrg, newEmail("from-leaver"), "viewer");
    expect((await owner("DELETE", `/api/v1/org/members/${other.userId}`)).status).toBe(204);
    expect((await (await signUp(api.url)).call("POST", "/api/v1/invitations/accept", { token: fromLeaver.token })).status).toBe(404);
  });
});
