import { describe, expect, it } from "bun:test";
import { conditionSchemas } from "../../../schemas/alerting/conditions.ts";
import { configSchemas } from "../../../schemas/check-types.ts";
import { validateCheckConfig } from "../../../domain/monitors/validate-config.ts";
import { describeFields, readFields, toInput, validate } from "./schema-form";

const form = (entries: [string, string][]) => {
  const f = new FormData();
  for (const [k, v] of entries) f.append(k, v);
  return f;
};
const byKey = (fields: ReturnType<typeof describeFields>) => Object.fromEntries(fields.map((f) => [f.key, f]));

describe("describeFields", () => {
  it("turns every setting of the HTTP schema into a field of the right kind", () => {
    const f = byKey(describeFields(configSchemas.http));
    expect(Object.keys(f)).toEqual(Object.keys(configSchemas.http.properties));
    expect(f.url).toMatchObject({ kind: "text", required: true, label: "URL" });
    expect(f.method).toMatchObject({ kind: "select", required: false, default: "GET" });
    expect(f.method!.options).toContain("DELETE");
    expect(f.expected_status).toMatchObject({ kind: "lines", commas: true, numberItems: true });
    expect(f.headers!.kind).toBe("pairs");
    expect(f.follow_redirects).toMatchObject({ kind: "checkbox", default: true });
    expect(f.max_redirects).toMatchObject({ kind: "number", integer: true, min: 0, max: 20 });
    expect(f.auth!.kind).toBe("variant");
    expect(Object.keys(f.auth!.variants!)).toEqual(["basic", "bearer"]);
    expect(f.auth!.variants!.basic!.map((x) => x.path)).toEqual(["auth.username", "auth.password"]);
  });

  it("edits HTTP assertions as rows whose operator choices follow the row's source", () => {
    const rows = byKey(describeFields(configSchemas.http)).assertions!;
    expect(rows.kind).toBe("rows");
    const columns = byKey(rows.fields!);
    expect(Object.keys(columns)).toEqual(["source", "property", "operator", "target", "severity"]);
    expect(columns.source).toMatchObject({ kind: "select", required: true });
    expect(columns.operator!.optionsBy!.field).toBe("source");
    expect(columns.operator!.optionsBy!.options.body).toEqual(["contains", "not_contains", "matches"]);
    expect(columns.target).toMatchObject({ kind: "text", numeric: true });
    expect(columns.property!.example).toBe("$.status");
    expect(columns.property!.usedWhen).toEqual({ field: "source", values: ["header", "json"] });
    expect(columns.target!.usedWhen!.values).not.toContain("exists");
  });

  it("reads rows in the order shown, leaving blank cells out", () => {
    const rows = byKey(describeFields(configSchemas.http)).assertions!;
    const read = readFields(
      [rows],
      form([
        ["config.assertions.0.source", "status_code"],
        ["config.assertions.0.property", ""],
        ["config.assertions.0.operator", "equals"],
        ["config.assertions.0.target", "200"],
        ["config.assertions.0.severity", ""],
        ["config.assertions.1.source", "json"],
        ["config.assertions.1.property", "$.status"],
        ["config.assertions.1.operator", "equals"],
        ["config.assertions.1.target", "ok"],
        ["config.assertions.1.severity", "degraded"],
      ]),
      "config",
    );
    expect(read).toEqual({
      assertions: [
        { source: "status_code", operator: "equals", target: 200 },
        { source: "json", property: "$.status", operator: "equals", target: "ok", severity: "degraded" },
      ],
    });
    expect(readFields([rows], form([]), "config")).toEqual({});
  });

  it("has a field for every setting of every check type", () => {
    for (const [type, schema] of Object.entries(configSchemas)) {
      const fields = describeFields(schema);
      expect(fields.map((f) => f.key)).toEqual(Object.keys(schema.properties));
      // A heartbeat needs one of period_seconds and schedule: a rule across fields (its spec's validate), not a required field.
      if (type === "heartbeat") expect(fields.map((f) => f.key)).toEqual(expect.arrayContaining(["period_seconds", "schedule"]));
      else expect(fields.filter((f) => f.required).length, type).toBeGreaterThan(0);
    }
    expect(byKey(describeFields(configSchemas.browser_flow)).steps!.kind).toBe("json");
    expect(byKey(describeFields(configSchemas.browser_lite)).viewport).toMatchObject({ kind: "group" });
  });

  it("offers the statuses of a status_change condition as checkboxes", () => {
    expect(byKey(describeFields(conditionSchemas.status_change)).to).toMatchObject({ kind: "multi", options: ["up", "down", "degraded", "timeout"], required: true });
  });
});

