import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { client, makeOrg, startTestApi, type TestApi } from "../support/api.ts";
import { ssoSignInByHttp, startTestOidcProvider, type TestOidcProvider } from "../support/oidc-provider.ts";

let api: TestApi;
let idp: TestOidcProvider;

beforeAll(async () => {
  // The identity provider is on loopback: the API's outbound guard must allow it (as self-hosting does).
  api = await startTestApi({ ALLOW_PRIVATE_IPS: "true" });
  idp = await startTestOidcProvider(`${api.url}/api/v1/auth/sso/callback`);
});
afterAll(async () => {
  await idp.stop();
  await api.stop();
});

let n = 0;
const unique = () => `${Date.now().toString(36)}${(++n).toString(36)}`;

/** An organisation with SSO configured for its own email domain (each test its own, so domains never clash). */
async function ssoOrg(overrides: Record<string, unknown> = {}, plan = "pro") {
  const org = await makeOrg(api.sql, plan);
  const call = client(api.url, { key: org.api_key });
  const tag = unique();
  const domain = `corp-${tag}.example`;
  const body = { slug: `acme-${tag}`, issuer: idp.issuer, client_id: idp.clientId, client_secret: idp.clientSecret, allowed_domains: [domain], default_role_id: "viewer", require_sso: false, ...overrides };
  const res = await call("PUT", "/api/v1/org/sso", body);
  expect(res.status).toBe(200);
  return { org, call, domain, slug: body.slug as string, config: res.body };
}

function person(domain: string, verified = true) {
  const tag = unique();
  const account = { sub: `sub-${tag}`, email: `person-${tag}@${domain}`, email_verified: verified, name: `Person ${tag}` };
  idp.addAccount(account);
  return account;
}

async function passwordSignIn(email: string, password: string) {
  const res = await fetch(`${api.url}/api/v1/auth/signin`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password }) });
  const session = res.headers.getSetCookie().find((c) => c.startsWith("wp_session="))?.split(";")[0]!.slice("wp_session=".length);
  return { status: res.status, body: (await res.json()) as any, cookies: { session } };
}

