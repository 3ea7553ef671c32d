import { describe, expect, it } from "bun:test";
import { CHECK_FIELDS, CHECK_TYPES, readConfig } from "./check-fields";

describe("check form fields", () => {
  it("has fields for every check type, each with its required settings", () => {
    expect(CHECK_TYPES.sort()).toEqual(["browser_flow", "browser_lite", "dns", "domain", "heartbeat", "http", "keyword", "ping", "ssl", "tcp"]);
    for (const t of CHECK_TYPES) expect(CHECK_FIELDS[t].some((f) => f.required)).toBe(true);
  });

  it("builds a config that leaves blank fields out and parses numbers, booleans and JSON", () => {
    expect(readConfig("http", { url: "http://127.0.0.1/", method: "", expected_status: "[200, 204]", degraded_above_ms: "500", headers: "", body: "", follow_redirects: "on" })).toEqual({
      url: "http://127.0.0.1/",
      expected_status: [200, 204],
      degraded_above_ms: 500,
      follow_redirects: true,
    });
    expect(readConfig("tcp", { host: "db", port: "5432" })).toEqual({ host: "db", port: 5432 });
  });

  it("names the field whose JSON does not parse", () => {
    expect(() => readConfig("dns", { name: "example.com", record_type: "A", expected: "[oops" })).toThrow("Expected answers is not valid JSON");
  });
});
