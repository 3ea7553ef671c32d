/**
 * Security properties checked over every route of the OpenAPI document rather than a sample:
 * another organisation's resources answer 404 exactly as missing ones do; every write refuses a
 * key without the scope and a member without the role; secrets handed out once never come back in
 * an answer or a log line; the heartbeat and unsubscribe tokens cannot be guessed or timed; the
 * private-address guard holds across redirects and DNS answers that change between checks.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createHash } from "node:crypto";
import { Writable } from "node:stream";
import { createHttpFetch } from "../../alerting/channels/http.ts";
import { loadApiConfig } from "../../api/config.ts";
import { buildApiDeps, startApiServer, type ApiServer } from "../../api/server.ts";
import { hashToken, SecretBox, safeEqual } from "../../core/crypto/secrets.ts";
import { createLogger } from "../../core/log.ts";
import type { HostResolver } from "../../core/net-guard/index.ts";
import { signSubscriberToken } from "../../domain/status-pages/tokens.ts";
import { httpCheck } from "../../runner/checks/http/http.ts";
import { client, makeOrg, signUp, TEST_SECRET_KEY } from "../support/api.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { bodySchemaOf, type Endpoint, endpoints, exampleOf, type OpenApiDocument } from "../support/openapi-fuzz.ts";
import { fillPath, populateOrg, type Populated } from "../support/populate.ts";

let db: TestDatabase;
let server: ApiServer;
let url: string;
let doc: OpenApiDocument;
const logLines: string[] = [];
type Org = Awaited<ReturnType<typeof makeOrg>>;
let mine: { org: Org; data: Populated };
let theirs: { org: Org; data: Populated };

beforeAll(async () => {
  db = await createTestDatabase();
  // Every log line of the API, at the most verbose level, to search for secrets.
  const sink = new Writable({
    write(chunk, _enc, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  const config = loadApiConfig({ DATABASE_URL: db.url, PORT: "0", HOST: "127.0.0.1", RATE_LIMIT_PER_ORG: "1000000", RATE_LIMIT_PER_SESSION: "1000000", RATE_LIMIT_PER_IP: "1000000", RATE_LIMIT_SIGNIN_PER_IP: "1000000", LOG_LEVEL: "trace" });
  const log = createLogger({ level: "trace", format: "json", destination: sink });
  const deps = buildApiDeps({ sql: db.sql, config, log, secretKey: TEST_SECRET_KEY });
  await deps.bus.ensureTopology();
  server = await startApiServer(deps);
  url = server.url;
  doc = (await (await fetch(`${url}/openapi.json`)).json()) as OpenApiDocument;
  const a = await makeOrg(db.sql, "business");
  const b = await makeOrg(db.sql, "business");
  mine = { org: a, data: await populateOrg({ url, sql: db.sql } as never, a, "mine") };
  theirs = { org: b, data: await populateOrg({ url, sql: db.sql } as never, b, "theirs") };
}, 60_000);
afterAll(async () => {
  await server?.stop(500);
  await db?.drop();
}, 30_000);

const apiOps = () => endpoints(doc).filter((e) => e.path.startsWith("/api/v1/"));
/** Routes that are not organisation resources: accounts, credentials in the URL, the runner protocol, provider webhooks. */
const NOT_ORG_RESOURCES = /^\/api\/v1\/(auth|setup|runner|heartbeat|unsubscribe|reports\/unsubscribe|billing\/webhooks|invitations)(\/|$)/;
/** Routes of the signed-in user (a session, not a key). */
const USER_ROUTES = /^\/api\/v1\/user(\/|$)/;

async function signIn(email: string, password: string, orgId?: string) {
  const res = await fetch(`${url}/api/v1/auth/signin`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password }) });
  expect(res.status).toBe(200);
  const csrf = ((await res.json()) as { csrf_token: string }).csrf_token;
  const cookie = res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  return client(url, { cookie, csrf, headers: orgId ? { "x-org-id": orgId } : {} });
}

