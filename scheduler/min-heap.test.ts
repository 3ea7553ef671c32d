import { expect, it } from "bun:test";
import fc from "fast-check";
import { MinHeap } from "./min-heap.ts";

it("pops any pushed sequence in ascending order", () => {
  fc.assert(
    fc.property(fc.array(fc.integer()), (xs) => {
      const heap = new MinHeap<number>((x) => x);
      for (const x of xs) heap.push(x);
      const out: number[] = [];
      while (heap.size > 0) out.push(heap.pop()!);
      expect(out).toEqual([...xs].sort((a, b) => a - b));
    }),
  );
});
