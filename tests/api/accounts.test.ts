import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import * as OTPAuth from "otpauth";
import { client, makeOrg, signUp, startTestApi, type TestApi } from "../support/api.ts";

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.stop());

type Call = ReturnType<typeof client>;
let counter = 0;
const newEmail = (tag: string) => `${tag}-${Date.now().toString(36)}-${++counter}@example.test`;

async function signIn(email: string, password: string, extra: Record<string, string> = {}) {
  const res = await fetch(`${api.url}/api/v1/auth/signin`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password, ...extra }) });
  const body = (await res.json()) as any;
  const cookie = res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  return { status: res.status, body, cookie, setCookies: res.headers.getSetCookie(), call: client(api.url, { cookie, csrf: body.csrf_token }) };
}

async function invite(owner: Call, email: string, role = "member") {
  const res = await owner("POST", "/api/v1/org/invitations", { email, role_id: role });
  expect(res.status).toBe(201);
  return res.body as { id: string; token: string; org_id: string };
}

/** A signed-up user whose address an emailed invitation token proved (in a throwaway organisation). */
async function provenSignUp(email?: string) {
  const user = await signUp(api.url, email);
  const elsewhere = await makeOrg(api.sql, "pro");
  const proof = await invite(client(api.url, { key: elsewhere.api_key }), user.email, "viewer");
  expect((await user.call("POST", "/api/v1/invitations/accept", { token: proof.token })).status).toBe(200);
  return user;
}

const totpFor = (secret: string) => new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: "SHA1" });

