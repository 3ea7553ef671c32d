import { describe, expect, it } from "bun:test";
import type { Assertion } from "./assertion-schema.ts";
import { assertionIssues, compileAssertions } from "./compile-assertion.ts";

const issues = (...list: Assertion[]) => assertionIssues(list);

describe("assertionIssues", () => {
  it("accepts a well-formed assertion of every source", () => {
    expect(
      issues(
        { source: "status_code", operator: "equals", target: 200 },
        { source: "response_time", operator: "less_than", target: "800" },
        { source: "header", property: "Content-Type", operator: "contains", target: "json" },
        { source: "header", property: "etag", operator: "exists" },
        { source: "body", operator: "matches", target: "(?i)welcome\\s+back" },
        { source: "json", property: "$.items[?@.id > 1].name", operator: "not_empty" },
      ),
    ).toEqual([]);
  });

  it("refuses an operator the source does not take, listing the ones it does", () => {
    expect(issues({ source: "status_code", operator: "matches", target: "2.." })).toEqual([
      { path: "assertions.0.operator", message: "operator matches does not apply to status_code; use one of: equals, not_equals, greater_than, less_than" },
    ]);
  });

  it("refuses a regular expression that does not compile, or one RE2 cannot run in linear time", () => {
    expect(issues({ source: "body", operator: "matches", target: "(unclosed" })).toEqual([
      { path: "assertions.0.target", message: "not a valid regular expression (RE2 syntax): missing closing ): `(unclosed`" },
    ]);
    expect(issues({ source: "body", operator: "matches", target: "(a)\\1" })[0]?.message).toStartWith("not a valid regular expression (RE2 syntax)");
    expect(issues({ source: "header", property: "x", operator: "matches", target: "(?<=a)b" })[0]?.path).toBe("assertions.0.target");
  });

  it("refuses a JSONPath expression that does not parse", () => {
    const [issue] = issues({ source: "json", property: "$.items[", operator: "exists" });
    expect(issue?.path).toBe("assertions.0.property");
    expect(issue?.message).toStartWith("not a valid JSONPath expression (RFC 9535): ");
    expect(issues({ source: "json", property: "status", operator: "exists" })[0]?.message).toContain('Expected "$"');
  });

  it("asks for property where the source needs one and refuses it where it does not", () => {
    expect(issues({ source: "header", operator: "exists" })).toEqual([{ path: "assertions.0.property", message: "a header assertion needs property: the header's name" }]);
    expect(issues({ source: "json", operator: "exists" })[0]?.message).toContain("JSONPath");
    expect(issues({ source: "header", property: "bad name", operator: "exists" })[0]?.message).toBe('"bad name" is not a valid header name');
    expect(issues({ source: "body", property: "$.x", operator: "contains", target: "a" })).toEqual([
      { path: "assertions.0.property", message: "property is not used by body; leave it out" },
    ]);
  });

  it("asks for a target where the operator compares, and a number where it compares numbers", () => {
    expect(issues({ source: "body", operator: "contains" })).toEqual([{ path: "assertions.0.target", message: "contains needs a target" }]);
    expect(issues({ source: "json", property: "$.a", operator: "exists", target: "x" })).toEqual([
      { path: "assertions.0.target", message: "exists compares with nothing; leave target out" },
    ]);
    expect(issues({ source: "status_code", operator: "equals", target: 99 })[0]?.message).toBe("must be an HTTP status code from 100 to 599");
    expect(issues({ source: "response_time", operator: "less_than", target: "fast" })[0]?.message).toBe("must be a number of milliseconds");
    expect(issues({ source: "json", property: "$.a", operator: "greater_than", target: "ten" })[0]?.message).toBe("greater_than needs a number as target");
  });

  it("reports each bad assertion at its own index", () => {
    const found = issues({ source: "status_code", operator: "equals", target: 200 }, { source: "body", operator: "matches", target: "[" });
    expect(found.map((i) => i.path)).toEqual(["assertions.1.target"]);
  });
});

describe("compileAssertions", () => {
  it("throws for an assertion that validation would refuse", () => {
    expect(() => compileAssertions([{ source: "body", operator: "matches", target: "(" }])).toThrow("invalid assertion: assertions.0.target");
  });
});
