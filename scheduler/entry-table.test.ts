import { expect, it } from "bun:test";
import fc from "fast-check";
import { EntryTable } from "./entry-table.ts";

interface Item {
  id: string;
  n: number;
}

it("finds, replaces and deletes items by id as a Map does, through growing and shrinking", () => {
  // Few distinct ids, so runs of colliding slots and deletions inside them are common.
  const op = fc.oneof(
    fc.record({ kind: fc.constant("set" as const), id: fc.integer({ min: 0, max: 300 }), n: fc.integer() }),
    fc.record({ kind: fc.constant("delete" as const), id: fc.integer({ min: 0, max: 300 }) }),
  );
  fc.assert(
    fc.property(fc.array(op, { maxLength: 600 }), (ops) => {
      const table = new EntryTable<Item>();
      const model = new Map<string, Item>();
      for (const o of ops) {
        const id = `mon_${o.id}`;
        if (o.kind === "set") {
          const item = { id, n: o.n };
          table.set(item);
          model.set(id, item);
        } else expect(table.delete(id)).toBe(model.delete(id));
        expect(table.size).toBe(model.size);
      }
      for (let k = 0; k <= 300; k++) expect(table.get(`mon_${k}`)).toBe(model.get(`mon_${k}`));
      expect([...table.keys()].sort()).toEqual([...model.keys()].sort());
      expect(new Set(table.values())).toEqual(new Set(model.values()));
    }),
  );
});

it("holds twenty thousand monitor-shaped ids and lets them all go", () => {
  const table = new EntryTable<Item>();
  const ids = Array.from({ length: 20_000 }, (_, n) => `mon_${Bun.hash(String(n)).toString(16).padStart(16, "0")}${n.toString(16).padStart(16, "0")}`);
  ids.forEach((id, n) => table.set({ id, n }));
  expect(table.size).toBe(20_000);
  expect(ids.every((id, n) => table.get(id)?.n === n)).toBe(true);
  expect(table.has("mon_missing")).toBe(false);
  for (const id of ids.slice(0, 19_990)) table.delete(id);
  expect([...table.keys()].sort()).toEqual(ids.slice(19_990).sort());
  expect(ids.slice(19_990).every((id) => table.has(id))).toBe(true);
});
