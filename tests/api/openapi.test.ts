import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { startTestApi, type TestApi } from "../support/api.ts";

type Operation = {
  operationId?: string;
  security?: unknown[];
  responses: Record<string, { description?: string; content?: Record<string, { schema?: { $ref?: string } }> }>;
};

let api: TestApi;
let text: string;
let doc: { openapi: string; paths: Record<string, Record<string, Operation>>; components: Record<string, any>; security?: unknown[] };

const METHODS = new Set(["get", "post", "put", "patch", "delete"]);
const v1Operations = () =>
  Object.entries(doc.paths)
    .filter(([path]) => path.startsWith("/api/v1/"))
    .flatMap(([path, item]) => Object.entries(item).filter(([m]) => METHODS.has(m)).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, method, op })));

beforeAll(async () => {
  api = await startTestApi();
  const res = await fetch(`${api.url}/openapi.json`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toStartWith("application/json");
  text = await res.text();
  doc = JSON.parse(text);
});
afterAll(() => api.stop());

describe("the OpenAPI document", () => {
  it("is served byte-identical at /openapi.json and /api/v1/openapi.json", async () => {
    const v1 = await fetch(`${api.url}/api/v1/openapi.json`);
    expect(v1.status).toBe(200);
    expect(await v1.text()).toBe(text);
  });

  it("is OpenAPI 3.1 and passes Redocly's recommended rules without an error", async () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lintFromString({ source: text, absoluteRef: "openapi.json", config });
    const describe = (p: (typeof problems)[number]) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`;
    expect(problems.filter((p) => p.severity === "error").map(describe)).toEqual([]);
    // Warnings that would point at a real gap in the description, not at house choices (no license yet).
    const gaps = ["operation-2xx-response", "operation-operationId-unique", "path-parameters-defined", "no-invalid-media-type-examples", "security-defined"];
    expect(problems.filter((p) => gaps.includes(p.ruleId)).map(describe)).toEqual([]);
  });

  it("documents every /api/v1 route the API serves", () => {
    const names = new Set(v1Operations().map((o) => o.name));
    for (const expected of [
      "POST /api/v1/auth/signup",
      "POST /api/v1/auth/signin",
      "POST /api/v1/auth/signout",
      "POST /api/v1/auth/password-reset/request",
      "POST /api/v1/auth/password-reset/confirm",
      "GET /api/v1/user",
      "PATCH /api/v1/user",
      "DELETE /api/v1/user",
      "GET /api/v1/user/sessions",
      "DELETE /api/v1/user/sessions/{id}",
      "POST /api/v1/user/2fa/setup",
      "POST /api/v1/user/2fa/enable",
      "POST /api/v1/user/2fa/disable",
      "GET /api/v1/user/export",
      "GET /api/v1/orgs",
      "POST /api/v1/orgs",
      "GET /api/v1/org",
      "PATCH /api/v1/org",
      "GET /api/v1/org/members",
      "PATCH /api/v1/org/members/{id}",
      "DELETE /api/v1/org/members/{id}",
      "GET /api/v1/org/roles",
      "POST /api/v1/org/roles",
      "GET /api/v1/org/roles/{id}",
      "PATCH /api/v1/org/roles/{id}",
      "DELETE /api/v1/org/roles/{id}",
      "GET /api/v1/org/security-policy",
      "PATCH /api/v1/org/security-policy",
      "POST /api/v1/org/invitations",
      "GET /api/v1/org/invitations",
      "DELETE /api/v1/org/invitations/{id}",
      "GET /api/v1/invitations",
      "POST /api/v1/invitations/accept",
      "POST /api/v1/api-keys",
      "GET /api/v1/api-keys",
      "DELETE /api/v1/api-keys/{id}",
      "GET /api/v1/audit-log",
      "GET /api/v1/entitlements",
      "GET /api/v1/monitors/{id}/checks",
      "GET /api/v1/monitors/{id}/checks/{checkId}",
      "GET /api/v1/monitors/{id}/checks/export",
      "GET /api/v1/monitors/{id}/checks/{checkId}/screenshot",
      "GET /api/v1/plugins/flow/components",
      "GET /api/v1/monitors/{id}/uptime",
      "GET /api/v1/monitors/{id}/aggregates",
      "GET /api/v1/retention",
    ]) {
      expect(names.has(expected) ? expected : `missing ${expected}`).toBe(expected);
    }
    expect(doc.paths["/api/v1/openapi.json"]).toBeUndefined();
  });

  it("gives every /api/v1 operation a unique operationId and a 2xx response with a schema (204 excepted)", () => {
    const ids = new Set<string>();
    for (const { name, op } of v1Operations()) {
      expect(op.operationId ? "ok" : `${name} has no operationId`).toBe("ok");
      expect(ids.has(op.operationId!) ? `${name} repeats ${op.operationId}` : "ok").toBe("ok");
      ids.add(op.operationId!);
      const success = Object.entries(op.responses).filter(([s]) => s.startsWith("2"));
      expect(success.length > 0 ? "ok" : `${name} has no 2xx response`).toBe("ok");
      for (const [status, res] of success) {
        if (status === "204") {
          expect(res.content).toBeUndefined();
          continue;
        }
        const schemas = Object.values(res.content ?? {}).filter((media) => media.schema);
        expect(schemas.length > 0 ? "ok" : `${name} ${status} has no schema`).toBe("ok");
      }
    }
  });

  it("makes every error response of an /api/v1 operation reference Error, always including 429 and 500", () => {
    for (const { name, op } of v1Operations()) {
      const errors = Object.entries(op.responses).filter(([s]) => /^[45]/.test(s));
      expect(errors.map(([s]) => s)).toEqual(expect.arrayContaining(["429", "500"]));
      for (const [status, res] of errors) {
        const ref = res.content?.["application/json"]?.schema?.$ref;
        expect(ref === "#/components/schemas/Error" ? "ok" : `${name} ${status} → ${ref}`).toBe("ok");
      }
    }
    const body = doc.components.schemas.Error;
    expect(body.required).toEqual(["error", "code"]);
    expect(body.properties.code.enum).toEqual(
      expect.arrayContaining(["VALIDATION_ERROR", "UNAUTHENTICATED", "PERMISSION_DENIED", "ENTITLEMENT_REQUIRED", "NOT_FOUND", "CONFLICT", "RATE_LIMIT_EXCEEDED", "INTERNAL_ERROR"]),
    );
  });

  it("lists the errors each kind of operation can answer", () => {
    const op = (path: string, method: string) => doc.paths[path]![method]!;
    expect(Object.keys(op("/api/v1/auth/signin", "post").responses)).toContain("401");
    expect(Object.keys(op("/api/v1/org", "patch").responses)).toEqual(expect.arrayContaining(["400", "401", "403", "413"]));
    expect(Object.keys(op("/api/v1/api-keys/{id}", "delete").responses)).toEqual(expect.arrayContaining(["204", "404"]));
    expect(JSON.stringify(doc)).not.toContain("x-errors");
  });

  it("declares the bearer key and session cookie schemes, and marks the public operations", () => {
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.components.securitySchemes.sessionCookie).toMatchObject({ type: "apiKey", in: "cookie", name: "wp_session" });
    expect(doc.security).toEqual([{ bearerAuth: [] }, { sessionCookie: [] }]);
    for (const path of ["/api/v1/auth/signup", "/api/v1/auth/signin", "/api/v1/auth/password-reset/request", "/api/v1/auth/password-reset/confirm"]) {
      expect(doc.paths[path]!.post!.security).toEqual([]);
    }
    expect(doc.paths["/api/v1/org"]!.get!.security).toBeUndefined();
  });

  it("documents every check type's config and result data as components", () => {
    for (const type of ["Http", "Keyword", "Ssl", "Tcp", "Dns", "Ping", "Domain", "Heartbeat", "BrowserLite", "BrowserFlow"]) {
      expect(doc.components.schemas[`${type}Config`]?.type).toBe("object");
      expect(doc.components.schemas[`${type}Data`]?.type).toBe("object");
    }
    expect(Object.keys(doc.components.schemas.HttpData.properties)).toEqual(expect.arrayContaining(["status_code", "dns_ms", "connect_ms", "tls_ms", "ttfb_ms", "response_time"]));
    expect(doc.components.schemas.SslData.properties.ssl_days_remaining.description).toContain("days");
    expect(Object.keys(doc.components.schemas.PingData.properties)).toContain("packet_loss_pct");
    expect(Object.keys(doc.components.schemas.DomainData.properties)).toContain("domain_days_remaining");
    const exportOk = doc.paths["/api/v1/monitors/{id}/checks/export"]!.get!.responses["200"]!;
    expect(Object.keys(exportOk.content ?? {}).sort()).toEqual(["application/json", "text/csv"]);
  });

  it("documents the rate-limit headers on /api/v1 answers", () => {
    const ok = doc.paths["/api/v1/org"]!.get!.responses["200"] as { headers?: Record<string, unknown> };
    expect(Object.keys(ok.headers ?? {})).toEqual(["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"]);
  });
});