const bodyFor = (e: Endpoint) => {
  const schema = bodySchemaOf(doc, e.op);
  return schema ? exampleOf(doc, schema) : undefined;
};

async function orgSnapshot(orgId: string): Promise<string> {
  const tables = await db.sql<{ table_name: string }[]>`
    select c.table_name from information_schema.columns c join information_schema.tables t using (table_schema, table_name)
    where c.table_schema = 'public' and c.column_name = 'org_id' and t.table_type = 'BASE TABLE' order by 1`;
  const parts: string[] = [];
  for (const { table_name } of tables) {
    // A key's last use is bookkeeping of the request itself, not a change the caller made.
    const [row] = await db.sql.unsafe(
      `select md5(coalesce(string_agg((to_jsonb(t) - 'last_used_at')::text, '|' order by (to_jsonb(t) - 'last_used_at')::text), '')) as h from "${table_name}" t where org_id = $1`,
      [orgId],
    );
    parts.push(`${table_name}:${row!.h}`);
  }
  return parts.join(",");
}

describe("another organisation's resources", () => {
  it("answer 404 on every resource route, exactly as an id that does not exist, and nothing of theirs changes", async () => {
    const before = await orgSnapshot(theirs.org.org_id);
    const asKey = client(url, { key: mine.org.api_key });
    const asUser = await signIn(mine.org.email, mine.org.password);
    const covered: string[] = [];
    const uncovered: string[] = [];
    const wrong: unknown[] = [];
    for (const e of apiOps().filter((e) => e.path.includes("{") && !NOT_ORG_RESOURCES.test(e.path))) {
      const theirPath = fillPath(e.path, theirs.data);
      if (!theirPath) {
        uncovered.push(`${e.method} ${e.path}`);
        continue;
      }
      covered.push(`${e.method} ${e.path}`);
      const call = USER_ROUTES.test(e.path) ? asUser : asKey;
      const missingPath = e.path.replace(/\{[^}]+\}/g, "missing_0123456789");
      const [theirsRes, missingRes] = [await call(e.method, theirPath, bodyFor(e)), await call(e.method, missingPath, bodyFor(e))];
      const seen = { op: `${e.method} ${e.path}`, status: theirsRes.status, code: theirsRes.body?.code, error: theirsRes.body?.error };
      const missing = { op: `${e.method} ${e.path}`, status: missingRes.status, code: missingRes.body?.code, error: missingRes.body?.error };
      if (seen.status !== 404 || seen.code !== "NOT_FOUND" || JSON.stringify(seen) !== JSON.stringify(missing)) wrong.push({ seen, missing });
    }
    console.log(`security: cross-organisation checks on ${covered.length} operations with path parameters`);
    expect(wrong).toEqual([]);
    // Operations whose resource the fixture cannot make for another organisation (billing lines and overlaps need a provider).
    expect(uncovered).toEqual(["POST /api/v1/billing/lines/{id}/cancel", "POST /api/v1/billing/lines/{id}/resume", "POST /api/v1/billing/overlaps/{id}/cancel", "POST /api/v1/billing/overlaps/{id}/dismiss"]);
    expect(await orgSnapshot(theirs.org.org_id)).toBe(before);
  });
});

