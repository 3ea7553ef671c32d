import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { Writable } from "node:stream";
import pino from "pino";
import { loadApiConfig } from "../../api/config.ts";
import { mapError } from "../../api/middleware/errors.ts";
import { buildApiDeps, startApiServer } from "../../api/server.ts";
import { BusUnavailableError } from "../../core/bus/index.ts";
import { createSql } from "../../db/client.ts";
import { conflict } from "../../core/errors.ts";
import { silentLogger } from "../../core/log.ts";
import { client, makeOrg, signUp, startTestApi, TEST_SECRET_KEY, type CallResult, type TestApi } from "../support/api.ts";

const MAX_BODY_BYTES = 4096;
let api: TestApi;

beforeAll(async () => {
  api = await startTestApi({ MAX_BODY_BYTES: String(MAX_BODY_BYTES) });
});
afterAll(() => api.stop());

/** Every error answer is exactly {error, code, details?}: nothing else, details only with content. */
function expectErrorBody(res: CallResult, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toStartWith("application/json");
  expect(typeof res.body.error).toBe("string");
  expect(res.body.error.length).toBeGreaterThan(0);
  expect(res.body.code).toBe(code);
  const keys = Object.keys(res.body).sort();
  expect(keys).toEqual("details" in res.body ? ["code", "details", "error"] : ["code", "error"]);
  if ("details" in res.body) expect(Object.keys(res.body.details).length).toBeGreaterThan(0);
}

function expectIssue(res: CallResult, path: string) {
  expectErrorBody(res, 400, "VALIDATION_ERROR");
  const issues = res.body.details.issues as { path: string; message: string }[];
  expect(Array.isArray(issues)).toBe(true);
  for (const issue of issues) {
    expect(Object.keys(issue).sort()).toEqual(["message", "path"]);
    expect(issue.message.length).toBeGreaterThan(0);
  }
  expect(issues.map((i) => i.path)).toContain(path);
}

describe("400 VALIDATION_ERROR", () => {
  it("lists the missing field of a body with its path and message", async () => {
    const org = await makeOrg(api.sql);
    const res = await client(api.url, { key: org.api_key })("POST", "/api/v1/api-keys", { name: "ci" });
    expectIssue(res, "body.scopes");
  });

  it("says each missing field once, as missing (not also as 'expected string')", async () => {
    const res = await client(api.url)("POST", "/api/v1/auth/signin", {});
    expect(res.status).toBe(400);
    expect(res.body.details.issues).toEqual([
      { path: "body.email", message: "Property 'email' is missing" },
      { path: "body.password", message: "Property 'password' is missing" },
    ]);
  });

  it("rejects an unknown body field instead of dropping it, and creates nothing", async () => {
    const org = await makeOrg(api.sql);
    const call = client(api.url, { key: org.api_key });
    const res = await call("POST", "/api/v1/api-keys", { name: "ci", scopes: ["monitors:read"], created_by: "usr_someone_else" });
    expectIssue(res, "body.created_by");
    const list = await call("GET", "/api/v1/api-keys");
    expect(list.body.data.map((k: { name: string }) => k.name)).toEqual(["provisioned"]);
  });

  it("names the allowed values of a bad enum entry in a nested path", async () => {
    const org = await makeOrg(api.sql);
    const res = await client(api.url, { key: org.api_key })("POST", "/api/v1/api-keys", { name: "ci", scopes: ["monitors:read", "root"] });
    expectIssue(res, "body.scopes.1");
    expect(res.body.details.issues[0].message).toContain("monitors:read");
  });

  it("answers malformed JSON with the exact validation body", async () => {
    const org = await makeOrg(api.sql);
    const res = await client(api.url, { key: org.api_key })("POST", "/api/v1/api-keys", '{"name": "ci", ');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "Request body is not valid JSON", code: "VALIDATION_ERROR", details: { issues: [{ path: "body", message: "Malformed body" }] } });
  });

  it("refuses a missing body and a body that is not an object", async () => {
    const org = await makeOrg(api.sql);
    const call = client(api.url, { key: org.api_key });
    expectIssue(await call("POST", "/api/v1/org/roles"), "body");
    expectIssue(await call("POST", "/api/v1/org/roles", [1, 2]), "body");
  });

  it("says what form a date-time or a patterned text takes, not the format's name or the regular expression", async () => {
    const org = await makeOrg(api.sql);
    const call = client(api.url, { key: org.api_key });
    const date = await call("GET", "/api/v1/audit-log?from=yesterday");
    expectIssue(date, "query.from");
    expect(date.body.details.issues[0].message).toBe("Expected a date and time in ISO 8601, such as 2026-11-29T14:30:00Z");
    const report = await call("POST", "/api/v1/reports", { name: "Weekly", frequency: "weekly", send_time: "9am", timezone: "UTC", recipients: ["ops@example.test"] });
    const issue = report.body.details.issues.find((i: { path: string }) => i.path === "body.send_time");
    expect(issue.message).toBe("Expected HH:MM (24 h), such as 09:00");
  });

  it("reports a bad query value and an unknown query parameter by name", async () => {
    const org = await makeOrg(api.sql);
    const call = client(api.url, { key: org.api_key });
    const notInt = await call("GET", "/api/v1/api-keys?limit=abc");
    expectIssue(notInt, "query.limit");
    expect(notInt.body.details.issues[0].message).toBe("Expected integer");
    expectIssue(await call("GET", "/api/v1/api-keys?page=1.5"), "query.page");
    expectIssue(await call("GET", "/api/v1/api-keys?sort=name"), "query.sort");
    expectIssue(await call("GET", "/api/v1/audit-log?from=yesterday"), "query.from");
  });

  it("reports a path parameter that breaks its rule", async () => {
    const org = await makeOrg(api.sql);
    expectIssue(await client(api.url, { key: org.api_key })("DELETE", `/api/v1/api-keys/${"k".repeat(65)}`), "params.id");
  });
});

