import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createHash } from "node:crypto";
import * as OTPAuth from "otpauth";
import { client, joinOrgAs, makeOrg, signUp, startTestApi, type TestApi } from "../support/api.ts";

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.stop());

type Call = ReturnType<typeof client>;

const joinAs = (owner: Call, orgId: string, role: string) => joinOrgAs(api.url, owner, orgId, role);

async function mintKey(call: Call, scopes: string[]) {
  const res = await call("POST", "/api/v1/api-keys", { name: `key-${scopes.join("+")}`, scopes });
  expect(res.status).toBe(201);
  return { id: res.body.id as string, key: res.body.key as string, call: client(api.url, { key: res.body.key }) };
}

describe("another organisation's resources", () => {
  it("answers 404 for another organisation's API key, invitation, role and member, and changes nothing", async () => {
    const mine = await makeOrg(api.sql, "pro");
    const theirs = await makeOrg(api.sql, "pro");
    const me = client(api.url, { key: mine.api_key });
    const them = client(api.url, { key: theirs.api_key });
    const theirKey = (await them("GET", "/api/v1/api-keys")).body.data[0].id;
    const theirInvite = (await them("POST", "/api/v1/org/invitations", { email: "someone@example.test", role_id: "member" })).body.id;
    const theirRole = (await them("POST", "/api/v1/org/roles", { name: "Theirs", permissions: ["monitors:read"] })).body.id;
    const theirMember = (await joinAs(them, theirs.org_id, "member")).userId;

    const attempts = [
      await me("DELETE", `/api/v1/api-keys/${theirKey}`),
      await me("DELETE", `/api/v1/org/invitations/${theirInvite}`),
      await me("GET", `/api/v1/org/roles/${theirRole}`),
      await me("PATCH", `/api/v1/org/roles/${theirRole}`, { name: "Mine" }),
      await me("DELETE", `/api/v1/org/roles/${theirRole}`),
      await me("PATCH", `/api/v1/org/members/${theirMember}`, { role_id: "viewer" }),
      await me("DELETE", `/api/v1/org/members/${theirMember}`),
    ];
    for (const res of attempts) {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe("NOT_FOUND");
    }
    // Their role cannot even be handed out in my organisation.
    const borrowed = await me("POST", "/api/v1/org/invitations", { email: "borrow@example.test", role_id: theirRole });
    expect(borrowed.status).toBe(400);

    expect((await them("GET", "/api/v1/org")).status).toBe(200);
    expect((await them("GET", "/api/v1/org/invitations")).body.data.map((i: { id: string }) => i.id)).toContain(theirInvite);
    expect((await them("GET", `/api/v1/org/roles/${theirRole}`)).body.name).toBe("Theirs");
    const members = (await them("GET", "/api/v1/org/members")).body.data;
    expect(members.find((m: { user_id: string }) => m.user_id === theirMember).role_id).toBe("member");
  });
});

