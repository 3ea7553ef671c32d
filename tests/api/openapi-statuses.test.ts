/**
 * Walks the served OpenAPI document and holds it to what the server does: every response status
 * documented for an operation is answered by some request in this file (targeted probes, plus a
 * seeded sample of the fuzz generator) or is marked below with the reason it is not reached here;
 * and every error code the server sends, or can send (the AppError codes), is listed in
 * docs/api-conventions.md.
 */
import { afterAll, beforeAll, expect, it } from "bun:test";
import fc from "fast-check";
import * as OTPAuth from "otpauth";
import { readFileSync } from "node:fs";
import { client, makeOrg, signUp, startTestApi, type TestApi } from "../support/api.ts";
import { bodySchemaOf, deref, type Endpoint, endpoints, exampleOf, type FuzzRequest, type OpenApiDocument, requestArbitrary, toFetch } from "../support/openapi-fuzz.ts";
import { fillPath, populateOrg, type Populated } from "../support/populate.ts";
import { orgWithPage } from "../status-pages/support.ts";

const MAX_BODY_BYTES = 64 * 1024;
const SEED = 20261126;
const FUZZ_RUNS = 10;
const SAFE_ENV = { MAX_BODY_BYTES: String(MAX_BODY_BYTES), PADDLE_API_URL: "http://127.0.0.1:9", STATUS_PAGE_DNS_SERVERS: "127.0.0.1:9", PUBLIC_BASE_URL: "http://127.0.0.1:9" };

/** Statuses every operation documents that no request of a healthy server reaches, and where each is proven. */
const MARKED_EVERYWHERE: Record<string, string> = {
  "500": "a server fault: documented so clients retry with backoff; tests/api/errors.test.ts '500 INTERNAL_ERROR' proves the body",
  "503": "the database is unreachable: tests/api/errors.test.ts '503 SERVICE_UNAVAILABLE' and tests/faults/topology.test.ts reach it",
};

const mark = (reason: string, names: string[]) => Object.fromEntries(names.map((n) => [n, reason]));

/**
 * The document gives every write 409 and every authenticated operation 404 (api/openapi/document.ts);
 * these operations have no rule that conflicts, or no resource to miss, so the status is never sent.
 * The document over-declares them; a route can narrow its statuses once it declares its own (x-errors).
 */
const OVER_DECLARED = "documented by a blanket rule of api/openapi/document.ts, never sent: no rule of this operation answers it";
const NEVER_CONFLICTS = [
  "POST /api/v1/auth/signin", "POST /api/v1/auth/signout", "POST /api/v1/auth/password-reset/request", "POST /api/v1/auth/password-reset/confirm",
  "DELETE /api/v1/user/sessions/{id}", "POST /api/v1/orgs", "PATCH /api/v1/org", "PATCH /api/v1/org/security-policy", "DELETE /api/v1/org/invitations/{id}",
  "POST /api/v1/api-keys", "DELETE /api/v1/api-keys/{id}", "POST /api/v1/billing/webhooks/paddle", "POST /api/v1/billing/overlaps/{id}/dismiss",
  "POST /api/v1/monitors", "POST /api/v1/monitors/bulk", "PATCH /api/v1/monitors/{id}", "DELETE /api/v1/monitors/{id}", "POST /api/v1/monitors/{id}/pause", "POST /api/v1/monitors/{id}/resume",
  "POST /api/v1/monitors/bulk/pause", "POST /api/v1/monitors/bulk/resume", "POST /api/v1/monitors/bulk/delete", "DELETE /api/v1/monitor-groups/{tag}",
  "POST /api/v1/maintenance-windows", "PATCH /api/v1/maintenance-windows/{id}", "DELETE /api/v1/maintenance-windows/{id}",
  "POST /api/v1/alert-channels", "PATCH /api/v1/alert-channels/{id}", "POST /api/v1/alert-channels/{id}/test", "POST /api/v1/alert-channels/preview",
  "POST /api/v1/alert-rules", "PATCH /api/v1/alert-rules/{id}", "DELETE /api/v1/alert-rules/{id}", "POST /api/v1/alert-rules/{id}/acknowledge",
  "POST /api/v1/escalation-policies", "PATCH /api/v1/escalation-policies/{id}", "POST /api/v1/notifications/{id}/read", "POST /api/v1/notifications/read-all",
  "POST /api/v1/heartbeat/{token}", "POST /api/v1/heartbeat/{token}/start", "POST /api/v1/heartbeat/{token}/fail", "POST /api/v1/heartbeat/{token}/{exit_status}", "POST /api/v1/runners", "PATCH /api/v1/runners/{id}", "DELETE /api/v1/runners/{id}", "POST /api/v1/runner/session",
  "DELETE /api/v1/status-pages/{id}", "PUT /api/v1/status-pages/{id}/layout", "POST /api/v1/status-pages/{id}/subscribers", "DELETE /api/v1/status-pages/{id}/domain",
  "DELETE /api/v1/status-pages/{id}/subscribers/{subscriberId}", "POST /api/v1/themes", "PATCH /api/v1/themes/{id}",
  "POST /api/v1/incidents", "PATCH /api/v1/incidents/{id}", "DELETE /api/v1/incidents/{id}", "POST /api/v1/incidents/{id}/updates", "POST /api/v1/incidents/{id}/resolve",
  "POST /api/v1/unsubscribe", "POST /api/v1/auth/sso/start", "POST /api/v1/auth/sso/link", "DELETE /api/v1/org/sso", "POST /api/v1/org/sso/test",
  "POST /api/v1/reports", "PATCH /api/v1/reports/{id}", "DELETE /api/v1/reports/{id}", "POST /api/v1/reports/{id}/send", "POST /api/v1/reports/unsubscribe",
];
const RUNNER_PROTOCOL = ["session", "heartbeat", "jobs/claim", "results", "jobs/release", "session/end"].map((p) => `POST /api/v1/runner/${p}`);