describe("sign-up, sign-in and sign-out", () => {
  it("signs up with session cookies, signs in, refuses a wrong password, and signs out for good", async () => {
    const email = newEmail("flow");
    const up = await fetch(`${api.url}/api/v1/auth/signup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password: "long enough password", name: "Flow", org_name: "Flow Inc" }),
    });
    expect(up.status).toBe(201);
    const created = (await up.json()) as any;
    expect(created.user).toMatchObject({ email, name: "Flow", two_factor_enabled: false });
    expect(created.org_id).toStartWith("org_");
    const cookies = up.headers.getSetCookie();
    expect(cookies.find((c) => c.startsWith("wp_session="))).toContain("HttpOnly");
    expect(cookies.find((c) => c.startsWith("wp_csrf="))).toContain(`wp_csrf=${created.csrf_token}`);

    for (const [e, p] of [
      [email, "not the password"],
      [newEmail("nobody"), "long enough password"],
    ]) {
      const wrong = await signIn(e!, p!);
      expect(wrong.status).toBe(401);
      expect(wrong.body).toEqual({ error: "Invalid email, password or code", code: "UNAUTHENTICATED" });
    }

    const session = await signIn(email.toUpperCase(), "long enough password");
    expect(session.status).toBe(200);
    expect(session.body.org_id).toBe(created.org_id);
    expect((await session.call("GET", "/api/v1/org")).body.name).toBe("Flow Inc");
    const out = await session.call("POST", "/api/v1/auth/signout");
    expect(out.status).toBe(200);
    expect(out.headers.getSetCookie().some((c) => c.startsWith("wp_session=;") && c.includes("Max-Age=0"))).toBe(true);
    expect((await session.call("GET", "/api/v1/user")).status).toBe(401);
  });

  it("refuses a short password and a malformed email at sign-up", async () => {
    const res = await client(api.url)("POST", "/api/v1/auth/signup", { email: "not-an-email", password: "short", name: "X" });
    expect(res.status).toBe(400);
    const paths = res.body.details.issues.map((i: { path: string }) => i.path);
    expect(paths).toContain("body.password");
    expect(paths).toContain("body.email");
  });
});

describe("password reset", () => {
  it("emails a token that works once and ends every old session", async () => {
    const user = await signUp(api.url);
    const other = await signIn(user.email, user.password);
    const before = api.mailer.sent.length;
    expect((await client(api.url)("POST", "/api/v1/auth/password-reset/request", { email: user.email })).status).toBe(202);
    expect((await client(api.url)("POST", "/api/v1/auth/password-reset/request", { email: newEmail("ghost") })).status).toBe(202);
    await api.flushMail();
    const mails = api.mailer.sent.slice(before);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.to).toBe(user.email);
    const token = mails[0]!.text.match(/token[^:]*: (\S+)/)![1]!;

    const confirm = await client(api.url)("POST", "/api/v1/auth/password-reset/confirm", { token, password: "a brand new password" });
    expect(confirm.status).toBe(200);
    expect((await user.call("GET", "/api/v1/user")).status).toBe(401);
    expect((await other.call("GET", "/api/v1/user")).status).toBe(401);
    expect((await signIn(user.email, user.password)).status).toBe(401);
    expect((await signIn(user.email, "a brand new password")).status).toBe(200);

    const again = await client(api.url)("POST", "/api/v1/auth/password-reset/confirm", { token, password: "yet another password" });
    expect(again.status).toBe(400);
    expect(again.body.code).toBe("VALIDATION_ERROR");
    expect((await signIn(user.email, "a brand new password")).status).toBe(200);
  });
});

describe("two-factor authentication", () => {
  it("enrols with a TOTP code, then demands a code at sign-in until disabled", async () => {
    // Each code is accepted once, so enable, sign-in and disable use the steps t-1, t and t+1: away from a step's end.
    while (30 - ((Date.now() / 1000) % 30) < 6) await Bun.sleep(500);
    const step = (totp: OTPAuth.TOTP, n: number) => totp.generate({ timestamp: Date.now() + n * 30_000 });
    const user = await signUp(api.url);
    const setup = await user.call("POST", "/api/v1/user/2fa/setup");
    expect(setup.status).toBe(200);
    expect(setup.body.otpauth_url).toStartWith("otpauth://totp/");
    const totp = totpFor(setup.body.secret);
    const valid = new Set([-1, 0, 1].map((n) => step(totp, n)));
    const invalid = ["000000", "111111", "222222", "333333"].find((c) => !valid.has(c))!;
    expect((await user.call("POST", "/api/v1/user/2fa/enable", { code: invalid })).status).toBe(400);
    const enabled = await user.call("POST", "/api/v1/user/2fa/enable", { code: step(totp, -1) });
    expect(enabled.body.two_factor_enabled).toBe(true);
    expect(enabled.body.recovery_codes).toHaveLength(10);
    expect((await user.call("POST", "/api/v1/user/2fa/setup")).status).toBe(409);

    const noCode = await signIn(user.email, user.password);
    expect(noCode.status).toBe(401);
    expect(noCode.body).toEqual({ error: "Two-factor code required", code: "UNAUTHENTICATED", details: { reason: "totp_required" } });
    const badCode = await signIn(user.email, user.password, { totp_code: invalid });
    expect(badCode.status).toBe(401);
    const good = await signIn(user.email, user.password, { totp_code: step(totp, 0) });
    expect(good.status).toBe(200);
    expect(good.body.user.two_factor_enabled).toBe(true);

    expect((await good.call("POST", "/api/v1/user/2fa/disable", { code: "12345" })).status).toBe(400);
    expect((await good.call("POST", "/api/v1/user/2fa/disable", { code: step(totp, 1) })).body.two_factor_enabled).toBe(false);
    expect((await signIn(user.email, user.password)).status).toBe(200);
  });
});

describe("the user's own account", () => {
  it("updates the name freely but needs the current password to change email", async () => {
    const user = await signUp(api.url);
    expect((await user.call("PATCH", "/api/v1/user", { name: "Renamed" })).body.name).toBe("Renamed");
    const email = newEmail("moved");
    const bare = await user.call("PATCH", "/api/v1/user", { email });
    expect(bare.status).toBe(400);
    expect(bare.body.details.issues[0].path).toBe("body.current_password");
    expect((await user.call("PATCH", "/api/v1/user", { email, current_password: "wrong password" })).status).toBe(400);
    const moved = await user.call("PATCH", "/api/v1/user", { email, current_password: user.password });
    expect(moved.body.email).toBe(email);
    expect((await signIn(email, user.password)).status).toBe(200);
    expect((await signIn(user.email, user.password)).status).toBe(401);

    const taken = await signUp(api.url);
    const clash = await user.call("PATCH", "/api/v1/user", { email: taken.email, current_password: user.password });
    expect(clash.status).toBe(409);
  });

  it("changing the password keeps this session and ends the others", async () => {
    const user = await signUp(api.url);
    const other = await signIn(user.email, user.password);
    expect((await user.call("PATCH", "/api/v1/user", { password: "the next password", current_password: user.password })).status).toBe(200);
    expect((await user.call("GET", "/api/v1/user")).status).toBe(200);
    expect((await other.call("GET", "/api/v1/user")).status).toBe(401);
  });

  it("lists live sessions and revokes one of them", async () => {
    const user = await signUp(api.url);
    const second = await signIn(user.email, user.password);
    const list = await user.call("GET", "/api/v1/user/sessions");
    expect(list.body.data).toHaveLength(2);
    const current = list.body.data.filter((s: { current: boolean }) => s.current);
    expect(current).toHaveLength(1);
    const otherId = list.body.data.find((s: { current: boolean }) => !s.current).id;
    expect(list.body.data.every((s: { ip: string }) => s.ip === "127.0.0.1")).toBe(true);

    const stranger = await signUp(api.url);
    expect((await stranger.call("DELETE", `/api/v1/user/sessions/${otherId}`)).status).toBe(404);
    expect((await second.call("GET", "/api/v1/user")).status).toBe(200);
    expect((await user.call("DELETE", `/api/v1/user/sessions/${otherId}`)).status).toBe(204);
    expect((await second.call("GET", "/api/v1/user")).status).toBe(401);
    expect((await user.call("DELETE", "/api/v1/user/sessions/ses_unknown")).status).toBe(404);
    expect((await user.call("GET", "/api/v1/user/sessions")).body.data).toHaveLength(1);
  });

  it("exports the user's organisations and keys, never a secret", async () => {
    const user = await signUp(api.url);
    const key = await user.call("POST", "/api/v1/api-keys", { name: "mine", scopes: ["monitors:read"] });
    const extra = await user.call("POST", "/api/v1/orgs", { name: "Side project" });
    const res = await user.call("GET", "/api/v1/user/export");
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ id: user.userId, email: user.email });
    expect(res.body.organisations.map((o: { id: string }) => o.id).sort()).toEqual([user.orgId, extra.body.id].sort());
    expect(res.body.api_keys.map((k: { id: string }) => k.id)).toEqual([key.body.id]);
    const text = JSON.stringify(res.body);
    expect(text).not.toContain(key.body.key);
    expect(text).not.toContain("password_hash");
    expect(text).not.toContain("key_hash");
    expect(text).not.toContain("totp_secret");
  });

  it("refuses to delete a sole owner whose organisation has other members, listing it", async () => {
    const user = await signUp(api.url);
    const inv = await invite(user.call, newEmail("colleague"));
    const colleague = await signUp(api.url, newEmail("colleague-real"));
    // The colleague joins with the emailed token.
    expect((await colleague.call("POST", "/api/v1/invitations/accept", { token: inv.token })).status).toBe(200);

    expect((await user.call("DELETE", "/api/v1/user", { password: "wrong password" })).status).toBe(401);
    const res = await user.call("DELETE", "/api/v1/user", { password: user.password });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("CONFLICT");
    expect(res.body.details.organisations).toEqual([{ id: user.orgId, name: "Test User's organisation", other_members: 1 }]);
    expect((await user.call("GET", "/api/v1/user")).status).toBe(200);
  });

  it("deletes an account alone in its organisation together with the organisation", async () => {
    const user = await signUp(api.url);
    const res = await user.call("DELETE", "/api/v1/user", { password: user.password });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted_organisations: [user.orgId] });
    expect((await user.call("GET", "/api/v1/user")).status).toBe(401);
    expect(await api.sql`select 1 from organisations where id = ${user.orgId}`).toHaveLength(0);
    expect(await api.sql`select 1 from users where id = ${user.userId}`).toHaveLength(0);
    expect((await signIn(user.email, user.password)).status).toBe(401);
  });
});

describe("invitations", () => {
  it("invites by email, lists it, and joins with the emailed token exactly once", async () => {
    const org = await makeOrg(api.sql, "pro");
    const owner = client(api.url, { key: org.api_key });
    const email = newEmail("invitee");
    const before = api.mailer.sent.length;
    const inv = await invite(owner, email, "viewer");
    await api.flushMail();
    const mail = api.mailer.sent.slice(before).find((m) => m.to === email)!;
    expect(mail.text).toContain(`token=${inv.token}`);
    expect((await owner("GET", "/api/v1/org/invitations")).body.data.map((i: { id: string }) => i.id)).toEqual([inv.id]);

    const invitee = await signUp(api.url, email);
    // Listed only once the address is proven (tests/api/invitation-acceptance.test.ts); the token is that proof.
    expect((await invitee.call("GET", "/api/v1/invitations")).body.data).toEqual([]);

    const accepted = await invitee.call("POST", "/api/v1/invitations/accept", { token: inv.token });
    expect(accepted.status).toBe(200);
    expect(accepted.body.accepted_at).not.toBeNull();
    const members = (await owner("GET", "/api/v1/org/members")).body.data;
    expect(members.find((m: { email: string }) => m.email === email).role_id).toBe("viewer");
    expect((await owner("GET", "/api/v1/org/invitations")).body.data).toHaveLength(0);
    const next = await makeOrg(api.sql, "pro");
    const second = await invite(client(api.url, { key: next.api_key }), email, "viewer");
    const pending = await invitee.call("GET", "/api/v1/invitations");
    expect(pending.body.data).toHaveLength(1);
    expect(pending.body.data[0]).toMatchObject({ id: second.id, org_id: next.org_id, role_id: "viewer" });
    expect(pending.body.data[0].org_name).toStartWith("Org ");

    const reuse = await (await signUp(api.url)).call("POST", "/api/v1/invitations/accept", { token: inv.token });
    expect(reuse.status).toBe(404);
    expect(reuse.body).toEqual({ error: "Invitation not found", code: "NOT_FOUND" });
  });

  it("accepts by id only for the invited email", async () => {
    const org = await makeOrg(api.sql, "pro");
    const owner = client(api.url, { key: org.api_key });
    const invitee = await provenSignUp();
    const inv = await invite(owner, invitee.email.toUpperCase());
    const intruder = await provenSignUp();
    expect((await intruder.call("POST", "/api/v1/invitations/accept", { invitation_id: inv.id })).status).toBe(404);
    expect((await invitee.call("POST", "/api/v1/invitations/accept", { invitation_id: inv.id })).status).toBe(200);
    expect((await invitee.call("POST", "/api/v1/invitations/accept", {})).status).toBe(404);
  });

  it("refuses a revoked or expired invitation and an invitation to a member", async () => {
    const org = await makeOrg(api.sql, "pro");
    const owner = client(api.url, { key: org.api_key });
    const user = await provenSignUp();

    const revoked = await invite(owner, user.email);
    expect((await owner("DELETE", `/api/v1/org/invitations/${revoked.id}`)).status).toBe(204);
    expect((await owner("DELETE", `/api/v1/org/invitations/${revoked.id}`)).status).toBe(404);
    expect((await user.call("POST", "/api/v1/invitations/accept", { token: revoked.token })).status).toBe(404);

    const expired = await invite(owner, user.email);
    await api.sql`update invitations set expires_at = now() - interval '1 minute' where id = ${expired.id}`;
    expect((await user.call("POST", "/api/v1/invitations/accept", { token: expired.token })).status).toBe(404);
    expect((await user.call("POST", "/api/v1/invitations/accept", { invitation_id: expired.id })).status).toBe(404);

    const fresh = await invite(owner, user.email);
    expect((await owner("POST", "/api/v1/org/invitations", { email: user.email, role_id: "member" })).status).toBe(409);
    expect((await user.call("POST", "/api/v1/invitations/accept", { token: fresh.token })).status).toBe(200);
    // Inviting someone who is already a member is refused at once (the invitation could never be accepted)...
    expect((await owner("POST", "/api/v1/org/invitations", { email: user.email, role_id: "viewer" })).status).toBe(409);
    // ...and one that was pending when they joined another way (single sign-on) is refused on acceptance.
    const [membership] = await api.sql`delete from memberships where org_id = ${org.org_id} and user_id = ${user.userId} returning *`;
    const twice = await invite(owner, user.email);
    await api.sql`insert into memberships ${api.sql(membership!)}`;
    const again = await user.call("POST", "/api/v1/invitations/accept", { token: twice.token });
    expect(again.status).toBe(409);
    // The refused acceptance left the invitation pending.
    expect((await owner("GET", "/api/v1/org/invitations")).body.data.map((i: { id: string }) => i.id)).toEqual([twice.id]);
  });

  it("counts pending invitations against the member quota and frees the slot on revoke", async () => {
    const org = await makeOrg(api.sql, "free");
    const owner = client(api.url, { key: org.api_key });
    const first = await invite(owner, newEmail("q1"));
    await invite(owner, newEmail("q2"));
    const refused = await owner("POST", "/api/v1/org/invitations", { email: newEmail("q3"), role_id: "member" });
    expect(refused.status).toBe(403);
    expect(refused.body.details.entitlement).toBe("members");
    expect((await owner("DELETE", `/api/v1/org/invitations/${first.id}`)).status).toBe(204);
    expect((await owner("POST", "/api/v1/org/invitations", { email: newEmail("q4"), role_id: "member" })).status).toBe(201);
  });
});

describe("roles and members", () => {
  it("lists the system roles with the permission matrix and runs a custom role through its life", async () => {
    const org = await makeOrg(api.sql, "pro");
    const owner = client(api.url, { key: org.api_key });
    const roles = await owner("GET", "/api/v1/org/roles");
    expect(roles.body.data.map((r: { id: string }) => r.id).sort()).toEqual(["admin", "member", "owner", "viewer"]);
    expect(roles.body.data.every((r: { system: boolean }) => r.system)).toBe(true);
    expect(roles.body.permissions).toContain("org:admin");
    expect(roles.body.permissions).toContain("billing:manage");

    const created = await owner("POST", "/api/v1/org/roles", { name: "Responder", description: "Handles incidents", permissions: ["incidents:write", "incidents:read", "incidents:read"] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "Responder", description: "Handles incidents", system: false });
    expect(created.body.permissions.sort()).toEqual(["incidents:read", "incidents:write"]);
    const id = created.body.id;
    expect((await owner("GET", `/api/v1/org/roles/${id}`)).body.name).toBe("Responder");
    const patched = await owner("PATCH", `/api/v1/org/roles/${id}`, { permissions: ["incidents:read", "monitors:read"] });
    expect(patched.body.permissions).toEqual(["incidents:read", "monitors:read"]);
    expect(patched.body.description).toBe("Handles incidents");
    expect((await owner("POST", "/api/v1/org/roles", { name: "Bad", permissions: ["root"] })).status).toBe(400);
    expect((await owner("PATCH", "/api/v1/org/roles/viewer", { name: "Watcher" })).status).toBe(409);
    expect((await owner("DELETE", "/api/v1/org/roles/admin")).status).toBe(409);

    const inv = await invite(owner, newEmail("responder"), id);
    const inUse = await owner("DELETE", `/api/v1/org/roles/${id}`);
    expect(inUse.status).toBe(409);
    expect(inUse.body.code).toBe("CONFLICT");
    const member = await signUp(api.url);
    expect((await member.call("POST", "/api/v1/invitations/accept", { token: inv.token })).status).toBe(200);
    expect((await owner("DELETE", `/api/v1/org/roles/${id}`)).status).toBe(409);
    expect((await owner("PATCH", `/api/v1/org/members/${member.userId}`, { role_id: "viewer" })).body.role_id).toBe("viewer");
    expect((await owner("DELETE", `/api/v1/org/roles/${id}`)).status).toBe(204);
    expect((await owner("GET", `/api/v1/org/roles/${id}`)).status).toBe(404);

    // An invitation that lapsed does not keep its role alive.
    const temp = await owner("POST", "/api/v1/org/roles", { name: "Temporary", permissions: ["monitors:read"] });
    const lapsed = await invite(owner, newEmail("lapsed"), temp.body.id);
    expect((await owner("DELETE", `/api/v1/org/roles/${temp.body.id}`)).status).toBe(409);
    await api.sql`update invitations set expires_at = now() - interval '1 minute' where id = ${lapsed.id}`;
    expect((await owner("DELETE", `/api/v1/org/roles/${temp.body.id}`)).status).toBe(204);
  });

  it("changes and removes members and protects the last owner", async () => {
    const org = await makeOrg(api.sql, "pro");
    const ownerKey = client(api.url, { key: org.api_key });
    const ownerSession = (await signIn(org.email, org.password)).call;
    const member = await signUp(api.url);
    const inv = await invite(ownerKey, member.email, "member");
    expect((await member.call("POST", "/api/v1/invitations/accept", { token: inv.token })).status).toBe(200);

    expect((await ownerKey("PATCH", `/api/v1/org/members/${member.userId}`, { role_id: "nonexistent" })).status).toBe(400);
    expect((await ownerKey("PATCH", `/api/v1/org/members/${member.userId}`, { role_id: "admin" })).body.role_id).toBe("admin");
    const admin = client(api.url, { cookie: member.cookie, csrf: member.csrf, headers: { "x-org-id": org.org_id } });
    expect((await admin("PATCH", `/api/v1/org/members/${org.user_id}`, { role_id: "viewer" })).status).toBe(403);
    expect((await admin("DELETE", `/api/v1/org/members/${org.user_id}`)).status).toBe(403);

    const demoteSelf = await ownerSession("PATCH", `/api/v1/org/members/${org.user_id}`, { role_id: "admin" });
    expect(demoteSelf.status).toBe(409);
    expect(demoteSelf.body).toEqual({ error: "An organisation needs at least one owner", code: "CONFLICT" });
    expect((await ownerSession("DELETE", `/api/v1/org/members/${org.user_id}`)).status).toBe(409);

    // With a second owner, the first may step down.
    expect((await ownerSession("PATCH", `/api/v1/org/members/${member.userId}`, { role_id: "owner" })).body.role_id).toBe("owner");
    expect((await ownerSession("PATCH", `/api/v1/org/members/${org.user_id}`, { role_id: "admin" })).body.role_id).toBe("admin");
    expect((await admin("DELETE", `/api/v1/org/members/${org.user_id}`)).status).toBe(204);
    const members = (await admin("GET", "/api/v1/org/members")).body;
    expect(members.data.map((m: { user_id: string }) => m.user_id)).toEqual([member.userId]);
    expect(members.pagination.total).toBe(1);
    expect((await ownerKey("GET", "/api/v1/org")).status).toBe(401);
  });
});

describe("organisations", () => {
  it("lists the user's organisations and creates one they own", async () => {
    const user = await signUp(api.url);
    const created = await user.call("POST", "/api/v1/orgs", { name: "Second" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "Second", plan: "free", role: "owner", default: false });
    const list = await user.call("GET", "/api/v1/orgs");
    expect(list.body.data.map((o: { id: string; default: boolean }) => [o.id, o.default])).toEqual([
      [user.orgId, true],
      [created.body.id, false],
    ]);
    const inSecond = client(api.url, { cookie: user.cookie, csrf: user.csrf, headers: { "x-org-id": created.body.id } });
    expect((await inSecond("GET", "/api/v1/org")).body.name).toBe("Second");
    const org = await makeOrg(api.sql);
    expect((await client(api.url, { key: org.api_key })("GET", "/api/v1/orgs")).status).toBe(403);
  });
});

describe("audit log", () => {
  it("records each successful write with actor, action, target and IP, and filters by them", async () => {
    const org = await makeOrg(api.sql, "pro");
    const key = client(api.url, { key: org.api_key });
    const keyId = (await key("GET", "/api/v1/api-keys")).body.data[0].id;
    const session = (await signIn(org.email, org.password)).call;
    const start = new Date(Date.now() - 1000).toISOString();

    expect((await session("PATCH", "/api/v1/org", { name: "Audited" })).status).toBe(200);
    const made = await key("POST", "/api/v1/api-keys", { name: "audited", scopes: ["monitors:read"] });
    expect((await key("DELETE", `/api/v1/api-keys/${made.body.id}`)).status).toBe(204);
    expect((await key("POST", "/api/v1/api-keys", { name: "" })).status).toBe(400);

    const all = (await key("GET", "/api/v1/audit-log")).body;
    expect(all.data.map((e: { action: string }) => e.action)).toEqual(["api_keys.delete", "api_keys.create", "org.update"]);
    const [deleted, created, renamed] = all.data;
    expect(renamed).toMatchObject({ actor_type: "user", actor_id: org.user_id, actor: `user:${org.email}`, target_type: "org", ip: "127.0.0.1" });
    expect(created).toMatchObject({ actor_type: "api_key", actor_id: keyId, actor: `api_key:${keyId}`, target_type: "api_keys", target_id: made.body.id });
    expect(deleted).toMatchObject({ action: "api_keys.delete", target_id: made.body.id, ip: "127.0.0.1" });
    expect(JSON.stringify(all)).not.toContain(made.body.key);
    // The target's name at the time is kept, so the dashboard can say "created API key audited".
    expect(created.details).toMatchObject({ method: "POST", name: "audited" });
    expect(renamed.details).toMatchObject({ method: "PATCH", name: "Audited" });
    expect(deleted.details.name).toBeUndefined();

    const q = async (query: string) => (await key("GET", `/api/v1/audit-log?${query}`)).body.data.map((e: { action: string }) => e.action);
    expect(await q(`actor=${org.user_id}`)).toEqual(["org.update"]);
    expect(await q(`actor=${encodeURIComponent(`api_key:${keyId}`)}`)).toEqual(["api_keys.delete", "api_keys.create"]);
    expect(await q("action=api_keys")).toEqual(["api_keys.delete", "api_keys.create"]);
    expect(await q("action=org.update")).toEqual(["org.update"]);
    expect(await q(`target=${made.body.id}`)).toEqual(["api_keys.delete", "api_keys.create"]);
    expect(await q(`from=${encodeURIComponent(start)}&limit=2`)).toEqual(["api_keys.delete", "api_keys.create"]);
    expect(await q(`to=${encodeURIComponent(start)}`)).toEqual([]);
    expect(await q(`from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toEqual([]);
  });

  it("keeps each organisation's log to itself", async () => {
    const a = await makeOrg(api.sql);
    const b = await makeOrg(api.sql);
    expect((await client(api.url, { key: a.api_key })("PATCH", "/api/v1/org", { name: "A only" })).status).toBe(200);
    expect((await client(api.url, { key: b.api_key })("GET", "/api/v1/audit-log")).body.data).toEqual([]);
  });
});

describe("entitlements", () => {
  it("shows the plan, its limits and the member usage including pending invitations", async () => {
    const org = await makeOrg(api.sql, "free");
    const owner = client(api.url, { key: org.api_key });
    const before = (await owner("GET", "/api/v1/entitlements")).body;
    expect(before.plan).toEqual({ id: "free", name: "Free" });
    expect(before.limits).toMatchObject({ members: 3, runners: 0, alert_rules: 10, alert_channels: 5 });
    expect(before.usage.members).toEqual({ used: 1, limit: 3 });
    await invite(owner, newEmail("counted"));
    expect((await owner("GET", "/api/v1/entitlements")).body.usage.members).toEqual({ used: 2, limit: 3 });
    const pro = await makeOrg(api.sql, "pro");
    expect((await client(api.url, { key: pro.api_key })("GET", "/api/v1/entitlements")).body.limits).toMatchObject({ runners: 3, alert_rules: 25, alert_channels: 20 });
  });
});