describe("scopes and roles", () => {
  it("refuses a key without org:admin on admin endpoints and allows one with it", async () => {
    const org = await makeOrg(api.sql);
    const owner = client(api.url, { key: org.api_key });
    const reader = await mintKey(owner, ["monitors:read", "alerts:read"]);
    for (const [method, path, body] of [
      ["GET", "/api/v1/audit-log", undefined],
      ["PATCH", "/api/v1/org", { name: "Hijacked" }],
      ["POST", "/api/v1/org/roles", { name: "Sneaky", permissions: ["monitors:read"] }],
      ["PATCH", "/api/v1/org/security-policy", { require_2fa: true }],
    ] as const) {
      const res = await reader.call(method, path, body);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: "Requires the org:admin permission", code: "PERMISSION_DENIED", details: { permission: "org:admin" } });
    }
    expect((await reader.call("GET", "/api/v1/org")).status).toBe(200);
    const admin = await mintKey(owner, ["org:admin"]);
    expect((await admin.call("GET", "/api/v1/audit-log")).status).toBe(200);
    expect((await admin.call("PATCH", "/api/v1/org", { name: "Renamed by key" })).body.name).toBe("Renamed by key");
  });

  it("refuses a key that mints a key with scopes beyond its own", async () => {
    const org = await makeOrg(api.sql);
    const reader = await mintKey(client(api.url, { key: org.api_key }), ["monitors:read", "api_keys:write"]);
    const res = await reader.call("POST", "/api/v1/api-keys", { name: "escalate", scopes: ["org:admin"] });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "A key cannot carry scopes beyond your own", code: "PERMISSION_DENIED", details: { scopes: ["org:admin"] } });
    expect((await reader.call("POST", "/api/v1/api-keys", { name: "same", scopes: ["monitors:read"] })).status).toBe(201);
  });

  it("refuses a viewer renaming the organisation or managing API keys", async () => {
    const org = await makeOrg(api.sql);
    const viewer = await joinAs(client(api.url, { key: org.api_key }), org.org_id, "viewer");
    expect((await viewer.inOrg("GET", "/api/v1/org")).status).toBe(200);
    const rename = await viewer.inOrg("PATCH", "/api/v1/org", { name: "Viewer's now" });
    expect(rename.status).toBe(403);
    expect(rename.body.details).toEqual({ permission: "org:admin" });
    // Managing keys takes api_keys:write, which the read-only viewer role does not hold (tests/api/api-keys.test.ts).
    const key = await viewer.inOrg("POST", "/api/v1/api-keys", { name: "read", scopes: ["monitors:read"] });
    expect(key.status).toBe(403);
    expect(key.body.details).toEqual({ permission: "api_keys:write" });
  });

  it("refuses a member minting a key beyond their role", async () => {
    const org = await makeOrg(api.sql);
    const member = await joinAs(client(api.url, { key: org.api_key }), org.org_id, "member");
    const key = await member.inOrg("POST", "/api/v1/api-keys", { name: "admin", scopes: ["monitors:read", "org:admin"] });
    expect(key.status).toBe(403);
    expect(key.body.details).toEqual({ scopes: ["org:admin"] });
    expect((await member.inOrg("POST", "/api/v1/api-keys", { name: "write", scopes: ["monitors:read", "monitors:write"] })).status).toBe(201);
  });

  it("lets a member revoke their own key but not another member's", async () => {
    const org = await makeOrg(api.sql);
    const owner = client(api.url, { key: org.api_key });
    const member = await joinAs(owner, org.org_id, "member");
    const own = await mintKey(member.inOrg, ["monitors:read"]);
    const ownerKeyId = (await owner("GET", "/api/v1/api-keys")).body.data.find((k: { name: string }) => k.name === "provisioned").id;
    const res = await member.inOrg("DELETE", `/api/v1/api-keys/${ownerKeyId}`);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("PERMISSION_DENIED");
    expect((await owner("GET", "/api/v1/org")).status).toBe(200);
    expect((await member.inOrg("DELETE", `/api/v1/api-keys/${own.id}`)).status).toBe(204);
    // An admin may revoke anyone's key.
    const other = await mintKey(member.inOrg, ["monitors:read"]);
    expect((await owner("DELETE", `/api/v1/api-keys/${other.id}`)).status).toBe(204);
    expect((await other.call("GET", "/api/v1/org")).status).toBe(401);
  });

  it("bounds a key by its creator's current role: demoting the creator takes the key's admin powers at once", async () => {
    const org = await makeOrg(api.sql);
    const owner = client(api.url, { key: org.api_key });
    const admin = await joinAs(owner, org.org_id, "admin");
    const key = await mintKey(admin.inOrg, ["org:admin"]);
    expect((await key.call("PATCH", "/api/v1/org", { name: "Set by the admin's key" })).status).toBe(200);
    expect((await key.call("GET", "/api/v1/audit-log")).status).toBe(200);

    expect((await owner("PATCH", `/api/v1/org/members/${admin.userId}`, { role_id: "viewer" })).status).toBe(200);
    const rename = await key.call("PATCH", "/api/v1/org", { name: "Still admin?" });
    expect(rename.status).toBe(403);
    expect(rename.body.details).toEqual({ permission: "org:admin" });
    expect((await key.call("GET", "/api/v1/audit-log")).status).toBe(403);
    expect((await key.call("POST", "/api/v1/api-keys", { name: "again", scopes: ["org:admin"] })).status).toBe(403);
    expect((await key.call("GET", "/api/v1/org")).status).toBe(200);

    expect((await owner("DELETE", `/api/v1/org/members/${admin.userId}`)).status).toBe(204);
    expect((await key.call("GET", "/api/v1/org")).status).toBe(401);
  });

  it("applies every role change to the member's key on the very next request, again and again", async () => {
    const org = await makeOrg(api.sql);
    const owner = client(api.url, { key: org.api_key });
    const admin = await joinAs(owner, org.org_id, "admin");
    const key = await mintKey(admin.inOrg, ["org:admin"]);
    for (let round = 0; round < 8; round++) {
      const role = round % 2 ? "admin" : "viewer";
      expect((await key.call("GET", "/api/v1/org/security-policy")).status).toBe(200);
      expect((await owner("PATCH", `/api/v1/org/members/${admin.userId}`, { role_id: role })).status).toBe(200);
      expect({ round, status: (await key.call("PATCH", "/api/v1/org", { name: `Round ${round}` })).status }).toEqual({ round, status: role === "admin" ? 200 : 403 });
    }
  });

  it("keeps an admin from minting or taking an owner's powers through a custom role", async () => {
    const org = await makeOrg(api.sql, "pro");
    const owner = client(api.url, { key: org.api_key });
    const admin = await joinAs(owner, org.org_id, "admin");
    const create = await admin.inOrg("POST", "/api/v1/org/roles", { name: "Boss", permissions: ["org:admin", "billing:manage", "org:owner"] });
    expect(create.status).toBe(403);
    expect(create.body.details).toEqual({ permissions: ["billing:manage", "org:owner"] });

    const ownerSession = await signInAs(org.email, org.password);
    const coOwner = await ownerSession("POST", "/api/v1/org/roles", { name: "Co-owner", permissions: ["org:admin", "billing:manage", "org:owner"] });
    expect(coOwner.status).toBe(201);
    const self = await admin.inOrg("PATCH", `/api/v1/org/members/${admin.userId}`, { role_id: coOwner.body.id });
    expect(self.status).toBe(403);
    const narrow = await admin.inOrg("PATCH", `/api/v1/org/roles/${coOwner.body.id}`, { permissions: ["monitors:read"] });
    expect(narrow.status).toBe(403);
    const invite = await admin.inOrg("POST", "/api/v1/org/invitations", { email: "friend@example.test", role_id: coOwner.body.id });
    expect(invite.status).toBe(403);

    const holder = await joinAs(ownerSession, org.org_id, "member");
    expect((await ownerSession("PATCH", `/api/v1/org/members/${holder.userId}`, { role_id: coOwner.body.id })).status).toBe(200);
    expect((await admin.inOrg("PATCH", `/api/v1/org/members/${holder.userId}`, { role_id: "viewer" })).status).toBe(403);
    expect((await admin.inOrg("DELETE", `/api/v1/org/members/${holder.userId}`)).status).toBe(403);
    // Within their own powers an admin manages roles freely.
    const oncall = await admin.inOrg("POST", "/api/v1/org/roles", { name: "On-call", permissions: ["monitors:read", "alerts:write"] });
    expect(oncall.status).toBe(201);
    expect((await admin.inOrg("PATCH", `/api/v1/org/members/${admin.userId}`, { role_id: oncall.body.id })).status).toBe(200);
  });
});