/** `METHOD path status` → why this file does not reach it. A mark is a reason or a debt; a reached status may not keep one. */
const MARKED: Record<string, string> = {
  ...mark(OVER_DECLARED, NEVER_CONFLICTS.map((op) => `${op} 409`)),
  ...mark(`${OVER_DECLARED} (a runner is its token: unknown or revoked is 401 RUNNER_TOKEN_INVALID)`, RUNNER_PROTOCOL.map((op) => `${op} 404`)),
  "POST /api/v1/billing/webhooks/paddle 429": `${OVER_DECLARED} (provider webhooks are exempt from rate limits: api/edge/edge.ts)`,
  "POST /status/{slug}/login 204":
    "never sent: success is the 303 redirect; api/openapi/document.ts adds 204 to an operation without a 2xx, which tests/api/openapi.test.ts (Redocly operation-2xx-response) requires",
  ...mark("needs an encrypted runner session (X25519 handshake): tests/runners/runner-protocol.test.ts", RUNNER_PROTOCOL.slice(1).map((op) => `${op} 200`)),
  ...mark("needs a configured payment provider: tests/billing/webhooks.test.ts", ["200", "400", "401"].map((s) => `POST /api/v1/billing/webhooks/paddle ${s}`)),
  ...mark(
    "needs the payment provider (simulator): tests/billing/lifecycle.test.ts and plan-change.test.ts",
    ["checkout", "change-plan", "lines/{id}/cancel", "lines/{id}/resume", "overlaps/{id}/cancel", "overlaps/{id}/dismiss"].map((p) => `POST /api/v1/billing/${p} 200`),
  ),
  "GET /api/v1/monitors/{id}/checks/{checkId}/screenshot 200": "needs a failed browser check (Chromium): tests/api/browser-checks.test.ts",
  "POST /api/v1/alert-rules/{id}/acknowledge 200": "needs a firing alert from the alerting role: tests/web/monitors-alerting.test.ts acknowledges one",
  "GET /api/v1/alerts/{id}/timeline 200": "needs an alert that fired (results evaluated by the alerting engine): api/routes/alerts/timeline.test.ts and tests/web/charts-timeline.test.ts",
  "POST /api/v1/status-pages/{id}/domain/verify 200": "needs a DNS server holding the TXT record: tests/status-pages/management.test.ts",
  "POST /api/v1/setup 201": "needs an installation without any organisation: tests/api/setup.test.ts, on its own database",
  "POST /api/v1/auth/sso/start 200": "needs a reachable identity provider (on loopback, with ALLOW_PRIVATE_IPS): tests/api/sso.test.ts and tests/web/sso.test.ts run one",
  "POST /api/v1/auth/sso/link 200": "needs a reachable identity provider (on loopback, with ALLOW_PRIVATE_IPS): tests/api/sso.test.ts and tests/web/sso.test.ts link an account through one",
  "GET /api/v1/auth/sso/callback 204":
    "never sent: success and failure are 303 redirects; api/openapi/document.ts adds 204 to an operation without a 2xx, which tests/api/openapi.test.ts (Redocly operation-2xx-response) requires",
};

