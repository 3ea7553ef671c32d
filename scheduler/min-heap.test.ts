import { expect, it } from "bun:test";
import fc from "fast-check";
import { MinHeap } from "./min-heap.ts";

const item = (due: number) => ({ due, slot: -1 });

it("pops any pushed sequence in ascending order", () => {
  fc.assert(
    fc.property(fc.array(fc.integer()), (xs) => {
      const heap = new MinHeap<{ due: number; slot: number }>();
      for (const x of xs) heap.set(item(x), x);
      const out: number[] = [];
      while (heap.size > 0) out.push(heap.pop()!.due);
      expect(out).toEqual([...xs].sort((a, b) => a - b));
    }),
  );
});

it("moves an item already in the heap and takes one out where it is, holding each item once", () => {
  // Operations on 12 items: set one at a due time (in or not yet in the heap), remove one, pop the earliest.
  const op = fc.oneof(
    fc.record({ kind: fc.constant("set" as const), i: fc.nat(11), due: fc.integer({ min: -50, max: 50 }) }),
    fc.record({ kind: fc.constant("remove" as const), i: fc.nat(11) }),
    fc.record({ kind: fc.constant("pop" as const) }),
  );
  fc.assert(
    fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
      const items = Array.from({ length: 12 }, () => item(0));
      const heap = new MinHeap<{ due: number; slot: number }>();
      const model = new Map<number, number>();
      for (const o of ops) {
        if (o.kind === "set") {
          heap.set(items[o.i]!, o.due);
          model.set(o.i, o.due);
        } else if (o.kind === "remove") {
          heap.remove(items[o.i]!);
          model.delete(o.i);
        } else {
          const top = heap.pop();
          const least = Math.min(...model.values());
          if (model.size === 0) expect(top).toBeUndefined();
          else {
            expect(top!.due).toBe(least);
            expect(top!.slot).toBe(-1);
            model.delete(items.indexOf(top!));
          }
        }
        expect(heap.size).toBe(model.size);
        if (model.size > 0) expect(heap.peek()!.due).toBe(Math.min(...model.values()));
      }
      const rest: number[] = [];
      while (heap.size > 0) rest.push(heap.pop()!.due);
      expect(rest).toEqual([...model.values()].sort((a, b) => a - b));
    }),
  );
});

it("forgets every item's place when cleared, so each can be put in again", () => {
  const heap = new MinHeap<{ due: number; slot: number }>();
  const a = item(0);
  const b = item(0);
  heap.set(a, 5);
  heap.set(b, 3);
  heap.clear();
  expect([a.slot, b.slot, heap.size]).toEqual([-1, -1, 0]);
  heap.set(a, 7);
  expect(heap.size).toBe(1);
  expect(heap.pop()).toBe(a);
});
