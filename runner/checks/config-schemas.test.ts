import { Value } from "@sinclair/typebox/value";
import { describe, expect, it } from "bun:test";
import { configSchemas, monitorCheckSchema } from "../../schemas/check-types.ts";
import { CHECK_TYPES } from "./types.ts";

const examples: Record<(typeof CHECK_TYPES)[number], unknown> = {
  http: { url: "https://example.com/health", method: "GET", expected_status: [200, "3xx", "400-404"], auth: { type: "bearer", token: "t" } },
  keyword: { url: "https://example.com/", keyword: "Welcome", mode: "present" },
  ssl: { host: "example.com", port: 443, warn_days: 21 },
  tcp: { host: "db.example.com", port: 5432 },
  dns: { name: "example.com", record_type: "CAA", resolver: "1.1.1.1:53", expected: ["0 issue letsencrypt.org"] },
  ping: { host: "2606:4700::1111", count: 5 },
  domain: { domain: "example.co.uk", warn_days: 45 },
  smtp: { host: "mail.example.com", port: 587, starttls: "required", cert_expiry_days: 14 },
  heartbeat: { period_seconds: 300, grace_seconds: 60 },
  browser_lite: { url: "https://example.com/", wait_until: "networkidle" },
  browser_flow: { url: "https://example.com/login", steps: [{ action: "fill", selector: "#email", value: "a@b.c" }, { action: "click", selector: "button" }] },
};

describe("config schemas", () => {
  it("has a schema for every check type", () => {
    expect(Object.keys(configSchemas).sort()).toEqual([...CHECK_TYPES].sort());
  });

  for (const type of CHECK_TYPES) {
    it(`accepts a typical ${type} config, alone and as a tagged monitor check`, () => {
      expect([...Value.Errors(configSchemas[type], examples[type])]).toEqual([]);
      expect(Value.Check(monitorCheckSchema, { type, config: examples[type] })).toBe(true);
    });
  }

  it("rejects a config given under the wrong type", () => {
    expect(Value.Check(monitorCheckSchema, { type: "tcp", config: examples.http })).toBe(false);
    expect(Value.Check(monitorCheckSchema, { type: "smtp", config: {} })).toBe(false);
  });

  it("keeps browser flow steps generic but requires an action", () => {
    expect(Value.Check(configSchemas.browser_flow, { url: "https://a.example/", steps: [{ selector: "#x" }] })).toBe(false);
    expect(Value.Check(configSchemas.browser_flow, { url: "https://a.example/", steps: [] })).toBe(false);
  });

  it("rejects a heartbeat period shorter than 30 seconds", () => {
    expect(Value.Check(configSchemas.heartbeat, { period_seconds: 10 })).toBe(false);
  });
});