/** Operations that end the caller's session or account. */
const ENDS_SESSION = new Set(["POST /api/v1/auth/signout", "DELETE /api/v1/user"]);

let api: TestApi;
let limited: TestApi;
let unbilled: TestApi;
let doc: OpenApiDocument;
const seen = new Map<string, Set<string>>();
const codesSent = new Map<string, string>();

const opName = (e: Endpoint) => `${e.method} ${e.path}`;

/** Which documented operation a request hits: the template with the most literal segments wins (bulk/pause over {id}/pause). */
let routes: { e: Endpoint; re: RegExp; literal: number }[] = [];
const operationOf = (method: string, pathname: string) =>
  routes.filter((r) => r.e.method === method && r.re.test(pathname)).sort((a, b) => b.literal - a.literal)[0]?.e;

/** Every answer of the servers under test is noted against its operation, whoever asked (probes, populate, flows). */
const realFetch = globalThis.fetch;
const recordingFetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
  const res = await realFetch(input, init);
  const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
  const bases = [api, limited, unbilled].filter(Boolean).map((a) => a.url);
  if (!bases.includes(url.origin)) return res;
  const e = operationOf((init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase(), url.pathname);
  if (!e) return res;
  const type = res.headers.get("content-type") ?? "";
  const text = res.status >= 400 && type.includes("json") ? await res.clone().text() : "";
  note(e, res.status, text);
  return res;
};
const note = (e: Endpoint, status: number, text: string) => {
  const name = opName(e);
  if (!seen.has(name)) seen.set(name, new Set());
  seen.get(name)!.add(String(status));
  if (status < 400) return;
  try {
    const code = (JSON.parse(text) as { code?: unknown }).code;
    if (typeof code === "string" && !codesSent.has(code)) codesSent.set(code, `${name} → ${status}`);
  } catch {}
};

async function send(base: string, r: FuzzRequest): Promise<Response> {
  const [url, init] = toFetch(base, r, MAX_BODY_BYTES);
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(20_000) });
  // Streams (live events, exports) are judged by their status alone.
  await res.body?.cancel().catch(() => {});
  return res;
}

beforeAll(async () => {
  api = await startTestApi(SAFE_ENV);
  // One request a minute per organisation and per address: the second request of anyone is refused.
  limited = await startTestApi({ ...SAFE_ENV, RATE_LIMIT_PER_ORG: "1", RATE_LIMIT_PER_IP: "1" });
  // A self-hosted deployment behind a TLS proxy: billing writes answer 409, plain-HTTP runner traffic 403.
  unbilled = await startTestApi({ ...SAFE_ENV, BILLING: "off", TRUST_PROXY: "true" });
  doc = (await (await fetch(`${api.url}/openapi.json`)).json()) as OpenApiDocument;
  routes = endpoints(doc).map((e) => ({
    e,
    re: new RegExp(`^${e.path.replace(/[.]/g, "\\.").replace(/\{[^}]+\}/g, "[^/]+")}$`),
    literal: e.path.split("/").filter((seg) => seg && !seg.startsWith("{")).length,
  }));
  globalThis.fetch = recordingFetch as typeof fetch;
}, 60_000);
afterAll(async () => {
  globalThis.fetch = realFetch;
  await limited?.stop();
  await unbilled?.stop();
  await api?.stop();
});

interface Caller {
  headers: Record<string, string>;
}

/** A new organisation's owner, signed in (billing and /user need a session), and their key. */
async function callers(base: string, sqlApi: TestApi, plan: string, requires2fa = false) {
  const org = await makeOrg(sqlApi.sql, plan);
  if (requires2fa) await sqlApi.sql`insert into org_security_policies (org_id, require_2fa) values (${org.org_id}, true) on conflict (org_id) do update set require_2fa = true`;
  const signin = await fetch(`${base}/api/v1/auth/signin`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: org.email, password: org.password }) });
  const csrf = ((await signin.json()) as { csrf_token: string }).csrf_token;
  const cookie = signin.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  return { org, key: { headers: { authorization: `Bearer ${org.api_key}` } }, session: { headers: { cookie, "x-csrf-token": csrf } } };
}

function valid(e: Endpoint, own: Populated | null, who: Caller, over: Partial<FuzzRequest> = {}): FuzzRequest {
  const params = e.op.parameters ?? [];
  let path = (own && fillPath(e.path, own)) ?? e.path;
  for (const p of params.filter((p) => p.in === "path")) path = path.replace(`{${p.name}}`, encodeURIComponent(String(exampleOf(doc, p.schema, p.name))));
  const query = params.filter((p) => p.in === "query" && p.required).map((p) => [p.name, String(exampleOf(doc, p.schema, p.name))] as [string, string]);
  const body = bodySchemaOf(doc, e.op);
  return { method: e.method, path, query, headers: { ...who.headers }, bodyKind: body ? "json" : null, body: body ? exampleOf(doc, body) : undefined, ...over };
}


