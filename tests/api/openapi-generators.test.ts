import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Document, Spectral } from "@stoplight/spectral-core";
import { oas } from "@stoplight/spectral-rulesets";
import createClient from "openapi-fetch";
import { generateTypesFromDocument } from "../../scripts/openapi-types.ts";
import { makeOrg, startTestApi, type TestApi } from "../support/api.ts";

type Operation = { operationId?: string; tags?: string[] };

/** Compiled against the generated schema.d.ts: answers carry typed config, scope and condition. */
const TYPED_ANSWERS = `import type { components, paths } from "./schema";
type MonitorAnswer = paths["/api/v1/monitors/{id}"]["get"]["responses"][200]["content"]["application/json"];
export function targetOf(m: MonitorAnswer): string | null {
  if (m.type === "http") {
    const url: string = m.config.url;
    return url;
  }
  if (m.type === "tcp") {
    // @ts-expect-error a tcp monitor's config has no url
    void m.config.url;
    const port: number = m.config.port;
    return \`\${m.config.host}:\${port}\`;
  }
  return null;
}
export function watchedMonitor(r: components["schemas"]["AlertRule"]): string | null {
  // @ts-expect-error only a monitor scope has monitor_id
  void r.scope.monitor_id;
  return r.scope.type === "monitor" ? r.scope.monitor_id : null;
}
export function threshold(r: components["schemas"]["AlertRule"]): number | null {
  return r.condition.type === "metric_threshold" ? r.condition.threshold : null;
}
export function hookUrl(c: components["schemas"]["AlertChannel"]): string | null {
  return c.type === "webhook" ? c.config.url : null;
}
`;

let api: TestApi;
let target: ReturnType<typeof Bun.serve>;
let text: string;
let doc: { tags: { name: string; description?: string }[]; paths: Record<string, Record<string, Operation>> };
const operations = () => Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op })));

beforeAll(async () => {
  api = await startTestApi({ ALLOW_PRIVATE_IPS: "true", REGIONS: "local" });
  target = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("all good") });
  text = await (await fetch(`${api.url}/openapi.json`)).text();
  doc = JSON.parse(text);
});
afterAll(async () => {
  target.stop(true);
  await api.stop();
});

