import { expect, it } from "bun:test";
import fc from "fast-check";
import { RecentIds } from "./recent-ids.ts";

it("answers with each id's own sequence and forgets it at its own time when sequences and times do not fit 32-bit offsets", () => {
  // Per step: a time change (forward, back, by a fraction, by more than 2³² ms) and a sequence gap (up to past 2³²),
  // then a few ids, some seen before. The model keeps every id's text, sequence and time.
  const step = fc.record({
    dt: fc.oneof(fc.integer({ min: 0, max: 400 }), fc.constant(-250), fc.constant(0.5), fc.constant(2 ** 32 + 7)),
    gap: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 1000 }), fc.constant(2 ** 32 + 3)),
    ids: fc.array(fc.integer({ min: 0, max: 3000 }), { minLength: 1, maxLength: 40 }),
  });
  fc.assert(
    fc.property(fc.array(step, { maxLength: 120 }), (steps) => {
      const windowMs = 1000;
      const recent = new RecentIds();
      const model = new Map<string, number>();
      const fifo: { id: string; at: number }[] = [];
      let head = 0;
      let now = 1_795_000_000_000;
      let lastSeq = 0;
      for (const s of steps) {
        now += s.dt;
        lastSeq += s.gap;
        recent.expire(now, windowMs);
        while (head < fifo.length && now - fifo[head]!.at >= windowMs) model.delete(fifo[head++]!.id);
        for (const n of s.ids) {
          const id = `mon_${n}.local.1795000000000`;
          const expected = model.get(id);
          expect(recent.addIfNew(id, lastSeq + 1, now)).toBe(expected);
          if (expected === undefined) {
            model.set(id, ++lastSeq);
            fifo.push({ id, at: now });
          }
        }
        expect(recent.size).toBe(fifo.length - head);
      }
    }),
    { numRuns: 60 },
  );
});
