import { describe, expect, it } from "bun:test";
import { CHECK_TYPES } from "../schemas/check-types.ts";
import { apply, outputs, renderCheckTypesTable, staleOutputs } from "./gen-registries.ts";

describe("files generated from the registries", () => {
  it("are up to date (run `bun scripts/gen-registries.ts` after changing a registry)", () => {
    expect(staleOutputs()).toEqual([]);
  });

  it("give docs/check-types.md one table row per registered check type", () => {
    const rows = renderCheckTypesTable().split("\n").slice(2);
    expect(rows.map((r) => r.split("|")[1]!.trim())).toEqual(CHECK_TYPES.map((t) => `\`${t}\``));
  });

  it("replace only the text between a document's markers", () => {
    const doc = outputs.find((o) => o.marker === "check-types")!;
    const next = apply(doc, "before\n<!-- gen:check-types -->\nold\n<!-- /gen:check-types -->\nafter\n");
    expect(next.startsWith("before\n<!-- gen:check-types -->\n| type |")).toBe(true);
    expect(next.endsWith("\n<!-- /gen:check-types -->\nafter\n")).toBe(true);
    expect(() => apply(doc, "no markers")).toThrow("markers");
  });
});
