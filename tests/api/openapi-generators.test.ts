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
    expect(results.filter((r) => r.code === "operation-tag-defined").map((r) => r.path.join("."))).toEqual([]);
  });

  it("generates a TypeScript client with openapi-typescript that drives a whole flow through openapi-fetch", async () => {
    const dir = mkdtempSync(join(tmpdir(), "watchpost-client-"));
    try {
      const types = await generateTypesFromDocument(text);
      await Bun.write(join(dir, "schema.d.ts"), types);
      // The generated types compile on their own (TypeScript 5, which openapi-typescript drives).
      const ts = (await import("typescript5")).default;
      const program = ts.createProgram([join(dir, "schema.d.ts")], { noEmit: true, strict: true, skipLibCheck: true });
      expect(ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))).toEqual([]);
      expect(["listMonitors:", "createMonitor:", "runMonitor:", "createAlertRule:"].filter((id) => !types.includes(id))).toEqual([]);

      const { api_key } = await makeOrg(api.sql, "business");
      // The client is typed by the same types the web app uses (web/src/api/schema.gen.ts is generated the same way).
      const wp = createClient<import("../../web/src/api/schema.gen.ts").paths>({ baseUrl: api.url, headers: { authorization: `Bearer ${api_key}` } });
      const created = await wp.POST("/api/v1/monitors", { body: { name: "loopback", type: "http", config: { url: `http://127.0.0.1:${target.port}/` } } });
      expect(created.response.status).toBe(201);
      const monitor = created.data!;
      expect(monitor).toMatchObject({ name: "loopback", type: "http" });
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
      const wrong = await wp.GET("/api/v1/monitors/{id}", { params: { path: { id: "00000000-0000-0000-0000-000000000000" } } });
      expect(wrong.error).toMatchObject({ code: "NOT_FOUND" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