async function signInAs(email: string, password: string, orgId?: string): Promise<Call> {
  const res = await fetch(`${api.url}/api/v1/auth/signin`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password }) });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { csrf_token: string };
  const cookie = res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  return client(api.url, { cookie, csrf: body.csrf_token, headers: orgId ? { "x-org-id": orgId } : {} });
}

describe("API keys at rest", () => {
  it("shows a key once and stores only its SHA-256", async () => {
    const org = await makeOrg(api.sql);
    const owner = client(api.url, { key: org.api_key });
    const made = await owner("POST", "/api/v1/api-keys", { name: "deploy", scopes: ["monitors:write"] });
    expect(made.status).toBe(201);
    const key: string = made.body.key;
    expect(key).toMatch(/^wp_live_[A-Za-z0-9_-]{20,}$/);
    expect(key.startsWith(made.body.prefix)).toBe(true);

    const list = await owner("GET", "/api/v1/api-keys");
    expect(JSON.stringify(list.body)).not.toContain(key);
    expect(list.body.data.every((k: Record<string, unknown>) => !("key" in k) && !("key_hash" in k))).toBe(true);

    const [row] = await api.sql<{ key_hash: Buffer }[]>`select key_hash from api_keys where id = ${made.body.id}`;
    expect(Buffer.from(row!.key_hash).toString("hex")).toBe(createHash("sha256").update(key).digest("hex"));
    const tables = await api.sql<{ table_name: string }[]>`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`;
    for (const { table_name } of tables) {
      const hits = await api.sql.unsafe(`select 1 from "${table_name}" t where position($1 in t::text) > 0 limit 1`, [key]);
      expect({ table: table_name, hits: hits.length }).toEqual({ table: table_name, hits: 0 });
    }
  });

  it("stops a revoked key at once on this process, and on another one sharing the database as soon as its NOTIFY arrives", async () => {
    const other = await startTestApi({}, api.db);
    try {
      const org = await makeOrg(api.sql);
      const made = await mintKey(client(api.url, { key: org.api_key }), ["monitors:read"]);
      const here = client(api.url, { key: made.key });
      const there = client(other.url, { key: made.key });
      expect((await here("GET", "/api/v1/org")).status).toBe(200);
      expect((await there("GET", "/api/v1/org")).status).toBe(200);
      expect((await client(api.url, { key: org.api_key })("DELETE", `/api/v1/api-keys/${made.id}`)).status).toBe(204);
      expect((await here("GET", "/api/v1/org")).status).toBe(401);
      // The other process hears of it by NOTIFY, delivered asynchronously: milliseconds, but on a loaded machine a
      // request can get there first. Within two seconds at most, and never 200 after that.
      let status = (await there("GET", "/api/v1/org")).status;
      for (let i = 0; i < 40 && status === 200; i++) {
        await Bun.sleep(50);
        status = (await there("GET", "/api/v1/org")).status;
      }
      expect(status).toBe(401);
    } finally {
      await other.stop();
    }
  });
});