/**
 * Requests the generic probes cannot make: whole flows (2FA, password reset, invitations) and the
 * state conflicts the document promises (409). Their answers are noted by the recording fetch.
 */
async function flows(owner: Awaited<ReturnType<typeof callers>>) {
  const base = api.url;
  const key = client(base, { key: owner.org.api_key });
  const session = client(base, { headers: owner.session.headers });
  const signIn = (email: string, password: string) => client(base)("POST", "/api/v1/auth/signin", { email, password });
  // Login CSRF: a sign-up or sign-in posted from another site's page is 403 cross_site.
  const crossSite = client(base, { headers: { "sec-fetch-site": "cross-site", origin: "https://evil.example" } });
  await crossSite("POST", "/api/v1/auth/signup", { email: `cross-${Date.now()}@example.test`, password: "long enough password" });
  await crossSite("POST", "/api/v1/auth/signin", { email: owner.org.email, password: owner.org.password });
  await crossSite("POST", "/api/v1/setup", { email: `cross-${Date.now()}@example.test`, password: "long enough password", name: "Cross", org_name: "Cross" });

  // Single sign-on: a configuration whose provider is not reachable here, a rival wanting its slug (409), SSO started
  // from another site's page (403), a callback parameter past its limit (400). tests/api/sso.test.ts signs in for real.
  const sso = { slug: `sso-${Date.now().toString(36)}`, issuer: "https://idp.example.test", client_id: "c", client_secret: "s", allowed_domains: [], default_role_id: "member", require_sso: false };
  await key("PUT", "/api/v1/org/sso", sso);
  await key("GET", "/api/v1/org/sso");
  await key("POST", "/api/v1/org/sso/test", { issuer: sso.issuer });
  await client(base, { key: (await makeOrg(api.sql, "business")).api_key })("PUT", "/api/v1/org/sso", sso);
  await crossSite("POST", "/api/v1/auth/sso/start", { org_slug: sso.slug });
  await client(base)("GET", `/api/v1/auth/sso/callback?code=${"x".repeat(5000)}`);
  await key("DELETE", "/api/v1/org/sso");

  // The user's own account: sessions, 2FA, profile, password reset, deletion.
  const u = await signUp(base);
  await signIn(u.email, u.password);
  const other = (await u.call("GET", "/api/v1/user/sessions")).body.data.find((x: { current: boolean }) => !x.current).id;
  await u.call("DELETE", `/api/v1/user/sessions/${other}`);
  await u.call("POST", "/api/v1/user/2fa/enable", { code: "123456" });
  const secret = (await u.call("POST", "/api/v1/user/2fa/setup")).body.secret as string;
  const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: "SHA1" });
  await u.call("POST", "/api/v1/user/2fa/enable", { code: totp.generate() });
  await u.call("POST", "/api/v1/user/2fa/recovery-codes", { password: u.password });
  await u.call("POST", "/api/v1/user/2fa/setup");
  await u.call("POST", "/api/v1/user/2fa/disable", { code: totp.generate({ timestamp: Date.now() + 30_000 }) });
  const taken = await signUp(base);
  await u.call("PATCH", "/api/v1/user", { email: taken.email, current_password: u.password });
  const sent = api.mailer.sent.length;
  await client(base)("POST", "/api/v1/auth/password-reset/request", { email: taken.email });
  await api.flushMail();
  const token = api.mailer.sent.slice(sent)[0]?.text.match(/token[^:]*: (\S+)/)?.[1];
  await client(base)("POST", "/api/v1/auth/password-reset/confirm", { token, password: "a brand new password" });
  await u.call("DELETE", "/api/v1/user", { password: u.password });

  // Members and invitations: the last owner stays, a pending invitation is not sent twice.
  const w = await signUp(base);
  const invitation = await key("POST", "/api/v1/org/invitations", { email: w.email, role_id: "member" });
  await key("POST", "/api/v1/org/invitations", { email: w.email, role_id: "member" });
  await w.call("POST", "/api/v1/invitations/accept", { token: invitation.body.token });
  // Inviting a member is refused (409) at once; an invitation to an address a member takes on later is refused on acceptance.
  await key("POST", "/api/v1/org/invitations", { email: w.email, role_id: "member" });
  const again = await key("POST", "/api/v1/org/invitations", { email: `moved-${w.email}`, role_id: "member" });
  await w.call("PATCH", "/api/v1/user", { email: `moved-${w.email}`, current_password: w.password });
  await w.call("POST", "/api/v1/invitations/accept", { token: again.body.token });
  await key("PATCH", `/api/v1/org/members/${w.userId}`, { role_id: "viewer" });
  await session("PATCH", `/api/v1/org/members/${owner.org.user_id}`, { role_id: "member" });
  await session("DELETE", `/api/v1/org/members/${owner.org.user_id}`);
  await key("PATCH", "/api/v1/org/roles/viewer", { name: "Watcher" });
  await key("DELETE", "/api/v1/org/roles/admin");
  await session("DELETE", "/api/v1/user", { password: owner.org.password });

  // Monitors: run-now and its stored check; a heartbeat has nothing to run; its pings.
  const target = (await key("POST", "/api/v1/monitors", { name: "target", type: "tcp", config: { host: "127.0.0.1", port: 9 }, tags: ["left"] })).body;
  const paused = (await key("POST", "/api/v1/monitors", { name: "other", type: "tcp", config: { host: "127.0.0.1", port: 9 }, tags: ["right"], paused: true })).body;
  await key("POST", "/api/v1/monitors/bulk", { monitors: [{ name: "bulk", type: "tcp", config: { host: "127.0.0.1", port: 9 } }] });
  const run = await key("POST", `/api/v1/monitors/${target.id}/run`);
  await key("GET", `/api/v1/monitors/${target.id}/checks/${run.body.id}`);
  await key("PATCH", "/api/v1/monitor-groups/left", { tag: "right" });
  const beat = (await key("POST", "/api/v1/monitors", { name: "cron", type: "heartbeat", config: { period_seconds: 3600 } })).body;
  await key("POST", `/api/v1/monitors/${beat.id}/run`);
  await key("POST", "/api/v1/monitors/test", { type: "heartbeat", config: { period_seconds: 3600 } });
  const beatToken = new URL(beat.heartbeat_url).pathname.split("/").pop();
  await client(base)("GET", `/api/v1/heartbeat/${beatToken}`);
  await client(base)("POST", `/api/v1/heartbeat/${beatToken}`);
  for (const signal of ["start", "fail", "0", "3"]) {
    await client(base)("GET", `/api/v1/heartbeat/${beatToken}/${signal}`);
    await client(base)("POST", `/api/v1/heartbeat/${beatToken}/${signal}`);
  }
  // Bulk actions on monitors of this organisation.
  await key("POST", "/api/v1/monitors/bulk/pause", { ids: [paused.id] });
  await key("POST", "/api/v1/monitors/bulk/resume", { ids: [paused.id] });
  await key("POST", "/api/v1/monitors/bulk/delete", { ids: [paused.id] });

  // Alerting: a policy in use by a rule stays.
  const channel = (await key("POST", "/api/v1/alert-channels", { name: "hook", type: "webhook", config: { url: "http://127.0.0.1:9/hook" } })).body;
  const policy = (await key("POST", "/api/v1/escalation-policies", { name: "p", steps: [{ delay_minutes: 0, channel_ids: [channel.id] }] })).body;
  await key("POST", "/api/v1/alert-rules", { name: "r", scope: { type: "all_monitors" }, condition: { type: "status_change", to: ["down"] }, escalation_policy_id: policy.id });
  await key("DELETE", `/api/v1/escalation-policies/${policy.id}`);
  const spare = (await key("POST", "/api/v1/alert-channels", { name: "spare", type: "webhook", config: { url: "http://127.0.0.1:9/hook" } })).body;
  await key("DELETE", `/api/v1/alert-channels/${spare.id}`);

  // Status pages: slugs and domains are unique, a theme in use stays, the TXT record is not there.
  const theme = (await key("POST", "/api/v1/themes", { name: "mine" })).body;
  const suffix = Math.random().toString(36).slice(2, 8);
  const one = (await key("POST", "/api/v1/status-pages", { name: "one", slug: `one-${suffix}`, theme_id: theme.id })).body;
  const two = (await key("POST", "/api/v1/status-pages", { name: "two", slug: `two-${suffix}` })).body;
  await key("PATCH", `/api/v1/status-pages/${two.id}`, { slug: `one-${suffix}` });
  await key("DELETE", `/api/v1/themes/${theme.id}`);
  await key("POST", `/api/v1/status-pages/${one.id}/domain`, { domain: `status-${suffix}.example.test` });
  await key("POST", `/api/v1/status-pages/${two.id}/domain`, { domain: `status-${suffix}.example.test` });
  await key("POST", `/api/v1/status-pages/${one.id}/domain/verify`);
  await key("DELETE", `/api/v1/status-pages/${one.id}/domain`);
  const subscriber = (await key("POST", `/api/v1/status-pages/${two.id}/subscribers`, { email: `s-${suffix}@example.test` })).body;
  await key("DELETE", `/api/v1/status-pages/${two.id}/subscribers/${subscriber.id}`);
}


