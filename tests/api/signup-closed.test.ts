/**
 * A self-hosted installation (BILLING=false) is not open to strangers: once its owner exists, a visitor
 * cannot sign up, make an organisation on the unlimited plan and point checks at the private network the
 * local region may reach. People join by invitation; SIGNUP_OPEN=true opens it again. The hosted mode
 * (billing on) keeps open sign-up.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { client, makeOrg, startTestApi, type TestApi } from "../support/api.ts";

let selfHosted: TestApi;
let opened: TestApi;
let hosted: TestApi;

beforeAll(async () => {
  [selfHosted, opened, hosted] = await Promise.all([
    startTestApi({ BILLING: "false", ALLOW_PRIVATE_IPS: "true" }),
    startTestApi({ BILLING: "false", SIGNUP_OPEN: "true" }),
    startTestApi(),
  ]);
}, 60_000);
afterAll(async () => {
  await Promise.all([selfHosted.stop(), opened.stop(), hosted.stop()]);
});

let counter = 0;
const newEmail = (tag: string) => `${tag}-${Date.now().toString(36)}-${++counter}@example.test`;

async function post(api: TestApi, path: string, body: unknown) {
  const res = await fetch(`${api.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const cookie = res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const json = (await res.json()) as any;
  return { status: res.status, body: json, call: client(api.url, { cookie, csrf: json?.csrf_token }) };
}

const signUpBody = (email: string, extra: Record<string, unknown> = {}) => ({ email, password: "long enough password", name: "Visitor", ...extra });
const usersNamed = async (api: TestApi, email: string) => (await api.sql`select id from users where lower(email) = lower(${email})`).length;

describe("sign-up on a self-hosted installation", () => {
  it("is closed: a visitor gets 403 signup_closed, and no account or organisation is made", async () => {
    const orgsBefore = (await selfHosted.sql`select count(*)::int as n from organisations`)[0]!.n;
    const email = newEmail("stranger");
    const res = await post(selfHosted, "/api/v1/auth/signup", signUpBody(email, { org_name: "Probe" }));
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: "PERMISSION_DENIED", details: { reason: "signup_closed" } });
    expect(res.body.error).toContain("invitation");
    expect(await usersNamed(selfHosted, email)).toBe(0);
    expect((await selfHosted.sql`select count(*)::int as n from organisations`)[0]!.n).toBe(orgsBefore);
  });

  it("says so to the dashboard before anyone tries", async () => {
    expect((await fetch(`${selfHosted.url}/api/v1/setup`).then((r) => r.json())) as any).toMatchObject({ signup_open: false });
    expect((await fetch(`${opened.url}/api/v1/setup`).then((r) => r.json())) as any).toMatchObject({ signup_open: true });
    expect((await fetch(`${hosted.url}/api/v1/setup`).then((r) => r.json())) as any).toMatchObject({ signup_open: true });
  });

  it("lets an invited person make an account with the invitation's token, joining the inviting organisation only", async () => {
    const team = await makeOrg(selfHosted.sql);
    const owner = client(selfHosted.url, { key: team.api_key });
    const email = newEmail("colleague");
    const inv = await owner("POST", "/api/v1/org/invitations", { email, role_id: "member" });
    expect(inv.status).toBe(201);
    // The emailed link is answered to the inviter too: without SMTP the mail only reaches the server's log.
    expect(inv.body.accept_url).toBe(`${selfHosted.server.deps.publicBaseUrl}/invitations/accept?token=${inv.body.token}&email=${encodeURIComponent(email)}`);
    const up = await post(selfHosted, "/api/v1/auth/signup", signUpBody(email.toUpperCase(), { invitation_token: inv.body.token }));
    expect(up.status).toBe(201);
    expect(up.body.org_id).toBe(team.org_id);
    const orgs = await up.call("GET", "/api/v1/orgs");
    expect(orgs.body.data.map((o: { id: string }) => o.id)).toEqual([team.org_id]);
    // The mailed token proved the address.
    const [user] = await selfHosted.sql`select email_verified_at from users where lower(email) = lower(${email})`;
    expect(user!.email_verified_at).not.toBeNull();
    // Used once: the same token cannot open a second account.
    const again = await post(selfHosted, "/api/v1/auth/signup", signUpBody(newEmail("forwarded"), { invitation_token: inv.body.token }));
    expect(again.status).toBe(404);
  });

  it("does not let an invited (or since removed) person create an organisation of their own with POST /orgs", async () => {
    const team = await makeOrg(selfHosted.sql);
    const owner = client(selfHosted.url, { key: team.api_key });
    const email = newEmail("guest");
    const inv = await owner("POST", "/api/v1/org/invitations", { email, role_id: "viewer" });
    const up = await post(selfHosted, "/api/v1/auth/signup", signUpBody(email, { invitation_token: inv.body.token }));
    expect(up.status).toBe(201);
    expect((await owner("DELETE", `/api/v1/org/members/${up.body.user.id}`)).status).toBe(204);
    const orgsBefore = (await selfHosted.sql`select count(*)::int as n from organisations`)[0]!.n;
    const made = await up.call("POST", "/api/v1/orgs", { name: "My own unlimited org" });
    expect(made.status).toBe(403);
    expect(made.body).toMatchObject({ code: "PERMISSION_DENIED", details: { reason: "signup_closed" } });
    expect((await selfHosted.sql`select count(*)::int as n from organisations`)[0]!.n).toBe(orgsBefore);
    // An owner (the installation's) may still keep teams apart in organisations of their own.
    const ownerSession = await post(selfHosted, "/api/v1/auth/signin", { email: team.email, password: team.password });
    expect(ownerSession.status).toBe(200);
    expect((await ownerSession.call("POST", "/api/v1/orgs", { name: "Another team" })).status).toBe(201);
    // Where sign-up is open, making another organisation stays allowed.
    const open = await post(opened, "/api/v1/auth/signup", signUpBody(newEmail("open-owner"), { org_name: "First" }));
    expect((await open.call("POST", "/api/v1/orgs", { name: "Second" })).status).toBe(201);
  });

  it("refuses an invitation token for another address, and an unknown one, keeping the invitation pending", async () => {
    const team = await makeOrg(selfHosted.sql);
    const owner = client(selfHosted.url, { key: team.api_key });
    const inv = await owner("POST", "/api/v1/org/invitations", { email: newEmail("invited"), role_id: "member" });
    const other = newEmail("not-invited");
    const mismatch = await post(selfHosted, "/api/v1/auth/signup", signUpBody(other, { invitation_token: inv.body.token }));
    expect(mismatch.status).toBe(403);
    expect(mismatch.body).toMatchObject({ code: "PERMISSION_DENIED", details: { reason: "invitation_email_mismatch" } });
    expect(await usersNamed(selfHosted, other)).toBe(0);
    const unknown = await post(selfHosted, "/api/v1/auth/signup", signUpBody(newEmail("guess"), { invitation_token: "not-a-real-token" }));
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("NOT_FOUND");
    // Still pending after the refusals.
    expect((await owner("GET", "/api/v1/org/invitations")).body.data.map((i: { id: string }) => i.id)).toEqual([inv.body.id]);
  });

  it("opens with SIGNUP_OPEN=true, and the hosted mode keeps it open", async () => {
    for (const api of [opened, hosted]) {
      const up = await post(api, "/api/v1/auth/signup", signUpBody(newEmail("open"), { org_name: "Own" }));
      expect(up.status).toBe(201);
      expect(up.body.org_id).toStartWith("org_");
    }
  });

  it("with sign-up open, an invited person's token still joins the inviting organisation without making one of their own", async () => {
    const team = await makeOrg(hosted.sql, "pro");
    const email = newEmail("joiner");
    const inv = await client(hosted.url, { key: team.api_key })("POST", "/api/v1/org/invitations", { email, role_id: "viewer" });
    const up = await post(hosted, "/api/v1/auth/signup", signUpBody(email, { invitation_token: inv.body.token }));
    expect(up.status).toBe(201);
    expect(up.body.org_id).toBe(team.org_id);
    expect((await up.call("GET", "/api/v1/orgs")).body.data).toHaveLength(1);
  });

  it("leaves the first-run setup as it was: a fresh self-hosted installation still makes its owner", async () => {
    // The test database already has organisations, so setup answers 409 here; it is not sign-up.
    const res = await post(selfHosted, "/api/v1/setup", { email: newEmail("late"), password: "long enough password", name: "Late", org_name: "Late" });
    expect(res.status).toBe(409);
    expect(res.body.details.reason).toBe("already_set_up");
  });
});
