import { describe, expect, it } from "bun:test";
import fc from "fast-check";
import { scopeMatches, type Scope } from "../engine/rule.ts";
import type { CompiledRule } from "../engine/compile.ts";
import { indexRules } from "./rule-cache.ts";

const arbScope: fc.Arbitrary<Scope> = fc.oneof(
  fc.record({ type: fc.constant("monitor" as const), monitor_id: fc.constantFrom("m1", "m2", "m3") }),
  fc.record({ type: fc.constant("monitor_group" as const), tag: fc.constantFrom("a", "b", "c") }),
  fc.constant({ type: "all_monitors" as const }),
);

describe("indexRules", () => {
  it("matches exactly the enabled rules whose scope covers the monitor", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ scope: arbScope, enabled: fc.boolean() }), { maxLength: 30 }),
        fc.constantFrom("m1", "m2", "m4"),
        fc.uniqueArray(fc.constantFrom("a", "b", "c", "d")),
        (specs, id, tags) => {
          const rules = specs.map((s, i) => ({ id: `r${i}`, scope: s.scope, machine: { enabled: s.enabled } }) as unknown as CompiledRule);
          const expected = rules.filter((r) => r.machine.enabled && scopeMatches(r.scope, { id, tags })).map((r) => r.id);
          expect(indexRules(rules)({ id, tags }).map((r) => r.id).sort()).toEqual(expected.sort());
        },
      ),
      { numRuns: 1000 },
    );
  });
});
