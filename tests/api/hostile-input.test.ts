/**
 * Hostile input never gives a 500 (security hardening, section 5): bounds on every numeric and date
 * query parameter, invalid UTF-8, duplicate JSON keys, blank names, impossible dates, keys that are
 * born expired, 405 for unsupported methods, and authentication before validation.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { client, makeOrg, signUp, startTestApi, type TestApi } from "../support/api.ts";
import type { OpenApiDocument } from "../support/openapi-fuzz.ts";

let api: TestApi;
let call: ReturnType<typeof client>;
let key: string;
let doc: OpenApiDocument;

beforeAll(async () => {
  api = await startTestApi();
  const org = await makeOrg(api.sql, "business");
  key = org.api_key;
  call = client(api.url, { key });
  doc = (await (await fetch(`${api.url}/openapi.json`)).json()) as OpenApiDocument;
}, 60_000);
afterAll(() => api.stop());

const http = () => ({ url: "http://127.0.0.1:9/", method: "GET" });

/** Every GET operation of the served document with a query parameter that passes `pick`, path parameters filled in. */
function getsWith(pick: (name: string, schema: Record<string, any>) => boolean): { path: string; param: string }[] {
  const out: { path: string; param: string }[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    const op = item.get;
    if (!op || !path.startsWith("/api/v1/")) continue;
    for (const p of op.parameters ?? []) {
      if (p.in === "query" && pick(p.name, p.schema ?? {})) out.push({ path: path.replace(/\{[^}]+\}/g, "mon_x"), param: p.name });
    }
  }
  return out;
}

const isDate = (_: string, s: Record<string, any>) => s.format === "date-time" || s.format === "date";

async function raw(method: string, path: string, body: BodyInit | undefined, headers: Record<string, string> = {}) {
  const res = await fetch(`${api.url}${path}`, { method, headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers }, body });
  const text = await res.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, body: json, headers: res.headers };
}

