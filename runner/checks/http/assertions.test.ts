import { describe, expect, it } from "bun:test";
import type { Assertion } from "../../../schemas/checks/assertion-schema.ts";
import { assertionVerdict, evaluateAssertions, needsBody, type ResponseSnapshot } from "./assertions.ts";

const doc = { status: "ok", count: 3, ratio: 0.5, items: [{ id: 1, tags: ["a"] }, { id: 2, tags: [] }], meta: {}, note: null, version: "10" };
const response = (over: Partial<ResponseSnapshot> = {}): ResponseSnapshot => ({
  statusCode: 200,
  headers: { "content-type": "application/json; charset=utf-8", "x-version": "1.2.3", "set-cookie": ["a=1", "b=2"] },
  body: Buffer.from(JSON.stringify(doc)),
  elapsedMs: 120.4,
  ...over,
});
const one = (a: Assertion, res = response()) => evaluateAssertions([a], res)[0]!;
const passes = (a: Assertion, res?: ResponseSnapshot) => one(a, res).passed;

describe("evaluateAssertions", () => {
  it("compares the status code numerically", () => {
    expect(passes({ source: "status_code", operator: "equals", target: 200 })).toBe(true);
    expect(passes({ source: "status_code", operator: "equals", target: "200" })).toBe(true);
    expect(passes({ source: "status_code", operator: "not_equals", target: 200 })).toBe(false);
    expect(passes({ source: "status_code", operator: "less_than", target: 300 })).toBe(true);
    expect(passes({ source: "status_code", operator: "greater_than", target: 399 }, response({ statusCode: 404 }))).toBe(true);
    expect(one({ source: "status_code", operator: "equals", target: 201 }).actual).toBe("200");
  });

  it("compares the response time in whole milliseconds", () => {
    expect(passes({ source: "response_time", operator: "less_than", target: 500 })).toBe(true);
    const slow = one({ source: "response_time", operator: "less_than", target: 100 });
    expect(slow.passed).toBe(false);
    expect(slow.actual).toBe("120");
  });

  it("reads headers by name in any case, joining repeated ones", () => {
    expect(passes({ source: "header", property: "Content-Type", operator: "exists" })).toBe(true);
    expect(passes({ source: "header", property: "x-missing", operator: "not_exists" })).toBe(true);
    expect(passes({ source: "header", property: "x-missing", operator: "exists" })).toBe(false);
    expect(passes({ source: "header", property: "X-Version", operator: "equals", target: "1.2.3" })).toBe(true);
    expect(passes({ source: "header", property: "content-type", operator: "contains", target: "json" })).toBe(true);
    expect(passes({ source: "header", property: "content-type", operator: "not_contains", target: "html" })).toBe(true);
    expect(passes({ source: "header", property: "x-version", operator: "matches", target: "^1\\.\\d+\\.\\d+$" })).toBe(true);
    expect(one({ source: "header", property: "set-cookie", operator: "equals", target: "a=1, b=2" }).passed).toBe(true);
  });

  it("fails every header comparison but not_exists on a header that is not there", () => {
    for (const operator of ["equals", "not_equals", "contains", "not_contains", "matches"] as const) {
      const o = one({ source: "header", property: "x-missing", operator, target: "x" });
      expect(o.passed).toBe(false);
      expect(o.actual).toBeNull();
    }
  });

  it("searches the body as text, and matches it with an RE2 expression", () => {
    expect(passes({ source: "body", operator: "contains", target: '"status":"ok"' })).toBe(true);
    expect(passes({ source: "body", operator: "not_contains", target: "error" })).toBe(true);
    expect(passes({ source: "body", operator: "not_contains", target: "status" })).toBe(false);
    expect(passes({ source: "body", operator: "matches", target: '"count":\\s*\\d+' })).toBe(true);
    expect(passes({ source: "body", operator: "matches", target: "(?i)STATUS" })).toBe(true);
    expect(passes({ source: "body", operator: "matches", target: "^error" })).toBe(false);
  });

  it("matches a pattern that backtracks catastrophically elsewhere over 1 MiB in linear time", () => {
    const body = Buffer.from(`${"a".repeat(1024 * 1024)}!`);
    const started = performance.now();
    const outcomes = evaluateAssertions(
      [
        { source: "body", operator: "matches", target: "^(a+)+$" },
        { source: "body", operator: "matches", target: "(x+x+)+y" },
        { source: "body", operator: "matches", target: "^(a|a?)+$" },
      ],
      response({ body }),
    );
    expect(outcomes.map((o) => o.passed)).toEqual([false, false, false]);
    // Backtracking over 1 MiB would not end in hours; linear takes about a second, several on a loaded machine.
    expect(performance.now() - started).toBeLessThan(15_000);
  }, 30_000);

  it("selects JSON values by JSONPath and compares them by type", () => {
    expect(passes({ source: "json", property: "$.status", operator: "equals", target: "ok" })).toBe(true);
    expect(passes({ source: "json", property: "$.count", operator: "equals", target: 3 })).toBe(true);
    expect(passes({ source: "json", property: "$.count", operator: "equals", target: "3" })).toBe(true);
    expect(passes({ source: "json", property: "$.version", operator: "equals", target: "10" })).toBe(true);
    expect(passes({ source: "json", property: "$.status", operator: "not_equals", target: "down" })).toBe(true);
    expect(passes({ source: "json", property: "$.count", operator: "greater_than", target: 2 })).toBe(true);
    expect(passes({ source: "json", property: "$.ratio", operator: "less_than", target: "0.75" })).toBe(true);
    expect(passes({ source: "json", property: "$.version", operator: "greater_than", target: 9 })).toBe(true);
    expect(passes({ source: "json", property: "$.status", operator: "greater_than", target: 1 })).toBe(false);
    expect(passes({ source: "json", property: "$.note", operator: "equals", target: "null" })).toBe(true);
    expect(passes({ source: "json", property: "$.items[0]", operator: "equals", target: '{"id":1,"tags":["a"]}' })).toBe(true);
  });

  it("treats several selected nodes as a list", () => {
    expect(passes({ source: "json", property: "$.items[*].id", operator: "contains", target: 2 })).toBe(true);
    expect(passes({ source: "json", property: "$.items[*].id", operator: "not_contains", target: 7 })).toBe(true);
    expect(one({ source: "json", property: "$.items[*].id", operator: "equals", target: "[1,2]" }).actual).toBe("[1,2]");
    expect(passes({ source: "json", property: "$.items[*].id", operator: "equals", target: "[1,2]" })).toBe(true);
  });

  it("tells contains on strings, lists and objects apart", () => {
    expect(passes({ source: "json", property: "$.status", operator: "contains", target: "o" })).toBe(true);
    expect(passes({ source: "json", property: "$.items[0].tags", operator: "contains", target: "a" })).toBe(true);
    expect(passes({ source: "json", property: "$.items[0]", operator: "contains", target: "tags" })).toBe(true);
    expect(passes({ source: "json", property: "$.count", operator: "contains", target: "3" })).toBe(false);
  });

  it("knows empty values and missing ones", () => {
    expect(passes({ source: "json", property: "$.meta", operator: "is_empty" })).toBe(true);
    expect(passes({ source: "json", property: "$.items[1].tags", operator: "is_empty" })).toBe(true);
    expect(passes({ source: "json", property: "$.note", operator: "is_empty" })).toBe(true);
    expect(passes({ source: "json", property: "$.items", operator: "not_empty" })).toBe(true);
    expect(passes({ source: "json", property: "$.nope", operator: "is_empty" })).toBe(false);
    expect(passes({ source: "json", property: "$.nope", operator: "not_exists" })).toBe(true);
    expect(passes({ source: "json", property: "$.note", operator: "exists" })).toBe(true);
    expect(passes({ source: "json", property: "$.nope", operator: "not_equals", target: "x" })).toBe(false);
  });

  it("fails json assertions on a body that is not JSON, saying so", () => {
    const o = one({ source: "json", property: "$.status", operator: "exists" }, response({ body: Buffer.from("<html>") }));
    expect(o.passed).toBe(false);
    expect(o.actual).toBe("the body is not JSON");
  });

  it("records every assertion in order with its severity", () => {
    const outcomes = evaluateAssertions(
      [
        { source: "status_code", operator: "equals", target: 200 },
        { source: "json", property: "$.status", operator: "equals", target: "down", severity: "degraded" },
      ],
      response(),
    );
    expect(outcomes).toEqual([
      { index: 1, source: "status_code", property: null, operator: "equals", target: "200", actual: "200", passed: true, severity: "down" },
      { index: 2, source: "json", property: "$.status", operator: "equals", target: "down", actual: "ok", passed: false, severity: "degraded" },
    ]);
  });
});