describe("scopes and roles", () => {
  /** Writes any member may make whatever their role: their own account, notifications, new organisations. */
  const SELF_SERVICE = new Set([
    "POST /api/v1/orgs",
    "POST /api/v1/notifications/{id}/read",
    "POST /api/v1/notifications/read-all",
    // A read sent by POST (its body is a template to render with a sample alert): nothing is stored or sent.
    "POST /api/v1/alert-channels/preview",
  ]);
  const writes = () =>
    apiOps().filter((e) => e.method !== "GET" && !NOT_ORG_RESOURCES.test(e.path) && !USER_ROUTES.test(e.path) && !SELF_SERVICE.has(`${e.method} ${e.path}`));

  async function expectDenied(call: ReturnType<typeof client>, who: string) {
    const wrong: unknown[] = [];
    let n = 0;
    for (const e of writes()) {
      const path = fillPath(e.path, mine.data) ?? e.path.replace(/\{[^}]+\}/g, "missing_0123456789");
      const res = await call(e.method, path, bodyFor(e));
      n++;
      if (res.status !== 403 || res.body?.code !== "PERMISSION_DENIED") wrong.push({ op: `${e.method} ${e.path}`, status: res.status, body: res.body });
    }
    console.log(`security: ${n} writes refused to ${who}`);
    expect(wrong).toEqual([]);
  }

  it("refuses every write to a key that carries only read scopes, whatever the creator's role", async () => {
    const owner = client(url, { key: mine.org.api_key });
    const made = await owner("POST", "/api/v1/api-keys", { name: "read only", scopes: ["monitors:read", "alerts:read", "status_pages:read", "runners:read", "incidents:read"] });
    expect(made.status).toBe(201);
    const before = await orgSnapshot(mine.org.org_id);
    await expectDenied(client(url, { key: made.body.key }), "a read-only key");
    expect(await orgSnapshot(mine.org.org_id)).toBe(before);
  });

  it("refuses every write to a viewer's session and to a viewer's key", async () => {
    const owner = client(url, { key: mine.org.api_key });
    const viewer = await signUp(url);
    // A viewer cannot mint keys (api_keys:write): the key is made while a member, then the role is lowered.
    const invite = await owner("POST", "/api/v1/org/invitations", { email: viewer.email, role_id: "member" });
    expect((await viewer.call("POST", "/api/v1/invitations/accept", { token: invite.body.token })).status).toBe(200);
    const inOrg = client(url, { cookie: viewer.cookie, csrf: viewer.csrf, headers: { "x-org-id": mine.org.org_id } });
    const key = await inOrg("POST", "/api/v1/api-keys", { name: "viewer key", scopes: ["monitors:read", "monitors:write", "api_keys:write"] });
    expect(key.status).toBe(201);
    expect((await owner("PATCH", `/api/v1/org/members/${viewer.userId}`, { role_id: "viewer" })).status).toBe(200);
    const before = await orgSnapshot(mine.org.org_id);
    await expectDenied(inOrg, "a viewer's session");
    await expectDenied(client(url, { key: key.body.key }), "a viewer's key");
    expect(await orgSnapshot(mine.org.org_id)).toBe(before);
  });
});

describe("secrets after creation", () => {
  it("never shows an API key, runner token, session token, webhook secret or page password again, in any answer or log line", async () => {
    const owner = client(url, { key: mine.org.api_key });
    const session = await fetch(`${url}/api/v1/auth/signin`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: mine.org.email, password: mine.org.password }) });
    const sessionToken = session.headers.getSetCookie().find((c) => c.startsWith("wp_session="))!.split(";")[0]!.split("=")[1]!;
    const secrets = { ...mine.data.secrets, sessionToken, password: mine.org.password };
    // Everything the organisation can read, and a few failures (a bad key, a wrong password).
    const texts: string[] = [];
    for (const e of endpoints(doc).filter((e) => e.method === "GET" && e.path.startsWith("/api/v1/") && !e.path.endsWith("/events"))) {
      const path = fillPath(e.path, mine.data);
      if (!path && e.path.includes("{")) continue;
      const call = USER_ROUTES.test(e.path) ? await signIn(mine.org.email, mine.org.password) : owner;
      const res = await call("GET", path ?? e.path);
      texts.push(JSON.stringify(res.body), JSON.stringify([...res.headers.entries()]));
    }
    texts.push(JSON.stringify((await client(url, { key: `${mine.org.api_key}x` })("GET", "/api/v1/org")).body));
    texts.push(JSON.stringify((await client(url)("POST", "/api/v1/auth/signin", { email: mine.org.email, password: `${mine.org.password}x` })).body));
    const leaks: string[] = [];
    for (const [name, value] of Object.entries(secrets)) {
      if (texts.some((t) => t.includes(value))) leaks.push(`answer: ${name}`);
      if (logLines.some((l) => l.includes(value))) leaks.push(`log: ${name}`);
      const hex = createHash("sha256").update(value).digest("hex");
      if (texts.some((t) => t.includes(hex))) leaks.push(`answer: ${name} (its hash)`);
    }
    console.log(`security: ${texts.length} answers and ${logLines.length} log lines searched for ${Object.keys(secrets).length} secrets`);
    // The access log saw every request (LOG_LEVEL=debug), with the caller's ids but never a credential.
    expect(logLines.filter((l) => l.includes('"op":"api.request"')).length).toBeGreaterThanOrEqual(texts.length / 2);
    expect(leaks).toEqual([]);
  });
});