describe("numeric and date bounds", () => {
  it("refuses a page number past the bound on every paginated list with 400, never a 500", async () => {
    const lists = getsWith((name) => name === "page");
    expect(lists.length).toBeGreaterThan(10);
    const wrong: string[] = [];
    // The signed-in user's own lists take a session, not an organisation's API key (a key gets 403 before validation).
    const user = await signUp(api.url);
    const OWN_ACCOUNT = new Set(["/api/v1/user/sessions", "/api/v1/orgs", "/api/v1/invitations"]);
    for (const { path } of lists) {
      const caller = OWN_ACCOUNT.has(path) ? user.call : call;
      for (const page of ["99999999999999999999", "100001", "1e400"]) {
        const res = await caller("GET", `${path}?page=${page}`);
        // The issue names the parameter, also when the number was read as another spelling of itself (1e20).
        if (res.status !== 400 || res.body?.code !== "VALIDATION_ERROR" || res.body.details.issues[0].path !== "query.page") wrong.push(`${path}?page=${page} → ${res.status} ${res.body?.details?.issues?.[0]?.path}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("documents the bounds of page and limit as integers, not as any string", () => {
    const params = Object.values(doc.paths).flatMap((item) => Object.values(item).flatMap((op) => op.parameters ?? []));
    const page = params.filter((p) => p.name === "page" && p.in === "query");
    expect(page.length).toBeGreaterThan(10);
    for (const p of page) expect(p.schema).toMatchObject({ type: "integer", minimum: 1, maximum: 100000 });
    for (const p of params.filter((p) => p.name === "limit" && p.in === "query")) expect(p.schema).toMatchObject({ type: "integer", minimum: 1, maximum: 100 });
  });

  it("refuses dates in year 0000 or 10000, impossible days and loose formats in every date query parameter with 400", async () => {
    const dated = getsWith(isDate);
    expect(dated.length).toBeGreaterThan(8);
    const wrong: string[] = [];
    for (const { path, param } of dated) {
      for (const value of ["0000-01-01T00:00:00Z", "10000-01-01T00:00:00Z", "+010000-01-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-13-01T00:00:00Z", "01/02/2026", "x2026-01-01T00:00:00Zx"]) {
        const res = await call("GET", `${path}?${param}=${encodeURIComponent(value)}`);
        if (res.status !== 400 || res.body?.code !== "VALIDATION_ERROR") wrong.push(`${path}?${param}=${value} → ${res.status}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("still accepts an ordinary date-time in a date query parameter", async () => {
    const res = await call("GET", `/api/v1/audit-log?from=${encodeURIComponent("2026-01-01T00:00:00.000Z")}&to=2026-11-26T10:00:00%2B01:00`);
    expect(res.status).toBe(200);
  });

  it("refuses an impossible date in a body (2026-02-30) with 400", async () => {
    const res = await call("POST", "/api/v1/api-keys", { name: "k", scopes: ["monitors:read"], expires_at: "2030-02-30T00:00:00Z" });
    expect(res.status).toBe(400);
    expect(res.body.details.issues[0].path).toBe("body.expires_at");
  });
});

describe("the OpenAPI document says what the server does", () => {
  it("types no number as text, anywhere", () => {
    const text = JSON.stringify(doc);
    expect(text).not.toContain(`"format":"integer"`);
    expect(text).not.toContain(`"format":"numeric"`);
  });

  it("types a monitor's and a channel's config per type, from the registries", () => {
    const create = doc.paths["/api/v1/monitors"]!.post!.requestBody!.content!["application/json"]!.schema!;
    expect(create.oneOf.map((v: { properties: { type: { const: string }; config: { $ref: string } } }) => [v.properties.type.const, v.properties.config.$ref])).toContainEqual(["http", "#/components/schemas/HttpConfig"]);
    const channel = doc.paths["/api/v1/alert-channels"]!.post!.requestBody!.content!["application/json"]!.schema!;
    expect(channel.oneOf.length).toBe(8);
    const rule = doc.paths["/api/v1/alert-rules"]!.post!.requestBody!.content!["application/json"]!.schema!;
    expect(rule.properties.condition.oneOf.length).toBeGreaterThan(5);
  });

  it("types the public page's JSON as an object and documents JSON error bodies on the public surfaces", () => {
    const json = doc.paths["/status/{slug}/index.json"]!.get!;
    expect(json.responses["200"]!.content!["application/json"]!.schema).toMatchObject({ type: "object", required: expect.arrayContaining(["page", "status", "sections"]) });
    for (const status of ["401", "404"]) expect(json.responses[status]!.content!["application/json"]!.schema).toEqual({ $ref: "#/components/schemas/Error" });
  });
});

describe("query parameters", () => {
  it("refuses a query parameter on a route that declares none with 400, as lists do", async () => {
    for (const path of ["/api/v1/org", "/api/v1/entitlements", "/api/v1/org/security-policy"]) {
      const res = await call("GET", `${path}?debug=1`);
      expect(res.status).toBe(400);
      expect(res.body.details.issues).toEqual([{ path: "query.debug", message: "Unknown parameter" }]);
    }
    expect((await call("GET", "/api/v1/org")).status).toBe(200);
  });

  it("words a boolean query parameter that is neither true nor false as that, on every route", async () => {
    const flags: { method: string; path: string; param: string }[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        for (const p of op.parameters ?? []) if (p.in === "query" && p.schema?.type === "boolean") flags.push({ method: method.toUpperCase(), path: path.replace(/\{[^}]+\}/g, "mon_x"), param: p.name });
      }
    }
    expect(flags.map((f) => `${f.path}?${f.param}`)).toContain("/api/v1/alert-rules?enabled");
    const wrong: string[] = [];
    for (const { method, path, param } of flags) {
      for (const value of ["maybe", "1", "TRUE", ""]) {
        const res = await raw(method, `${path}?${param}=${value}`, undefined);
        const issues = res.body?.details?.issues;
        if (res.status !== 400 || JSON.stringify(issues) !== JSON.stringify([{ path: `query.${param}`, message: "Expected true or false" }])) wrong.push(`${method} ${path}?${param}=${value} → ${res.status} ${JSON.stringify(issues)}`);
      }
    }
    expect(wrong).toEqual([]);
    expect((await call("GET", "/api/v1/alert-rules?enabled=false")).status).toBe(200);
  });

  it("refuses an undeclared query parameter on a list with the same words as the edge", async () => {
    // /monitor-groups declares page and limit, so its schema (not the edge) refuses the rest.
    for (const path of ["/api/v1/monitor-groups", "/api/v1/themes"]) {
      const res = await call("GET", `${path}?debug=1`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: "VALIDATION_ERROR", details: { issues: [{ path: "query.debug", message: "Unknown parameter" }] } });
    }
  });

  it("refuses a number sent as text in a JSON body", async () => {
    const res = await call("POST", "/api/v1/monitors", { name: "n", type: "http", config: http(), interval_seconds: "60" });
    expect(res.status).toBe(400);
    expect(res.body.details.issues[0].path).toBe("body.interval_seconds");
  });
});

describe("JSON bodies", () => {
  it("refuses a body that is not valid UTF-8 with 400", async () => {
    const text = new TextEncoder().encode(JSON.stringify({ name: "caf-", type: "http", config: http() }));
    const bad = new Uint8Array([...text.slice(0, 12), 0xc3, 0x28, ...text.slice(12)]);
    const res = await raw("POST", "/api/v1/monitors", bad);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_ERROR");
    expect(res.body.details.issues[0]).toEqual({ path: "body", message: "Not valid UTF-8" });
  });

  it("refuses duplicate keys, even of type, with 400 naming the key", async () => {
    const res = await raw("POST", "/api/v1/monitors", `{"name":"dup","type":"tcp","type":"http","config":{"url":"http://127.0.0.1:9/","method":"GET"}}`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_ERROR");
    expect(res.body.details.issues[0].path).toBe("body.type");
    const nested = await raw("POST", "/api/v1/monitors", `{"name":"dup","type":"http","config":{"url":"http://127.0.0.1:9/","url":"http://127.0.0.1:9/x"}}`);
    expect(nested.status).toBe(400);
    expect(nested.body.details.issues[0].path).toBe("body.config.url");
  });

  it("keeps accepting the same key in sibling objects and keys that only look alike", async () => {
    const res = await raw("POST", "/api/v1/monitors", JSON.stringify({ name: "a\"name\":", type: "http", config: { url: "http://127.0.0.1:9/", method: "GET", headers: { name: "x" } } }));
    expect(res.status).toBe(201);
  });

  it("refuses a body that is not an object where the body may be empty (resolving an incident) with 400", async () => {
    const incident = await call("POST", "/api/v1/incidents", { title: "t", impact: "minor", message: "m" });
    for (const body of ["42", "\"x\"", "[]", "null"]) {
      const res = await raw("POST", `/api/v1/incidents/${incident.body.id}/resolve`, body);
      expect(res.status).toBe(400);
    }
    expect((await call("POST", `/api/v1/incidents/${incident.body.id}/resolve`, {})).status).toBe(200);
  });

  it("refuses 10,000-deep nesting with 400", async () => {
    const res = await raw("POST", "/api/v1/monitors", "[".repeat(10_000) + "]".repeat(10_000));
    expect(res.status).toBe(400);
  });

  it("refuses a body that is not declared as JSON with 400 naming the header, and changes nothing", async () => {
    const created = await call("POST", "/api/v1/monitors", { name: "Typed", type: "tcp", config: { host: "127.0.0.1", port: 9 } });
    // curl -d without -H sends application/x-www-form-urlencoded; fetch with a string body sends text/plain.
    const cases: [string, string | undefined, string][] = [
      ["PATCH", "application/x-www-form-urlencoded", `{"name":"Renamed"}`],
      ["PATCH", "application/x-www-form-urlencoded", "name=Renamed"],
      ["PATCH", "text/plain;charset=UTF-8", `{"name":"Renamed"}`],
      ["PATCH", "multipart/form-data; boundary=x", `--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nRenamed\r\n--x--\r\n`],
      ["PATCH", "application/xml", "<name>Renamed</name>"],
      // Elysia parses only application/json as JSON: a +json type would reach validation as a string.
      ["PATCH", "application/merge-patch+json", `{"name":"Renamed"}`],
    ];
    for (const [method, type, body] of cases) {
      const res = await raw(method, `/api/v1/monitors/${created.body.id}`, body, type ? { "content-type": type } : {});
      expect([type, res.status]).toEqual([type, 400]);
      expect(res.body).toEqual({
        error: "Request body must be JSON: send Content-Type: application/json",
        code: "VALIDATION_ERROR",
        details: { issues: [{ path: "headers.content-type", message: `Expected application/json, got ${type!.split(";")[0]}` }] },
      });
    }
    expect((await call("GET", `/api/v1/monitors/${created.body.id}`)).body.name).toBe("Typed");
    // JSON with a charset is JSON; an action without a body needs no content type.
    expect((await raw("PATCH", `/api/v1/monitors/${created.body.id}`, `{"name":"Renamed"}`, { "content-type": "application/json; charset=utf-8" })).status).toBe(200);
    const pause = await fetch(`${api.url}/api/v1/monitors/${created.body.id}/pause`, { method: "POST", headers: { authorization: `Bearer ${key}` } });
    expect(pause.status).toBe(200);
  });

  it("refuses a NUL character in a name with 400", async () => {
    const res = await call("POST", "/api/v1/monitors", { name: "a\u0000b", type: "http", config: http() });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_ERROR");
  });
});

describe("names", () => {
  const blanks = ["   ", "\u200b", " \u200b\u00a0\ufeff ", "\t\n"];
  const creates: [string, (name: string) => unknown, string?][] = [
    ["/api/v1/monitors", (name) => ({ name, type: "http", config: http() })],
    ["/api/v1/api-keys", (name) => ({ name, scopes: ["monitors:read"] })],
    ["/api/v1/alert-channels", (name) => ({ name, type: "webhook", config: { url: "http://127.0.0.1:9/" } })],
    ["/api/v1/runners", (name) => ({ name })],
    ["/api/v1/maintenance-windows", (name) => ({ name, starts_at: "2030-01-01T00:00:00Z", ends_at: "2030-01-01T01:00:00Z" })],
    ["/api/v1/incidents", (title) => ({ title, status: "investigating", impact: "minor", message: "m" }), "title"],
  ];
  it("refuses names of only spaces or zero-width characters with 400 on every create", async () => {
    const wrong: string[] = [];
    for (const [path, body, field = "name"] of creates) {
      for (const blank of blanks) {
        const res = await call("POST", path, body(blank));
        const issue = res.body?.details?.issues?.find((i: { path: string }) => i.path === `body.${field}`);
        if (res.status !== 400 || !issue) wrong.push(`${path} ${JSON.stringify(blank)} → ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("refuses a blank organisation or user name from a signed-in user with 400", async () => {
    const user = await signUp(api.url);
    for (const [path, method] of [["/api/v1/orgs", "POST"], ["/api/v1/user", "PATCH"]] as const) {
      const res = await user.call(method, path, { name: "\u200b " });
      expect(res.status).toBe(400);
      expect(res.body.details.issues[0].path).toBe("body.name");
    }
    const signup = await client(api.url)("POST", "/api/v1/auth/signup", { email: "blank@example.test", password: "long enough password", name: "  " });
    expect(signup.status).toBe(400);
  });

  it("accepts a name with inner spaces and non-Latin letters", async () => {
    const res = await call("POST", "/api/v1/monitors", { name: " Zürich 東京 ", type: "http", config: http() });
    expect(res.status).toBe(201);
  });
});

describe("API keys", () => {
  it("refuses an expires_at that is already past with 400", async () => {
    const res = await call("POST", "/api/v1/api-keys", { name: "born expired", scopes: ["monitors:read"], expires_at: "2020-01-01T00:00:00Z" });
    expect(res.status).toBe(400);
    expect(res.body.details.issues[0].path).toBe("body.expires_at");
  });

  it("accepts an expires_at in the future", async () => {
    const res = await call("POST", "/api/v1/api-keys", { name: "later", scopes: ["monitors:read"], expires_at: new Date(Date.now() + 86_400_000).toISOString() });
    expect(res.status).toBe(201);
  });
});

describe("methods", () => {
  it("answers an unsupported method on a known path with 405, the error body and an Allow header", async () => {
    const res = await raw("PUT", "/api/v1/monitors", "{}");
    expect(res.status).toBe(405);
    expect(res.body.code).toBe("METHOD_NOT_ALLOWED");
    expect(res.headers.get("allow")?.split(/,\s*/).sort()).toEqual(["GET", "HEAD", "POST"]);
    const item = await raw("POST", "/api/v1/monitors/mon_x", "{}");
    expect(item.status).toBe(405);
    expect(item.headers.get("allow")?.split(/,\s*/).sort()).toEqual(["DELETE", "GET", "HEAD", "PATCH"]);
  });

  it("answers HEAD, which the Allow header names, on a GET route", async () => {
    const res = await fetch(`${api.url}/api/v1/monitors`, { method: "HEAD", headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
  });

  it("still answers 404 for a path no method serves", async () => {
    const res = await raw("PUT", "/api/v1/nothing-here", "{}");
    expect(res.status).toBe(404);
  });
});

describe("authentication before validation", () => {
  it("answers an unauthenticated bad body with 401, not 400", async () => {
    const anon = client(api.url);
    const res = await anon("POST", "/api/v1/monitors", { name: 5, nonsense: true });
    expect(res.status).toBe(401);
    const malformed = await fetch(`${api.url}/api/v1/monitors`, { method: "POST", headers: { "content-type": "application/json" }, body: "{not json" });
    expect(malformed.status).toBe(401);
    const query = await anon("GET", "/api/v1/monitors?page=0");
    expect(query.status).toBe(401);
  });

  it("answers a caller without the permission with 403 before looking at the body", async () => {
    const org = await makeOrg(api.sql, "business");
    const admin = client(api.url, { key: org.api_key });
    const readKey = (await admin("POST", "/api/v1/api-keys", { name: "reader", scopes: ["monitors:read"] })).body.key;
    const reader = client(api.url, { key: readKey });
    const res = await reader("POST", "/api/v1/monitors", { name: 5 });
    expect(res.status).toBe(403);
  });
});