describe("SSO configuration", () => {
  it("stores the client secret encrypted, never returns it, and keeps it when the placeholder comes back", async () => {
    const { call, config, org } = await ssoOrg();
    expect(config.client_secret).toBe("••••••••");
    expect(config.redirect_uri).toBe(`${api.url}/api/v1/auth/sso/callback`);
    expect(JSON.stringify(config)).not.toContain(idp.clientSecret);
    const got = await call("GET", "/api/v1/org/sso");
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ issuer: idp.issuer, client_id: idp.clientId, client_secret: "••••••••", default_role_id: "viewer", require_sso: false });
    const [row] = await api.sql<{ client_secret_enc: string }[]>`select client_secret_enc from org_sso_configs where org_id = ${org.org_id}`;
    expect(row!.client_secret_enc).not.toContain(idp.clientSecret);
    expect(api.server.deps.box.decrypt(row!.client_secret_enc)).toBe(idp.clientSecret);

    const kept = await call("PUT", "/api/v1/org/sso", { ...got.body, redirect_uri: undefined, created_at: undefined, updated_at: undefined, require_sso: true });
    expect(kept.status).toBe(200);
    expect(kept.body.require_sso).toBe(true);
    const [after] = await api.sql<{ client_secret_enc: string }[]>`select client_secret_enc from org_sso_configs where org_id = ${org.org_id}`;
    expect(api.server.deps.box.decrypt(after!.client_secret_enc)).toBe(idp.clientSecret);
  });

  it("refuses bad configurations with 400 and names each field", async () => {
    const org = await makeOrg(api.sql, "pro");
    const call = client(api.url, { key: org.api_key });
    const good = { slug: `ok-${unique()}`, issuer: "https://login.example.com", client_id: "c", client_secret: "s", allowed_domains: [], default_role_id: "member", require_sso: false };
    const cases: [Record<string, unknown>, string][] = [
      [{ client_secret: undefined }, "body.client_secret"],
      [{ issuer: "http://login.example.com" }, "body.issuer"],
      [{ issuer: "https://login.example.com/?x=1" }, "body.issuer"],
      [{ issuer: "not a url" }, "body.issuer"],
      [{ default_role_id: "owner" }, "body.default_role_id"],
      [{ default_role_id: "role_nope" }, "body.default_role_id"],
    ];
    for (const [patch, path] of cases) {
      const res = await call("PUT", "/api/v1/org/sso", { ...good, ...patch });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("VALIDATION_ERROR");
      expect(res.body.details.issues.map((i: { path: string }) => i.path)).toContain(path);
    }
    for (const bad of [{ slug: "Not A Slug" }, { allowed_domains: ["not a domain"] }, { extra: 1 }, { require_sso: "yes" }]) {
      const res = await call("PUT", "/api/v1/org/sso", { ...good, ...bad });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: "VALIDATION_ERROR" });
    }
    expect((await call("GET", "/api/v1/org/sso")).status).toBe(404);
    expect((await call("DELETE", "/api/v1/org/sso")).status).toBe(404);
  });

  it("accepts an http issuer only on loopback unless SSO_ALLOW_HTTP_ISSUER is set", async () => {
    const lab = await startTestApi({ SSO_ALLOW_HTTP_ISSUER: "true" }, api.db);
    try {
      const org = await makeOrg(api.sql, "pro");
      const res = await client(lab.url, { key: org.api_key })("PUT", "/api/v1/org/sso", {
        slug: `lab-${unique()}`, issuer: "http://idp.lab.internal", client_id: "c", client_secret: "s", allowed_domains: [], default_role_id: "member", require_sso: false,
      });
      expect(res.status).toBe(200);
    } finally {
      await lab.stop();
    }
  });

  it("answers 409 when another organisation has the slug or claims a domain", async () => {
    const first = await ssoOrg();
    const other = client(api.url, { key: (await makeOrg(api.sql, "pro")).api_key });
    const base = { issuer: idp.issuer, client_id: "c", client_secret: "s", default_role_id: "member", require_sso: false };
    const slug = await other("PUT", "/api/v1/org/sso", { ...base, slug: first.slug, allowed_domains: [] });
    expect(slug.status).toBe(409);
    expect(slug.body.code).toBe("CONFLICT");
    const domain = await other("PUT", "/api/v1/org/sso", { ...base, slug: `x-${unique()}`, allowed_domains: [first.domain.toUpperCase()] });
    expect(domain.status).toBe(409);
    expect(domain.body.details).toEqual({ domain: first.domain });
  });

  it("is for admins only: a key without org:admin gets 403, and a custom role in use by SSO cannot be deleted", async () => {
    const { call } = await ssoOrg();
    const created = await call("POST", "/api/v1/api-keys", { name: "reader", scopes: ["monitors:read"] });
    expect(created.status).toBe(201);
    const reader = client(api.url, { key: created.body.key });
    for (const [method, body] of [["GET"], ["PUT", { slug: "x" }], ["DELETE"]] as const) {
      const res = await reader(method, "/api/v1/org/sso", body);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe("PERMISSION_DENIED");
    }
    expect((await reader("POST", "/api/v1/org/sso/test", { issuer: idp.issuer })).status).toBe(403);

    const role = await call("POST", "/api/v1/org/roles", { name: `SSO people ${unique()}`, permissions: ["monitors:read"] });
    const current = (await call("GET", "/api/v1/org/sso")).body;
    const { redirect_uri: _r, created_at: _c, updated_at: _u, ...body } = current;
    expect((await call("PUT", "/api/v1/org/sso", { ...body, default_role_id: role.body.id })).status).toBe(200);
    const del = await call("DELETE", `/api/v1/org/roles/${role.body.id}`);
    expect(del.status).toBe(409);
  });

  it("tests the connection by fetching the discovery document", async () => {
    const { call } = await ssoOrg();
    const ok = await call("POST", "/api/v1/org/sso/test", { issuer: idp.issuer });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ ok: true, issuer: idp.issuer, authorization_endpoint: `${idp.issuer}/auth`, token_endpoint: `${idp.issuer}/token`, pkce_s256: true });
    const down = await call("POST", "/api/v1/org/sso/test", { issuer: "http://127.0.0.1:9" });
    expect(down.status).toBe(200);
    expect(down.body.ok).toBe(false);
    expect(down.body.error).toStartWith("Discovery failed");
    const bad = await call("POST", "/api/v1/org/sso/test", { issuer: "ftp://idp.example" });
    expect(bad.status).toBe(400);
  });

  it("writes configuration changes to the audit log", async () => {
    const { call } = await ssoOrg();
    expect((await call("DELETE", "/api/v1/org/sso")).status).toBe(204);
    expect((await call("GET", "/api/v1/org/sso")).status).toBe(404);
    const log = await call("GET", "/api/v1/audit-log?action=org.sso");
    expect(log.body.data.map((e: { action: string }) => e.action)).toEqual(["org.sso.delete", "org.sso.update"]);
  });
});

