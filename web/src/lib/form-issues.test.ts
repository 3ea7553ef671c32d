import { describe, expect, it } from "bun:test";
import { issueLabel } from "./form-issues";

describe("issueLabel", () => {
  it("uses the form's label for the API's path", () => {
    expect(issueLabel("body.config.expected_status", { "body.config.expected_status": "Expected status codes" })).toBe("Expected status codes");
  });
  it("spells out a path the form has no label for, never the raw key", () => {
    expect(issueLabel("body.config.expected_status")).toBe("Expected status");
    expect(issueLabel("body.config.url")).toBe("URL");
    expect(issueLabel("body.monitors[3].config.url")).toBe("URL (item 4)");
    expect(issueLabel("body")).toBe("The request");
  });
});