describe("401 UNAUTHENTICATED", () => {
  const body = { error: "Authentication required", code: "UNAUTHENTICATED" };

  it("answers a request without credentials", async () => {
    const res = await client(api.url)("GET", "/api/v1/org");
    expect(res.status).toBe(401);
    expect(res.body).toEqual(body);
  });

  it("answers an unknown, a malformed and a non-bearer credential alike", async () => {
    for (const authorization of ["Bearer wp_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "Bearer nonsense", "Basic dXNlcjpwYXNz"]) {
      const res = await client(api.url, { headers: { authorization } })("GET", "/api/v1/org");
      expect(res.status).toBe(401);
      expect(res.body).toEqual(body);
    }
    const cookie = await client(api.url, { cookie: "wp_session=not-a-session" })("GET", "/api/v1/user");
    expect(cookie.status).toBe(401);
    expect(cookie.body).toEqual(body);
  });

  it("answers a revoked key", async () => {
    const org = await makeOrg(api.sql);
    const owner = client(api.url, { key: org.api_key });
    const made = await owner("POST", "/api/v1/api-keys", { name: "short-lived", scopes: ["monitors:read"] });
    expect((await owner("DELETE", `/api/v1/api-keys/${made.body.id}`)).status).toBe(204);
    const res = await client(api.url, { key: made.body.key })("GET", "/api/v1/org");
    expect(res.status).toBe(401);
    expect(res.body).toEqual(body);
  });

  it("answers an expired key", async () => {
    const org = await makeOrg(api.sql);
    const made = await client(api.url, { key: org.api_key })("POST", "/api/v1/api-keys", { name: "dated", scopes: ["monitors:read"], expires_at: "2099-01-01T00:00:00Z" });
    await api.sql`update api_keys set expires_at = now() - interval '1 second' where id = ${made.body.id}`;
    const res = await client(api.url, { key: made.body.key })("GET", "/api/v1/org");
    expect(res.status).toBe(401);
    expect(res.body).toEqual(body);
  });
});

describe("403 PERMISSION_DENIED and ENTITLEMENT_REQUIRED", () => {
  it("refuses a key whose scopes lack the permission and names it", async () => {
    const org = await makeOrg(api.sql);
    const made = await client(api.url, { key: org.api_key })("POST", "/api/v1/api-keys", { name: "reader", scopes: ["monitors:read"] });
    const res = await client(api.url, { key: made.body.key })("GET", "/api/v1/audit-log");
    expectErrorBody(res, 403, "PERMISSION_DENIED");
    expect(res.body.details).toEqual({ permission: "org:admin" });
  });

  it("refuses a role that lacks the permission", async () => {
    const org = await makeOrg(api.sql, "pro");
    const viewer = await signUp(api.url);
    const invite = await client(api.url, { key: org.api_key })("POST", "/api/v1/org/invitations", { email: viewer.email, role_id: "viewer" });
    expect((await viewer.call("POST", "/api/v1/invitations/accept", { token: invite.body.token })).status).toBe(200);
    const res = await client(api.url, { cookie: viewer.cookie, csrf: viewer.csrf, headers: { "x-org-id": org.org_id } })("PATCH", "/api/v1/org", { name: "Mine now" });
    expectErrorBody(res, 403, "PERMISSION_DENIED");
    expect(res.body.details).toEqual({ permission: "org:admin" });
  });

  it("refuses a cookie write without the CSRF token", async () => {
    const user = await signUp(api.url);
    const res = await client(api.url, { cookie: user.cookie })("PATCH", "/api/v1/org", { name: "Renamed" });
    expectErrorBody(res, 403, "PERMISSION_DENIED");
    expect(res.body.details).toEqual({ reason: "csrf" });
  });

  it("refuses a 4th member on the free plan with details.entitlement members", async () => {
    const org = await makeOrg(api.sql, "free");
    const call = client(api.url, { key: org.api_key });
    for (const n of [1, 2]) expect((await call("POST", "/api/v1/org/invitations", { email: `m${n}-${org.org_id}@example.test`, role_id: "member" })).status).toBe(201);
    const res = await call("POST", "/api/v1/org/invitations", { email: `m3-${org.org_id}@example.test`, role_id: "member" });
    expectErrorBody(res, 403, "ENTITLEMENT_REQUIRED");
    expect(res.body.details).toMatchObject({ entitlement: "members", limit: 3, used: 3, plan: "free" });
  });
});

describe("404 NOT_FOUND", () => {
  it("answers an unknown route under /api/v1 and at the root", async () => {
    const org = await makeOrg(api.sql);
    for (const path of ["/api/v1/nothing-here", "/api/v2/org", "/nothing"]) {
      const res = await client(api.url, { key: org.api_key })("GET", path);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "Route not found", code: "NOT_FOUND" });
    }
  });

  it("answers an unknown id", async () => {
    const org = await makeOrg(api.sql);
    const res = await client(api.url, { key: org.api_key })("DELETE", "/api/v1/api-keys/key_does_not_exist");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "API key not found", code: "NOT_FOUND" });
  });

  it("answers 404 for another organisation's API key and leaves it working", async () => {
    const mine = await makeOrg(api.sql);
    const theirs = await makeOrg(api.sql);
    const theirKeys = await client(api.url, { key: theirs.api_key })("GET", "/api/v1/api-keys");
    const res = await client(api.url, { key: mine.api_key })("DELETE", `/api/v1/api-keys/${theirKeys.body.data[0].id}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "API key not found", code: "NOT_FOUND" });
    expect((await client(api.url, { key: theirs.api_key })("GET", "/api/v1/org")).status).toBe(200);
  });
});

describe("409 CONFLICT", () => {
  it("refuses a duplicate sign-up email, whatever its case", async () => {
    const user = await signUp(api.url);
    for (const email of [user.email, user.email.toUpperCase()]) {
      const res = await client(api.url)("POST", "/api/v1/auth/signup", { email, password: "another long password", name: "Twin" });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ error: "An account with this email already exists", code: "CONFLICT" });
    }
  });

  it("refuses a duplicate role name, whatever its case", async () => {
    const org = await makeOrg(api.sql);
    const call = client(api.url, { key: org.api_key });
    expect((await call("POST", "/api/v1/org/roles", { name: "On-call", permissions: ["monitors:read"] })).status).toBe(201);
    const res = await call("POST", "/api/v1/org/roles", { name: "on-call", permissions: ["alerts:read"] });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: "A role with this name already exists", code: "CONFLICT" });
  });
});

describe("413 PAYLOAD_TOO_LARGE", () => {
  const tooLarge = { error: `Request body exceeds ${MAX_BODY_BYTES} bytes`, code: "PAYLOAD_TOO_LARGE", details: { maxBytes: MAX_BODY_BYTES } };
  const chunked = (text: string) =>
    new ReadableStream<Uint8Array>({
      start(c) {
        const bytes = new TextEncoder().encode(text);
        for (let i = 0; i < bytes.length; i += 1000) c.enqueue(bytes.slice(i, i + 1000));
        c.close();
      },
    });
  const post = (key: string, body: BodyInit) =>
    fetch(`${api.url}/api/v1/api-keys`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body });

  it("refuses a body over MAX_BODY_BYTES by its Content-Length, with the error body and rate-limit headers", async () => {
    const org = await makeOrg(api.sql);
    for (const size of [MAX_BODY_BYTES + 1, MAX_BODY_BYTES * 3, 5_000_000]) {
      const res = await post(org.api_key, JSON.stringify({ name: "x".repeat(size), scopes: ["monitors:read"] }));
      expect(res.status).toBe(413);
      expect(await res.json()).toEqual(tooLarge);
      expect(res.headers.get("x-ratelimit-limit")).not.toBeNull();
    }
  });

  it("refuses a chunked body that grows over MAX_BODY_BYTES, and accepts a small chunked one", async () => {
    const org = await makeOrg(api.sql);
    const big = await post(org.api_key, chunked(JSON.stringify({ name: "x".repeat(MAX_BODY_BYTES * 2), scopes: ["monitors:read"] })));
    expect(big.status).toBe(413);
    expect(await big.json()).toEqual(tooLarge);
    const small = await post(org.api_key, chunked(JSON.stringify({ name: "chunked", scopes: ["monitors:read"] })));
    expect(small.status).toBe(201);
    expect((await small.json()).name).toBe("chunked");
  });

});

describe("request hygiene", () => {
  it("refuses a JSON body nested deeper than 64 levels before anything walks it, and accepts 64", async () => {
    const org = await makeOrg(api.sql);
    const call = client(api.url, { key: org.api_key });
    // Elysia's validation error would stringify the whole value: at this depth that threw (a 500).
    const deep = await call("PATCH", "/api/v1/org", "[".repeat(1500) + "]".repeat(1500));
    expectIssue(deep, "body");
    expect(deep.body.error).toBe("Request body is nested deeper than 64 levels");
    const nested = (n: number) => "[".repeat(n) + "]".repeat(n);
    expect((await call("PATCH", "/api/v1/org", nested(65))).body.error).toBe("Request body is nested deeper than 64 levels");
    const at64 = await call("PATCH", "/api/v1/org", nested(64));
    expectErrorBody(at64, 400, "VALIDATION_ERROR");
    expect(at64.body.error).toBe("Request validation failed");
    // Brackets inside strings are text, not nesting.
    expect((await call("PATCH", "/api/v1/org", { name: `${"[".repeat(100)} renamed` })).status).toBe(200);
  });

  it("answers a NUL character in a body field or a path segment with 400, not a database fault", async () => {
    const org = await makeOrg(api.sql);
    const call = client(api.url, { key: org.api_key });
    expectIssue(await call("PATCH", "/api/v1/org", { name: "bad\u0000name" }), "body.name");
    expectIssue(await call("GET", "/api/v1/alert-rules/%00"), "request");
    expectIssue(await call("POST", "/api/v1/monitors", { name: "m", type: "http", config: { url: "http://127.0.0.1:9/", headers: { "x-note": "a\u0000b" } }, interval_seconds: 300 }), "request");
  });
});

describe("500 INTERNAL_ERROR", () => {
  it("maps a thrown Error to the bare error body without its message or stack, and logs it", () => {
    const lines: string[] = [];
    const log = pino({ level: "error" }, new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }));
    const err = new Error("relation \"secret_table\" does not exist at /srv/app/db.ts:12");
    const { status, body } = mapError("UNKNOWN", err, log);
    expect(status).toBe(500);
    expect(body).toEqual({ error: "Internal server error", code: "INTERNAL_ERROR" });
    expect(JSON.stringify(body)).not.toContain("secret_table");
    expect(lines.join("")).toContain("secret_table");
  });

  it("maps an AppError to its own status and body", () => {
    expect(mapError("UNKNOWN", conflict("Taken", { field: "name" }), silentLogger)).toEqual({ status: 409, body: { error: "Taken", code: "CONFLICT", details: { field: "name" } } });
  });
});

describe("503 SERVICE_UNAVAILABLE", () => {
  it("maps the message bus being unreachable to 503 with the error body, not 500 (tests/runners/bus-outage.test.ts has it on a real NATS)", () => {
    const err = new BusUnavailableError("publish to results", { cause: new Error("connection disconnected") });
    expect(mapError("UNKNOWN", err, silentLogger)).toEqual({
      status: 503,
      body: { error: "The message bus is unavailable; retry shortly", code: "SERVICE_UNAVAILABLE", details: { retryAfterSeconds: 5 } },
    });
  });

  it("answers quickly with the error body when the database is unreachable", async () => {
    const url = "postgres://postgres@127.0.0.1:1/unreachable";
    const sql = createSql(url, { max: 10 });
    const config = loadApiConfig({ DATABASE_URL: url, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "silent" });
    const down = await startApiServer(buildApiDeps({ sql, config, log: silentLogger, secretKey: TEST_SECRET_KEY }));
    try {
      const expected = { error: "The database is unavailable; retry shortly", code: "SERVICE_UNAVAILABLE", details: { retryAfterSeconds: 5 } };
      const credentials = [{ key: "wp_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" }, { cookie: "wp_session=abc" }, {}];
      // Repeated failures used to push postgres.js's reconnect backoff towards 20 s per request.
      for (let i = 0; i < 9; i++) {
        const t0 = performance.now();
        const res = await client(down.url, credentials[i % 3])("GET", "/api/v1/org");
        expect(performance.now() - t0).toBeLessThan(2000);
        expect(res.status).toBe(503);
        expect(res.body).toEqual(expected);
        expect(res.headers.get("retry-after")).toBe("5");
      }
      const t0 = performance.now();
      const burst = await Promise.all(Array.from({ length: 10 }, () => client(down.url, credentials[0])("GET", "/api/v1/api-keys")));
      expect(performance.now() - t0).toBeLessThan(2000);
      expect(burst.map((r) => r.status)).toEqual(Array(10).fill(503));
      const ready = await fetch(`${down.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ status: "unavailable" });
    } finally {
      await down.stop(100);
      await sql.end({ timeout: 1 });
    }
  });
});