describe("tokens that are credentials", () => {
  it("makes heartbeat tokens of 192 random bits, stored only as a digest and an encrypted copy, looked up by digest", async () => {
    const token = mine.data.heartbeatToken;
    expect(token).toMatch(/^hb_[A-Za-z0-9_-]{32}$/);
    const rows = await db.sql<{ heartbeat_token_hash: Buffer; heartbeat_token_enc: string }[]>`
      select heartbeat_token_hash, heartbeat_token_enc from monitors where org_id = ${mine.org.org_id} and type = 'heartbeat'`;
    expect(Buffer.from(rows[0]!.heartbeat_token_hash).equals(hashToken(token))).toBe(true);
    expect(rows[0]!.heartbeat_token_enc).not.toContain(token.slice(3));
    const tables = await db.sql<{ table_name: string }[]>`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`;
    for (const { table_name } of tables) {
      const hits = await db.sql.unsafe(`select 1 from "${table_name}" t where position($1 in t::text) > 0 limit 1`, [token]);
      expect({ table: table_name, hits: hits.length }).toEqual({ table: table_name, hits: 0 });
    }
    // A guess of the right shape, one character off, is an unknown token; the real one works.
    const guess = token.slice(0, -1) + (token.endsWith("A") ? "B" : "A");
    expect((await fetch(`${url}/api/v1/heartbeat/${guess}`, { method: "POST" })).status).toBe(404);
    expect((await fetch(`${url}/api/v1/heartbeat/${token}`, { method: "POST" })).status).toBe(200);
  });

  it("signs unsubscribe tokens with a 256-bit HMAC compared in constant time, and refuses any altered one", async () => {
    const box = new SecretBox(TEST_SECRET_KEY);
    const claims = { subscriberId: "sub_1", pageId: "sp_1", exp: Math.floor(Date.now() / 1000) + 3600 };
    const token = signSubscriberToken(box, "unsubscribe", claims);
    const signature = token.split(".").pop()!;
    expect(Buffer.from(signature, "base64url").length).toBe(32);
    // The comparison is node:crypto's timingSafeEqual on equal-length buffers, never ===.
    expect(SecretBox.prototype.verify.toString()).toContain("safeEqual(");
    expect(safeEqual.toString()).toContain("timingSafeEqual(");
    const flipped = token.slice(0, -2) + (token.at(-2) === "A" ? "B" : "A") + token.at(-1);
    const subscriberId = mine.data.ids["/api/v1/status-pages/subscribers"]!;
    const pageId = mine.data.ids["/api/v1/status-pages"]!;
    const real = signSubscriberToken(box, "unsubscribe", { subscriberId, pageId, exp: claims.exp });
    const forged = [
      real.slice(0, -2) + (real.at(-2) === "A" ? "B" : "A") + real.at(-1),
      real.slice(0, -1),
      `${real}A`,
      real.replace(/^[^.]+/, Buffer.from(`${subscriberId}:${pageId}:9999999999`).toString("base64url")),
      signSubscriberToken(new SecretBox("another-deployment-secret-key-0123456789"), "unsubscribe", { subscriberId, pageId, exp: claims.exp }),
    ];
    for (const bad of forged) {
      const res = await fetch(`${url}/api/v1/unsubscribe?token=${encodeURIComponent(bad)}`, { headers: { accept: "application/json" } });
      expect({ bad, refused: [400, 404].includes(res.status) }).toEqual({ bad, refused: true });
    }
    expect((await db.sql`select 1 from status_page_subscribers where id = ${subscriberId}`).length).toBe(1);
    // The genuine token works (so the refusals above are the signature's doing).
    const ok = await fetch(`${url}/api/v1/unsubscribe?token=${encodeURIComponent(real)}`, { headers: { accept: "application/json" } });
    expect(ok.status).toBe(200);
  });
});