describe("signing in with SSO", () => {
  it("provisions a new user just in time with the configured role, sets the session cookies and audits the sign-in", async () => {
    const { org, call, domain } = await ssoOrg({ default_role_id: "member" });
    const who = person(domain);
    const done = await ssoSignInByHttp(api.url, { email: who.email }, who.email);
    expect(done.status).toBe(303);
    expect(done.location).toBe(`/sso/complete?org=${org.org_id}`);
    expect(done.setCookies!.find((c) => c.startsWith("wp_session="))).toContain("HttpOnly");
    expect(done.setCookies!.find((c) => c.startsWith("wp_sso="))).toContain("Max-Age=0");
    const me = client(api.url, { cookie: done.cookie, csrf: done.csrf });
    const user = await me("GET", "/api/v1/user");
    expect(user.status).toBe(200);
    expect(user.body).toMatchObject({ email: who.email, name: who.name });
    const members = (await call("GET", "/api/v1/org/members")).body.data as { email: string; role_id: string }[];
    expect(members.find((m) => m.email === who.email)?.role_id).toBe("member");
    // A member's session can write with its CSRF token.
    expect((await me("POST", "/api/v1/monitors", { name: "from sso", type: "http", config: { url: "https://example.com" }, interval_seconds: 300 })).status).toBe(201);

    const again = await ssoSignInByHttp(api.url, { email: who.email }, who.email);
    expect(again.location).toBe(`/sso/complete?org=${org.org_id}`);
    const log = await call("GET", "/api/v1/audit-log?action=auth.sso_sign_in");
    expect(log.body.data).toHaveLength(2);
    expect(log.body.data.map((e: any) => e.details.provisioned)).toEqual([false, true]);
    expect(log.body.data[1]).toMatchObject({ actor: who.email, target_type: "user", details: { issuer: idp.issuer, subject: who.sub, role_id: "member" } });
  });

  it("finds the organisation by slug, and refuses an email outside the allowed domains", async () => {
    const { slug, domain } = await ssoOrg();
    const outsider = person(`elsewhere-${unique()}.example`);
    const refused = await ssoSignInByHttp(api.url, { org_slug: slug }, outsider.email);
    expect(refused.location).toBe("/signin?sso_error=domain_not_allowed");
    expect(refused.cookie).toBe("");
    const insider = person(domain);
    const ok = await ssoSignInByHttp(api.url, { org_slug: slug }, insider.email);
    expect(ok.location).toStartWith("/sso/complete?org=");
  });

  it("with no allowed domains, lets anyone the provider vouches for in by slug", async () => {
    const { slug } = await ssoOrg({ allowed_domains: [] });
    const anyone = person(`any-${unique()}.example`);
    expect((await ssoSignInByHttp(api.url, { org_slug: slug }, anyone.email)).location).toStartWith("/sso/complete?org=");
  });

  it("never signs in as an existing account by its email: the account links itself, signed in with its password", async () => {
    const { org, slug } = await ssoOrg({ allowed_domains: [] });
    // The owner's account exists with a password; the provider (which an admin configures) asserts the same address.
    const owner = { sub: `owner-${unique()}`, email: org.email, email_verified: true, name: "Owner" };
    idp.addAccount(owner);
    const refused = await ssoSignInByHttp(api.url, { org_slug: slug }, owner.email);
    expect(refused.location).toBe("/signin?sso_error=link_required");
    expect(refused.cookie).toBe("");

    // Signed in with the password, the owner links the provider's identity from their account.
    const pw = await passwordSignIn(org.email, org.password);
    expect(pw.status).toBe(200);
    const session = { cookie: `wp_session=${pw.cookies.session}; wp_csrf=${pw.body.csrf_token}`, "x-csrf-token": pw.body.csrf_token };
    const link = await ssoSignInByHttp(api.url, {}, owner.email, { path: "/api/v1/auth/sso/link", headers: session });
    expect(link.location).toBe("/account?sso=linked");
    const linked = await ssoSignInByHttp(api.url, { org_slug: slug }, owner.email);
    expect(linked.location).toBe(`/sso/complete?org=${org.org_id}`);
    const me = await client(api.url, { cookie: linked.cookie })("GET", "/api/v1/user");
    expect(me.body.id).toBe(org.user_id);

    const stranger = await makeOrg(api.sql, "pro"); // an account of another organisation
    idp.addAccount({ sub: `s-${unique()}`, email: stranger.email, email_verified: true, name: "Stranger" });
    expect((await ssoSignInByHttp(api.url, { org_slug: slug }, stranger.email)).location).toBe("/signin?sso_error=link_required");

    // An unverified address never links to an existing member.
    const invited = person(`unverified-${unique()}.example`, false);
    const first = await ssoSignInByHttp(api.url, { org_slug: slug }, invited.email); // new user: provisioned
    expect(first.location).toStartWith("/sso/complete");
    idp.addAccount({ ...invited, sub: `other-${unique()}` }); // the same address under another subject
    expect((await ssoSignInByHttp(api.url, { org_slug: slug }, invited.email)).location).toBe("/signin?sso_error=link_required");
  });

  it("opens sessions for the signing organisation only: no other organisation of the account, no new one", async () => {
    const { org, call, slug } = await ssoOrg({ allowed_domains: [], default_role_id: "member" });
    const who = person(`scoped-${unique()}.example`);
    const first = await ssoSignInByHttp(api.url, { org_slug: slug }, who.email);
    expect(first.location).toBe(`/sso/complete?org=${org.org_id}`);
    // The same person is also a member of another organisation (invited there, joined with this account).
    const other = await makeOrg(api.sql, "pro");
    const otherCall = client(api.url, { key: other.api_key });
    const invite = await otherCall("POST", "/api/v1/org/invitations", { email: who.email, role_id: "admin" });
    const me = client(api.url, { cookie: first.cookie, csrf: first.csrf });
    expect((await me("POST", "/api/v1/invitations/accept", { token: invite.body.token })).status).toBe(200);
    await otherCall("POST", "/api/v1/monitors", { name: "other org's", type: "http", config: { url: "https://other.example" }, interval_seconds: 300 });

    const again = await ssoSignInByHttp(api.url, { org_slug: slug }, who.email);
    const scoped = client(api.url, { cookie: again.cookie, csrf: again.csrf });
    expect((await scoped("GET", "/api/v1/orgs")).body.data.map((o: { id: string }) => o.id)).toEqual([org.org_id]);
    const elsewhere = await scoped("GET", "/api/v1/monitors", undefined, { "x-org-id": other.org_id });
    expect(elsewhere.status).toBe(404);
    expect((await scoped("GET", "/api/v1/monitors", undefined, { "x-org-id": org.org_id })).status).toBe(200);
    expect((await scoped("POST", "/api/v1/orgs", { name: "From SSO" })).status).toBe(403);
    void call;
  });

  it("with require SSO refuses members' password sign-in, but not the owner's (break-glass)", async () => {
    const { org, call, domain } = await ssoOrg({ require_sso: true, default_role_id: "admin" });
    const invite = await call("POST", "/api/v1/org/invitations", { email: `pw-${unique()}@${domain}`, role_id: "member" });
    expect(invite.status).toBe(201);
    const email = invite.body.email as string;
    // Signed up from the invitation: a member of this organisation only.
    const up = await fetch(`${api.url}/api/v1/auth/signup`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password: "long enough password", name: "Pw", invitation_token: invite.body.token }) });
    expect(up.status).toBe(201);

    const refused = await passwordSignIn(email, "long enough password");
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: "PERMISSION_DENIED", details: { reason: "sso_required" } });
    // A wrong password still says only "invalid", so the policy reveals nothing to a stranger.
    expect((await passwordSignIn(email, "wrong password!!")).status).toBe(401);
    expect((await passwordSignIn(org.email, org.password)).status).toBe(200);

    expect((await call("DELETE", "/api/v1/org/sso")).status).toBe(204);
    expect((await passwordSignIn(email, "long enough password")).status).toBe(200);
  });

  it("with require SSO in one organisation, a guest who owns another still signs in with a password, and acts there only", async () => {
    const { org: strict, call, domain } = await ssoOrg({ require_sso: true });
    const guest = await makeOrg(api.sql, "pro"); // owns an organisation of their own
    const invite = await call("POST", "/api/v1/org/invitations", { email: guest.email, role_id: "member" });
    const pw = await passwordSignIn(guest.email, guest.password);
    expect(pw.status).toBe(200);
    const me = client(api.url, { cookie: `wp_session=${pw.cookies.session}`, csrf: pw.body.csrf_token });
    expect((await me("POST", "/api/v1/invitations/accept", { token: invite.body.token })).status).toBe(200);

    // Signing in again after joining: their own organisation still takes a password; the strict one does not.
    const again = await passwordSignIn(guest.email, guest.password);
    expect(again.status).toBe(200);
    const session = client(api.url, { cookie: `wp_session=${again.cookies.session}`, csrf: again.body.csrf_token });
    expect((await session("GET", "/api/v1/monitors", undefined, { "x-org-id": guest.org_id })).status).toBe(200);
    const refused = await session("GET", "/api/v1/monitors", undefined, { "x-org-id": strict.org_id });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: "PERMISSION_DENIED", details: { reason: "sso_required" } });
    // Without X-Org-Id the session acts in an organisation it may use.
    expect((await session("GET", "/api/v1/org")).body.id).toBe(guest.org_id);
    void domain;
  });

  it("does not tell an anonymous visitor where an unreachable provider lives", async () => {
    const { slug } = await ssoOrg({ allowed_domains: [] });
    const dead = "http://127.0.0.1:9/never";
    // Saved while reachable, the issuer then moves to an address where nothing answers.
    await api.sql`update org_sso_configs set issuer = ${dead} where slug = ${slug}`;
    const started = await fetch(`${api.url}/api/v1/auth/sso/start`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ org_slug: slug }) });
    expect(started.status).toBe(503);
    const text = await started.text();
    expect(text).toContain("provider_unreachable");
    expect(text).not.toContain("127.0.0.1");
    expect(text).not.toContain("ECONNREFUSED");
  });

  it("provisions no one past the plan's member quota", async () => {
    const { domain } = await ssoOrg({}, "free"); // Free: 3 members, the owner is one
    for (const _ of [1, 2]) {
      const who = person(domain);
      expect((await ssoSignInByHttp(api.url, { email: who.email }, who.email)).location).toStartWith("/sso/complete?org=");
    }
    const fourth = person(domain);
    expect((await ssoSignInByHttp(api.url, { email: fourth.email }, fourth.email)).location).toBe("/signin?sso_error=members_quota");
    const [row] = await api.sql<{ n: number }[]>`select count(*)::int as n from users where email = ${fourth.email}`;
    expect(row!.n).toBe(0);
  });

  it("answers start with 404 for an unknown domain or slug and 400 for a bad body; the callback sends bad flows back to sign-in", async () => {
    const start = (body: unknown) => fetch(`${api.url}/api/v1/auth/sso/start`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const none = await start({ email: `x@nobody-${unique()}.example` });
    expect(none.status).toBe(404);
    expect(((await none.json()) as any).code).toBe("NOT_FOUND");
    expect((await start({ org_slug: `missing-${unique()}` })).status).toBe(404);
    for (const bad of [{}, { email: "a@b.example", org_slug: "b" }, { email: "not-an-email" }, { org_slug: "Bad Slug" }]) {
      const res = await start(bad);
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).code).toBe("VALIDATION_ERROR");
    }
    const noCookie = await fetch(`${api.url}/api/v1/auth/sso/callback?code=abc&state=def`, { redirect: "manual" });
    expect(noCookie.status).toBe(303);
    expect(noCookie.headers.get("location")).toBe("/signin?sso_error=flow_expired");
    const forged = await fetch(`${api.url}/api/v1/auth/sso/callback?code=abc&state=def`, { redirect: "manual", headers: { cookie: "wp_sso=v1.a.b.c" } });
    expect(forged.headers.get("location")).toBe("/signin?sso_error=flow_expired");
  });

  it("refuses a callback whose state does not match the browser's flow cookie", async () => {
    const { slug } = await ssoOrg({ allowed_domains: [] });
    const started = await fetch(`${api.url}/api/v1/auth/sso/start`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ org_slug: slug }) });
    const body = (await started.json()) as { redirect_url: string };
    const flow = started.headers.getSetCookie().find((c) => c.startsWith("wp_sso="))!.split(";")[0]!;
    const url = new URL(body.redirect_url);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("nonce")).toBeTruthy();
    const res = await fetch(`${api.url}/api/v1/auth/sso/callback?code=stolen&state=not-the-state&iss=${encodeURIComponent(idp.issuer)}`, { redirect: "manual", headers: { cookie: flow } });
    expect(res.headers.get("location")).toBe("/signin?sso_error=provider_error");
    expect(res.headers.getSetCookie().some((c) => c.startsWith("wp_session="))).toBe(false);
  });
});