/** The public side: pages and feeds (200, 304, 401), the password form, subscriptions, badges, unsubscribe links. */
async function publicFlows() {
  const base = api.url;
  const local = (link: string) => `${base}${new URL(link).pathname}${new URL(link).search}`;
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${base}${path}`, { headers, redirect: "manual" });
  // A page re-renders (and its "Updated" time and ETag change) when a change notification for its organisation
  // arrives; the ones from setting the page up can land after the first GET on a loaded machine. Revalidate with the
  // latest ETag until the page settles and answers 304.
  const revalidate = async (path: string) => {
    let etag = (await get(path)).headers.get("etag");
    for (let i = 0; etag && i < 10; i++) {
      const again = await get(path, { "if-none-match": etag });
      if (again.status === 304) return;
      etag = again.headers.get("etag");
      await Bun.sleep(100);
    }
  };
  const open = await orgWithPage(api);
  for (const view of ["", "/index.json", "/feed.rss", "/feed.atom"]) await revalidate(`/status/${open.slug}${view}`);
  for (const kind of ["status", "uptime", "response-time"]) await revalidate(`/badge/${open.apiMon}/${kind}.svg`);
  const locked = await orgWithPage(api, { access: { mode: "password", password: "open sesame" } });
  for (const view of ["", "/index.json", "/feed.rss", "/feed.atom"]) await get(`/status/${locked.slug}${view}`);
  const form = (path: string, body: Record<string, string>) =>
    fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(body), redirect: "manual" });
  await form(`/status/${locked.slug}/login`, { password: "open sesame" });
  // Login CSRF: the password form posted from another site's page.
  await fetch(`${base}/status/${locked.slug}/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "sec-fetch-site": "cross-site", origin: "https://evil.example" },
    body: new URLSearchParams({ password: "open sesame" }),
    redirect: "manual",
  });
  // 10 a minute per address, in windows aligned to the minute: 22 attempts put 11 in one window.
  for (let i = 0; i < 22; i++) await form(`/status/${locked.slug}/login`, { password: "wrong" });

  const email = `reader-${Date.now()}@example.test`;
  await form(`/status/${open.slug}/subscribe`, { email });
  await api.flushMail();
  const mail = api.mailer.sent.filter((m) => m.to === email).at(-1)!;
  const confirmLink = local(/http:\/\/\S+\/confirm\?token=\S+/.exec(mail.text)![0]);
  await fetch(confirmLink);
  // The page's button: POST to the same address confirms; then an unknown page and a bad token.
  await fetch(confirmLink, { method: "POST" });
  await get(`/status/no-such-page-${Date.now()}/confirm?token=x`);
  await fetch(`${base}/status/no-such-page-${Date.now()}/confirm?token=x`, { method: "POST" });
  const unsubscribe = local(/<(.+)>/.exec(mail.headers!["List-Unsubscribe"]!)![1]!);
  await fetch(unsubscribe);
  await fetch(unsubscribe, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "List-Unsubscribe=One-Click" });
  for (let i = 0; i < 22; i++) await form(`/status/${open.slug}/subscribe`, { email: `many-${i}-${email}` });

  // A report's unsubscribe link, from a report sent now to its recipient.
  const owner = client(base, { key: open.org.api_key });
  const reader = `report-${Date.now()}@example.test`;
  const report = await owner("POST", "/api/v1/reports", { name: "Weekly", scope: "org", frequency: "weekly", day: 1, send_time: "09:00", timezone: "UTC", recipients: [{ type: "email", email: reader }] });
  await owner("POST", `/api/v1/reports/${report.body.id}/send`, { to: "recipients" });
  await api.flushMail();
  const reportMail = api.mailer.sent.filter((m) => m.to === reader).at(-1)!;
  const leave = local(/<(.+)>/.exec(reportMail.headers!["List-Unsubscribe"]!)![1]!);
  await fetch(leave);
  await fetch(leave, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "List-Unsubscribe=One-Click" });
}