describe("sessions", () => {
  it("selects the organisation with X-Org-Id for a user in two, and answers 404 for one they are not in", async () => {
    const org = await makeOrg(api.sql);
    const user = await joinAs(client(api.url, { key: org.api_key }), org.org_id, "member");
    const home = await user.call("GET", "/api/v1/org");
    expect(home.body.id).toBe(user.orgId);
    expect((await user.inOrg("GET", "/api/v1/org")).body.id).toBe(org.org_id);

    const stranger = await makeOrg(api.sql);
    for (const orgId of [stranger.org_id, "org_nonexistent"]) {
      const res = await client(api.url, { cookie: user.cookie, headers: { "x-org-id": orgId } })("GET", "/api/v1/org");
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "Organisation not found", code: "NOT_FOUND" });
      expect(res.headers.get("x-ratelimit-limit")).not.toBeNull();
    }
  });

  it("requires the CSRF token on cookie writes only", async () => {
    const user = await signUp(api.url);
    const bare = client(api.url, { cookie: user.cookie });
    expect((await bare("GET", "/api/v1/org")).status).toBe(200);
    for (const csrf of [undefined, "wrong-token"]) {
      const res = await client(api.url, { cookie: user.cookie, csrf })("PATCH", "/api/v1/org", { name: "Forged" });
      expect(res.status).toBe(403);
      expect(res.body.details).toEqual({ reason: "csrf" });
    }
    expect((await bare("POST", "/api/v1/orgs", { name: "Forged org" })).status).toBe(403);
    expect((await user.call("PATCH", "/api/v1/org", { name: "Genuine" })).body.name).toBe("Genuine");
  });

  it("blocks members without 2FA when the organisation requires it, until they enable it", async () => {
    const org = await makeOrg(api.sql);
    const owner = client(api.url, { key: org.api_key });
    const member = await joinAs(owner, org.org_id, "member");
    expect((await member.inOrg("GET", "/api/v1/org")).status).toBe(200);
    // Only a signed-in admin with 2FA may turn the policy on (an API key may not).
    const admin = await joinAs(owner, org.org_id, "admin");
    const adminSetup = await admin.inOrg("POST", "/api/v1/user/2fa/setup");
    const adminTotp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(adminSetup.body.secret), digits: 6, period: 30, algorithm: "SHA1" });
    expect((await admin.inOrg("POST", "/api/v1/user/2fa/enable", { code: adminTotp.generate() })).status).toBe(200);
    expect((await admin.inOrg("PATCH", "/api/v1/org/security-policy", { require_2fa: true })).body.require_2fa).toBe(true);

    for (const [method, path] of [
      ["GET", "/api/v1/org"],
      ["GET", "/api/v1/org/members"],
      ["POST", "/api/v1/api-keys"],
    ] as const) {
      const res = await member.inOrg(method, path, method === "POST" ? { name: "k", scopes: ["monitors:read"] } : undefined);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe("PERMISSION_DENIED");
      expect(res.body.details).toEqual({ reason: "two_factor_required" });
    }
    // Their own organisation has no such policy, and their account pages stay open for enrolment.
    expect((await member.call("GET", "/api/v1/org")).status).toBe(200);
    const setup = await member.inOrg("POST", "/api/v1/user/2fa/setup");
    expect(setup.status).toBe(200);
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(setup.body.secret), digits: 6, period: 30, algorithm: "SHA1" });
    expect((await member.inOrg("POST", "/api/v1/user/2fa/enable", { code: totp.generate() })).body.two_factor_enabled).toBe(true);
    expect((await member.inOrg("GET", "/api/v1/org")).status).toBe(200);
  });
});
