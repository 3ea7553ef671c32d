import { describe, expect, it } from "bun:test";
import { fieldChanges } from "./plan.ts";

describe("fieldChanges", () => {
  it("names the leaf that changed, not the whole object (key order aside)", () => {
    expect(fieldChanges("confirmation", { confirmation_regions: null, consecutive_failures: 3 }, { consecutive_failures: 2, confirmation_regions: null })).toEqual([
      { path: "confirmation.consecutive_failures", before: 3, after: 2 },
    ]);
  });

  it("walks lists of the same length by position, and shows a list that grew or shrank whole", () => {
    const before = [{ name: "Core", components: [{ monitor: "api", display_name: "API" }, { monitor: "db", display_name: "DB" }] }];
    const after = [{ name: "Core", components: [{ monitor: "api", display_name: "Public API" }, { monitor: "db", display_name: "DB" }] }];
    expect(fieldChanges("sections", before, after)).toEqual([{ path: "sections[0].components[0].display_name", before: "API", after: "Public API" }]);
    expect(fieldChanges("tags", ["a"], ["a", "b"])).toEqual([{ path: "tags", before: ["a"], after: ["a", "b"] }]);
    expect(fieldChanges("x", { a: 1 }, { a: 1, b: 2 })).toEqual([{ path: "x.b", before: undefined, after: 2 }]);
    expect(fieldChanges("x", { a: 1 }, { a: 1 })).toEqual([]);
  });
});