describe("the private-address guard", () => {
  /** Answers 127.0.0.1 the first time a name is looked up and the cloud metadata address after that. */
  function rebinding(): HostResolver & { calls: number } {
    const resolver = Object.assign(
      async () => {
        resolver.calls++;
        return [{ address: resolver.calls === 1 ? "127.0.0.1" : "169.254.169.254", family: 4 as const }];
      },
      { calls: 0 },
    );
    return resolver;
  }

  it("checks every DNS answer of a check: an answer that turns to the metadata address is refused, and one check looks the name up once", async () => {
    const target = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("ok", { headers: { connection: "close" } }) });
    try {
      const resolver = rebinding();
      const ctx = { timeoutMs: 5000, guard: { allowPrivate: true, ipv6: false, resolver } };
      const first = await httpCheck.run({ url: `http://rebind.test:${target.port}/` }, ctx);
      expect(first).toMatchObject({ status: "up" });
      expect(first.data.ip).toBe("127.0.0.1");
      expect(resolver.calls).toBe(1);
      const second = await httpCheck.run({ url: `http://rebind.test:${target.port}/` }, ctx);
      expect(second.status).toBe("down");
      expect(second.error).toContain("rebind.test (169.254.169.254)");
      expect(second.data.connect_ms).toBeNull();
    } finally {
      target.stop(true);
    }
  });

  it("does not let a check follow a redirect to a name that resolves to the metadata address", async () => {
    const target = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(null, { status: 302, headers: { location: "http://metadata.test/latest/meta-data/" } }) });
    try {
      const resolver: HostResolver = async (host) => [{ address: host === "metadata.test" ? "169.254.169.254" : "127.0.0.1", family: 4 }];
      const result = await httpCheck.run({ url: `http://app.test:${target.port}/` }, { timeoutMs: 5000, guard: { allowPrivate: true, ipv6: false, resolver } });
      expect(result.status).toBe("down");
      expect(result.error).toContain("metadata.test (169.254.169.254)");
    } finally {
      target.stop(true);
    }
  });

  it("checks every connection of an alert channel: a rebinding answer is refused, and redirects are never followed", async () => {
    const hits: string[] = [];
    const receiver = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(req) {
        hits.push(new URL(req.url).pathname);
        if (new URL(req.url).pathname === "/redirect") return new Response(null, { status: 302, headers: { location: "http://169.254.169.254/", connection: "close" } });
        return new Response("ok", { headers: { connection: "close" } });
      },
    });
    try {
      const resolver = rebinding();
      const send = createHttpFetch({ allowPrivateAddresses: true, resolver });
      const ok = await send(`http://hooks.test:${receiver.port}/hook`, { method: "POST", headers: {}, body: "{}" });
      expect(ok.status).toBe(200);
      await expect(send(`http://hooks.test:${receiver.port}/hook`, { method: "POST", headers: {}, body: "{}" })).rejects.toThrow();
      expect(hits).toEqual(["/hook"]);
      const direct = createHttpFetch({ allowPrivateAddresses: true });
      const redirected = await direct(`http://127.0.0.1:${receiver.port}/redirect`, { method: "POST", headers: {}, body: "{}", redirect: "manual" });
      expect(redirected.status).toBe(302);
      expect(hits).toEqual(["/hook", "/redirect"]);
    } finally {
      receiver.stop(true);
    }
  });
});