describe("readFields and validate", () => {
  const http = describeFields(configSchemas.http);

  it("reads inputs into the config the API expects, leaving blank optional inputs out", () => {
    const value = readFields(
      http,
      form([
        ["config.url", "http://127.0.0.1:8080/health"],
        ["config.method", ""],
        ["config.expected_status", "200, 2xx\n301-302"],
        ["config.headers", "Accept: application/json\nX-Trace: a:b"],
        ["config.follow_redirects", "on"],
        ["config.max_redirects", ""],
        ["config.auth.type", "bearer"],
        ["config.auth.token", "s3cret"],
      ]),
      "config",
    );
    expect(value).toEqual({
      url: "http://127.0.0.1:8080/health",
      expected_status: [200, "2xx", "301-302"],
      headers: { Accept: "application/json", "X-Trace": "a:b" },
      follow_redirects: true,
      auth: { type: "bearer", token: "s3cret" },
      tls_verify: false,
    });
    expect(validate(configSchemas.http, value, "body.config")).toEqual([]);
    // The API accepts exactly what the form accepts.
    expect(() => validateCheckConfig("http", value)).not.toThrow();
  });

  it("reports the same paths as the API, in words", () => {
    const issues = validate(configSchemas.http, { url: "ftp://example.com", max_redirects: 99 }, "body.config");
    expect(issues).toContainEqual({ path: "body.config.url", message: "must be an http:// or https:// URL" });
    expect(issues).toContainEqual({ path: "body.config.max_redirects", message: "must be at most 20" });
    let apiPaths: string[] = [];
    try {
      validateCheckConfig("http", { url: "ftp://example.com", max_redirects: 99 });
    } catch (err) {
      apiPaths = ((err as { details: { issues: { path: string }[] } }).details.issues ?? []).map((i) => i.path);
    }
    expect(issues.map((i) => i.path).sort()).toEqual([...new Set(apiPaths)].sort());
    expect(validate(configSchemas.tcp, { host: "db" }, "body.config")).toEqual([{ path: "body.config.port", message: "is required" }]);
  });

  it("flags header lines without a colon and JSON that does not parse", () => {
    const issues: { path: string; message: string }[] = [];
    readFields(http, form([["config.url", "http://a.test/"], ["config.headers", "oops"]]), "config", issues);
    expect(issues).toEqual([{ path: "config.headers", message: '"oops" is not in the form Name: value' }]);
    const flow = describeFields(configSchemas.browser_flow);
    readFields(flow, form([["config.url", "http://a.test/"], ["config.steps", "[{"]]), "config", issues);
    expect(issues.at(-1)).toEqual({ path: "config.steps", message: "is not valid JSON" });
  });

  it("shows an existing config back in the inputs it came from", () => {
    const f = byKey(http);
    expect(toInput(f.expected_status!, [200, "3xx"])).toBe("200\n3xx");
    expect(toInput(f.headers!, { A: "1" })).toBe("A: 1");
    expect(toInput(f.follow_redirects!, false)).toBe(false);
    expect(toInput(f.url!, undefined)).toBeUndefined();
  });

  it("reads a Telegram-style chat id as a number when it is digits", () => {
    const schema = { type: "object", properties: { chat_id: { anyOf: [{ type: "integer" }, { type: "string" }] } }, required: ["chat_id"] };
    const fields = describeFields(schema as never);
    expect(fields[0]!.numeric).toBe(true);
    expect(readFields(fields, form([["c.chat_id", "-100123"]]), "c")).toEqual({ chat_id: -100123 });
    expect(readFields(fields, form([["c.chat_id", "@news"]]), "c")).toEqual({ chat_id: "@news" });
  });
});