describe("pagination", () => {
  let call: ReturnType<typeof client>;
  const PAGE = "/api/v1/api-keys";

  beforeAll(async () => {
    const org = await makeOrg(api.sql);
    call = client(api.url, { key: org.api_key });
    // 44 more keys beside the provisioned one: 45 in all.
    const made = await Promise.all(Array.from({ length: 44 }, (_, i) => call("POST", PAGE, { name: `k${i}`, scopes: ["monitors:read"] })));
    expect(made.every((r) => r.status === 201)).toBe(true);
  });

  it("defaults to page 1 and limit 20 with totalPages and hasMore", async () => {
    const res = await call("GET", PAGE);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(20);
    expect(res.body.pagination).toEqual({ page: 1, limit: 20, total: 45, totalPages: 3, hasMore: true });
  });

  it("walks the pages without overlap and ends with hasMore false", async () => {
    const pages = await Promise.all([1, 2, 3].map((page) => call("GET", `${PAGE}?page=${page}`)));
    expect(pages.map((p) => p.body.data.length)).toEqual([20, 20, 5]);
    expect(pages.map((p) => p.body.pagination.hasMore)).toEqual([true, true, false]);
    const ids = pages.flatMap((p) => p.body.data.map((k: { id: string }) => k.id));
    expect(new Set(ids).size).toBe(45);
  });

  it("accepts limit=100 and answers every key on one page", async () => {
    const res = await call("GET", `${PAGE}?limit=100`);
    expect(res.body.data).toHaveLength(45);
    expect(res.body.pagination).toEqual({ page: 1, limit: 100, total: 45, totalPages: 1, hasMore: false });
  });

  it("refuses limit=101, limit=0 and page=0", async () => {
    expectIssue(await call("GET", `${PAGE}?limit=101`), "query.limit");
    expectIssue(await call("GET", `${PAGE}?limit=0`), "query.limit");
    expectIssue(await call("GET", `${PAGE}?page=0`), "query.page");
    expectIssue(await call("GET", `${PAGE}?page=-2`), "query.page");
  });

  it("answers a page beyond the end with no data, the true total and hasMore false", async () => {
    const res = await call("GET", `${PAGE}?page=9&limit=10`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [], pagination: { page: 9, limit: 10, total: 45, totalPages: 5, hasMore: false } });
  });
});