describe("the OpenAPI document for client generators", () => {
  it("has a unique verbNoun operationId on every operation, and the well-known ones by name", () => {
    const seen = new Set<string>();
    for (const { name, op } of operations()) {
      expect(/^[a-z][A-Za-z0-9]*$/.test(op.operationId ?? "") ? "ok" : `${name}: ${op.operationId}`).toBe("ok");
      expect(seen.has(op.operationId!) ? `${name} repeats ${op.operationId}` : "ok").toBe("ok");
      seen.add(op.operationId!);
    }
    for (const id of ["listMonitors", "createMonitor", "getMonitor", "updateMonitor", "deleteMonitor", "runMonitor", "listMonitorChecks", "createAlertRule", "acknowledgeAlert"]) {
      expect(seen.has(id) ? "ok" : `no ${id}`).toBe("ok");
    }
  });

  it("declares every tag it uses, each with a description", () => {
    const declared = new Map(doc.tags.map((t) => [t.name, t.description]));
    for (const { name, op } of operations()) for (const tag of op.tags ?? []) expect(declared.has(tag) ? "ok" : `${name} uses undeclared tag ${tag}`).toBe("ok");
    for (const [name, description] of declared) expect(description ? "ok" : `tag ${name} has no description`).toBe("ok");
  });

  it("refers to the shared shapes (Monitor, CheckResult, AlertRule, Pagination) by $ref", () => {
    const schema = (path: string, method: string, status: string) => (doc.paths[path]![method] as any).responses[status].content["application/json"].schema;
    expect(schema("/api/v1/monitors", "get", "200")).toMatchObject({ properties: { data: { items: { $ref: "#/components/schemas/Monitor" } }, pagination: { $ref: "#/components/schemas/Pagination" } } });
    expect(schema("/api/v1/monitors", "post", "201")).toEqual({ $ref: "#/components/schemas/Monitor" });
    expect(schema("/api/v1/monitors/{id}/checks", "get", "200").properties.data.items).toEqual({ $ref: "#/components/schemas/CheckResult" });
    expect(schema("/api/v1/alert-rules", "post", "201")).toEqual({ $ref: "#/components/schemas/AlertRule" });
    const collections = Object.values(doc.paths).flatMap((item) => Object.values(item)).map((op: any) => op.responses?.["200"]?.content?.["application/json"]?.schema?.properties?.pagination).filter(Boolean);
    expect(collections.length).toBeGreaterThan(10);
    expect(collections.filter((p) => p.$ref !== "#/components/schemas/Pagination")).toEqual([]);
  });

  it("types every answer's config, scope and condition by its type: Monitor and AlertChannel are discriminated unions", () => {
    const schemas = (doc as any).components.schemas;
    for (const [name, registryPart] of [["Monitor", "Config"], ["AlertChannel", "ChannelConfigMasked"]] as const) {
      const union = schemas[name];
      expect(union.discriminator.propertyName).toBe("type");
      expect(union.oneOf.length).toBeGreaterThan(5);
      for (const [type, ref] of Object.entries<string>(union.discriminator.mapping)) {
        const variant = schemas[ref.split("/").at(-1)!];
        expect(union.oneOf).toContainEqual({ $ref: ref });
        expect(variant.properties.type).toEqual({ type: "string", const: type });
        expect(variant.properties.config.$ref).toMatch(new RegExp(`^#/components/schemas/[A-Za-z]+${registryPart}$`));
      }
    }
    for (const part of ["scope", "condition"]) expect(Object.keys(schemas.AlertRule.properties[part].discriminator.mapping).length).toBeGreaterThan(2);
    // Nowhere in the answers (or any schema) is one of them left an untyped object.
    const untyped: string[] = [];
    const walk = (node: unknown, at: string) => {
      if (!node || typeof node !== "object") return;
      const props = (node as { properties?: Record<string, any> }).properties;
      for (const key of ["config", "condition", "scope"]) {
        const p = props?.[key];
        if (p && p.type === "object") untyped.push(`${at}.${key}`);
      }
      for (const [k, v] of Object.entries(node)) walk(v, `${at}.${k}`);
    };
    walk(doc.paths, "paths");
    walk(schemas, "components.schemas");
    expect(untyped).toEqual([]);
  });

  it("has request and response examples on the main operations", () => {
    const byId = new Map(operations().map(({ op }) => [op.operationId, op as any]));
    const media = (id: string, part: "request" | "response") => {
      const op = byId.get(id);
      const res = Object.entries(op.responses).find(([s]) => s.startsWith("2"))![1] as any;
      return (part === "request" ? op.requestBody : res).content["application/json"];
    };
    for (const id of ["createMonitor", "createAlertRule"]) expect(media(id, "request").example ? "ok" : `${id} has no request example`).toBe("ok");
    for (const id of ["createMonitor", "listMonitors", "runMonitor", "createAlertRule"]) expect(media(id, "response").example ? "ok" : `${id} has no response example`).toBe("ok");
  });

  it("passes Spectral's spectral:oas ruleset without an error or an undeclared tag", async () => {
    const spectral = new Spectral();
    spectral.setRuleset({ extends: [[oas as never, "recommended"]] } as never);
    const results = await spectral.run(new Document(JSON.stringify(JSON.parse(text), null, 1), (await import("@stoplight/spectral-parsers")).Json));
    const errors = results.filter((r) => r.severity === 0).map((r) => `${r.code} ${r.path.join(".")}: ${r.message}`);
    expect(errors).toEqual([]);
    const counts = new Map<string, number>();
    for (const r of results) {
      const key = `${["error", "warning", "info", "hint"][r.severity]} ${r.code}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    console.info(`Spectral spectral:oas: ${results.length} results (${[...counts].map(([k, n]) => `${k}: ${n}`).join(", ")})`);
    // The only warnings left: the per-type result data components (HttpData…), named for readers of CheckResult.data
    // (which holds the monitor type's fields but does not carry the type to discriminate by).
    const left = results.filter((r) => !(r.code === "oas3-unused-component" && /^[A-Za-z]+Data$/.test(String(r.path.at(-1)))));
    expect(left.map((r) => `${r.code} ${r.path.join(".")}`)).toEqual([]);
  });

  it("describes every operation: what it does and its notable errors (a table by operationId), then who may call it (from the route's guard)", async () => {
    const { OPERATION_DESCRIPTIONS } = await import("../../api/openapi/operation-descriptions.ts");
    const byId = new Map(operations().map(({ op }) => [op.operationId!, op as Operation & { description?: string; security?: unknown[] }]));
    for (const [id, op] of byId) {
      const [what, who] = (op.description ?? "").split("\n\nWho: ");
      expect(what && who ? "ok" : `${id}: ${op.description}`).toBe("ok");
      const open = Array.isArray(op.security) && op.security.length === 0;
      expect(`${id}: ${/^anyone/.test(who!) ? "public" : "caller"}`).toBe(`${id}: ${open ? "public" : "caller"}`);
    }
    // Every entry of the table describes an operation that exists, and is not hidden by the route's own description.
    for (const [id, text] of Object.entries(OPERATION_DESCRIPTIONS)) expect(byId.get(id)?.description?.startsWith(text) ? "ok" : `stale or shadowed: ${id}`).toBe("ok");
    const who = (id: string) => byId.get(id)!.description!.split("Who: ")[1];
    expect(who("listMonitors")).toContain("`monitors:read` (every system role");
    expect(who("createMonitor")).toContain("`monitors:write` (owner, admin and member");
    expect(who("updateOrg")).toContain("`org:admin`");
    expect(who("changePlanBilling")).toContain("`billing:manage`");
    expect(who("getUser")).toStartWith("a signed-in user session");
    expect(who("listEntitlements")).toStartWith("any member of the active organisation");
    expect(who("claimRunnerJobs")).toStartWith("a self-hosted runner");
  });

  it("generates a TypeScript client with openapi-typescript that drives a whole flow through openapi-fetch", async () => {
    const dir = mkdtempSync(join(tmpdir(), "watchpost-client-"));
    try {
      const types = await generateTypesFromDocument(text);
      await Bun.write(join(dir, "schema.d.ts"), types);
      // Code that reads answers through the generated types: `config`, `scope` and `condition` narrow by their
      // `type`. Were any of them `Record<string, unknown>`, `const url: string = …` would not compile, and
      // the @ts-expect-error lines would have no error to expect (itself an error).
      await Bun.write(join(dir, "reads-answers.ts"), TYPED_ANSWERS);
      // The generated types, and that code, compile (TypeScript 5, which openapi-typescript drives).
      const ts = (await import("typescript5")).default;
      const program = ts.createProgram([join(dir, "schema.d.ts"), join(dir, "reads-answers.ts")], { noEmit: true, strict: true, skipLibCheck: true });
      expect(ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))).toEqual([]);
      expect(["listMonitors:", "createMonitor:", "runMonitor:", "createAlertRule:"].filter((id) => !types.includes(id))).toEqual([]);

      const { api_key } = await makeOrg(api.sql, "business");
      // The client is typed by the same types the web app uses (web/src/api/schema.gen.ts is generated the same way).
      const wp = createClient<import("../../web/src/api/schema.gen.ts").paths>({ baseUrl: api.url, headers: { authorization: `Bearer ${api_key}` } });
      const created = await wp.POST("/api/v1/monitors", { body: { name: "loopback", type: "http", config: { url: `http://127.0.0.1:${target.port}/` } } });
      expect(created.response.status).toBe(201);
      const monitor = created.data!;
      expect(monitor).toMatchObject({ name: "loopback", type: "http" });
      // The answer's config is the http type's config once `type` says http (a type error otherwise).
      const url: string | null = monitor.type === "http" ? monitor.config.url : null;
      expect(url).toBe(`http://127.0.0.1:${target.port}/`);
      const listed = await wp.GET("/api/v1/monitors", { params: { query: { page: 1, limit: 10 } } });
      expect(listed.data!.data.map((m) => m.id)).toContain(monitor.id);
      const ran = await wp.POST("/api/v1/monitors/{id}/run", { params: { path: { id: monitor.id } } });
      expect(ran.error).toBeUndefined();
      expect(ran.data).toMatchObject({ status: "up", recorded: true });
      const checks = await wp.GET("/api/v1/monitors/{id}/checks", { params: { path: { id: monitor.id } } });
      expect(checks.data!.data[0]).toMatchObject({ id: ran.data!.id, status: "up" });
      const channel = await wp.POST("/api/v1/alert-channels", { body: { name: "hook", type: "webhook", config: { url: "http://127.0.0.1:9/hook" } } });
      const policy = await wp.POST("/api/v1/escalation-policies", { body: { name: "p", steps: [{ delay_minutes: 0, channel_ids: [channel.data!.id] }] } });
      const rule = await wp.POST("/api/v1/alert-rules", {
        body: { name: "down", scope: { type: "monitor", monitor_id: monitor.id }, condition: { type: "status_change", to: ["down"] }, escalation_policy_id: policy.data!.id },
      });
      expect(rule.error).toBeUndefined();
      expect(rule.data).toMatchObject({ name: "down" });
      const scope = rule.data!.scope;
      expect(scope.type === "monitor" ? scope.monitor_id : null).toBe(monitor.id);
      const hook = channel.data!;
      // (the url is a secret: answered masked, as its description says)
      expect(hook.type === "webhook" ? hook.config.url : null).toBe("••••hook");
      const wrong = await wp.GET("/api/v1/monitors/{id}", { params: { path: { id: "00000000-0000-0000-0000-000000000000" } } });
      expect(wrong.error).toMatchObject({ code: "NOT_FOUND" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