describe("assertionVerdict", () => {
  const run = (list: Assertion[]) => assertionVerdict(evaluateAssertions(list, response()));

  it("is null when every assertion holds", () => {
    expect(run([{ source: "status_code", operator: "equals", target: 200 }])).toBeNull();
  });

  it("names the failed assertion and what the response had", () => {
    expect(run([{ source: "json", property: "$.status", operator: "equals", target: "up" }])).toEqual({
      status: "down",
      error: 'assertion failed: #1 json $.status equals "up" (got "ok")',
    });
  });

  it("gives degraded when only degraded assertions failed, down when any down one did", () => {
    const degraded = { source: "response_time", operator: "less_than", target: 50, severity: "degraded" } as const;
    expect(run([degraded])?.status).toBe("degraded");
    const both = run([degraded, { source: "header", property: "x-missing", operator: "exists" }]);
    expect(both?.status).toBe("down");
    expect(both?.error).toBe('2 assertions failed: #1 response_time less than 50 (got 120); #2 header x-missing exists');
  });
});

describe("assertionVerdict message", () => {
  it("names at most five failed assertions, each cut short, so the error stays well under the result's limit", () => {
    const long = "x".repeat(1024);
    const list: Assertion[] = Array.from({ length: 20 }, () => ({ source: "body", operator: "contains", target: long }));
    const verdict = assertionVerdict(evaluateAssertions(list, response()));
    expect(verdict?.error).toStartWith("20 assertions failed: #1 body contains");
    expect(verdict?.error).toEndWith("; 15 more (see data.assertions)");
    expect(verdict!.error!.length).toBeLessThan(2000);
  });
});

describe("needsBody", () => {
  it("asks for the body only when a body or json assertion reads it", () => {
    expect(needsBody(undefined)).toBe(false);
    expect(needsBody([{ source: "header", property: "etag", operator: "exists" }])).toBe(false);
    expect(needsBody([{ source: "json", property: "$.a", operator: "exists" }])).toBe(true);
  });
});