/** A runner's own token: the handshake from the schema's example, sealed payloads for a session that does not exist (409). */
function runnerProbe(e: Endpoint, own: Populated): FuzzRequest {
  const r = valid(e, own, { headers: { authorization: `Bearer ${own.secrets.runnerToken}` } });
  return e.path.endsWith("/session") ? r : { ...r, body: { session_id: "rss_unknown", seq: 1, nonce: "AAAAAAAAAAAAAAAA", ciphertext: "AAAA" } };
}

/** Every path parameter and header one character past its maxLength: 400 before any lookup. */
function tooLong(r: FuzzRequest, e: Endpoint): FuzzRequest {
  let path = e.path;
  const headers = { ...r.headers };
  for (const p of e.op.parameters ?? []) {
    const over = "x".repeat(Number(p.schema?.maxLength ?? 64) + 1);
    if (p.in === "path") path = path.replace(`{${p.name}}`, over);
    if (p.in === "header" && p.schema?.maxLength) headers[p.name] = over;
  }
  return { ...r, path, headers };
}

it(
  "reaches every documented response status of every operation, or marks it with a reason",
  async () => {
    const all = endpoints(doc);
    const order = ["GET", "POST", "PUT", "PATCH", "DELETE"];
    const byTag = new Map<string, Endpoint[]>();
    for (const e of all) byTag.set(e.op.tags?.[0] ?? "none", [...(byTag.get(e.op.tags?.[0] ?? "none") ?? []), e]);

    // A viewer of one organisation and a key that may only read incidents: refused (403) nearly everywhere.
    const shared = await callers(api.url, api, "business");
    const viewer = await signUp(api.url);
    const invite = await client(api.url, { key: shared.org.api_key })("POST", "/api/v1/org/invitations", { email: viewer.email, role_id: "viewer" });
    await viewer.call("POST", "/api/v1/invitations/accept", { token: invite.body.token });
    const viewerCaller = { headers: { cookie: viewer.cookie, "x-csrf-token": viewer.csrf, "x-org-id": shared.org.org_id } };
    const narrowKey = (await client(api.url, { key: shared.org.api_key })("POST", "/api/v1/api-keys", { name: "narrow", scopes: ["incidents:read"] })).body.key as string;
    const narrow = { headers: { authorization: `Bearer ${narrowKey}` } };
    const otherKey = (await client(api.url, { key: shared.org.api_key })("POST", "/api/v1/api-keys", { name: "monitors only", scopes: ["monitors:read"] })).body.key as string;
    const monitorsOnly = { headers: { authorization: `Bearer ${otherKey}` } };
    const free = await callers(api.url, api, "free");
    // An organisation whose policy requires 2FA its owner has not enabled: 403 on its routes.
    const strict = await callers(api.url, api, "business", true);
    const offOrg = await callers(unbilled.url, unbilled, "business");

    let seed = SEED;
    for (const [tag, group] of byTag) {
      const mine = await callers(api.url, api, "business");
      const own = await populateOrg(api, mine.org, tag.replace(/[^a-z]/g, "").slice(0, 10) || "t");
      for (const e of [...group].sort((a, b) => order.indexOf(a.method) - order.indexOf(b.method))) {
        const hasBody = bodySchemaOf(doc, e.op) !== null;
        if (ENDS_SESSION.has(opName(e))) {
          // Signing out or deleting the account would end the sessions the other probes use: throwaway users instead.
          for (const over of [{}, { headers: { "x-org-id": "org_nonexistent" } }, { bodyKind: "malformed" as const }, { bodyKind: "oversized" as const }, { query: [["unknown", "1"]] as [string, string][] }]) {
            const t = await signUp(api.url);
            const r = valid(e, null, { headers: { cookie: t.cookie, "x-csrf-token": t.csrf } });
            await send(api.url, { ...r, ...over, headers: { ...r.headers, ...over.headers } });
          }
          await send(api.url, valid(e, null, { headers: {} }));
          await send(api.url, valid(e, null, mine.key));
          continue;
        }
        const probes: FuzzRequest[] = [
          valid(e, own, mine.key),
          valid(e, own, mine.session),
          valid(e, own, { headers: {} }),
          valid(e, own, viewerCaller),
          valid(e, own, narrow),
          valid(e, own, monitorsOnly),
          // A runner's token: sealed payloads for a session that does not exist (409 RUNNER_SESSION_INVALID).
          ...(e.path.startsWith("/api/v1/runner/") ? [runnerProbe(e, own)] : []),
          valid(e, null, free.key),
          valid(e, null, free.session),
          valid(e, null, mine.key),
          valid(e, own, strict.session),
          valid(e, own, { headers: { ...mine.session.headers, "x-org-id": "org_nonexistent" } }),
          { ...valid(e, own, mine.key), query: [["unknown", "1"]] },
          // Session-only routes (the user's own sessions, organisations, invitations) refuse a key before validating.
          { ...valid(e, own, mine.session), query: [["unknown", "1"]] },
          tooLong(valid(e, own, mine.key), e),
          ...(hasBody ? [{ ...valid(e, own, mine.key), bodyKind: "malformed" as const }] : []),
          ...("413" in e.op.responses ? [{ ...valid(e, own, mine.key), bodyKind: "oversized" as const }] : []),
        ];
        for (const r of probes) await send(api.url, r);
        const sample = fc.sample(requestArbitrary(doc, e, { ids: { own: own.all, foreign: [] }, ownIds: true, auth: { key: mine.org.api_key } }), { numRuns: FUZZ_RUNS, seed: seed++ });
        for (let i = 0; i < sample.length; i += 5) await Promise.all(sample.slice(i, i + 5).map((r) => send(api.url, r)));
      }
      // Deletes again on resources nothing has changed yet, the deepest first (a subscriber before its page,
      // a tag group before the monitors carrying it).
      const deletes = group.filter((e) => e.method === "DELETE").sort((a, b) => b.path.split("/").length - a.path.split("/").length || a.path.localeCompare(b.path));
      if (deletes.length) {
        const fresh = await populateOrg(api, mine.org, `d${tag.replace(/[^a-z]/g, "").slice(0, 8)}`);
        for (const e of deletes) if (!ENDS_SESSION.has(opName(e))) await send(api.url, valid(e, fresh, mine.session));
      }
    }

    for (const e of all.filter((e) => e.path.startsWith("/api/v1/billing/"))) await send(unbilled.url, valid(e, null, offOrg.session));

    await flows(await callers(api.url, api, "business"));
    await publicFlows();
    // Runner traffic that is not HTTPS behind a trusted proxy: 403 RUNNER_HTTPS_REQUIRED.
    for (const e of all.filter((e) => e.path.startsWith("/api/v1/runner/"))) await send(unbilled.url, valid(e, null, { headers: { authorization: "Bearer rt_x", "x-forwarded-proto": "http" } }));

    // Rate limits: the limited server refuses every request past the first of a minute. Each request is sent twice:
    // when a minute begins between an operation's requests, the first of the new minute is let through.
    const rl = await callers(limited.url, limited, "business");
    for (const e of all) {
      for (let i = 0; i < 2; i++) await send(limited.url, valid(e, null, rl.key));
      for (let i = 0; i < 2; i++) await send(limited.url, valid(e, null, { headers: {} }));
    }

    const unreached: string[] = [];
    for (const e of all) {
      for (const status of Object.keys(e.op.responses)) {
        const name = `${opName(e)} ${status}`;
        if (seen.get(opName(e))?.has(status) || status in MARKED_EVERYWHERE || name in MARKED) continue;
        unreached.push(name);
      }
    }
    const stale = Object.keys(MARKED).filter((name) => {
      const [method, path, status] = name.split(" ");
      return seen.get(`${method} ${path}`)?.has(status!);
    });
    console.log(`openapi statuses: ${all.length} operations, ${[...seen.values()].reduce((n, s) => n + s.size, 0)} (operation, status) pairs reached, ${Object.keys(MARKED).length} marked`);
    expect(unreached).toEqual([]);
    expect(stale).toEqual([]);
  },
  { timeout: 240_000 },
);

it("sends only error codes that docs/api-conventions.md lists, and the conventions list every code core/errors.ts defines", () => {
  expect(codesSent.size).toBeGreaterThan(5);
  const conventions = readFileSync(new URL("../../docs/api-conventions.md", import.meta.url), "utf8");
  const defined = [...readFileSync(new URL("../../core/errors.ts", import.meta.url), "utf8").matchAll(/\|\s*"([A-Z_]+)"/g)].map((m) => m[1]!);
  const documentedCodes = new Set([...conventions.matchAll(/\|\s*`?([A-Z][A-Z_]+)`?\s*\|/g)].map((m) => m[1]!));
  const codes = [...new Set([...defined, ...codesSent.keys(), ...((deref(doc, { $ref: "#/components/schemas/Error" }).properties.code.enum as string[]) ?? [])])];
  expect(codes.filter((c) => !documentedCodes.has(c)).map((c) => `${c} (${codesSent.get(c) ?? "defined in core/errors.ts"})`)).toEqual([]);
});
