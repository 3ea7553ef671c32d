import { describe, expect, it } from "bun:test";
import { ManualClock } from "../core/clock.ts";
import { OwedGaps } from "./owed-gaps.ts";

/** A bus stand-in that refuses while `down`, and may refuse some gaps by number. */
function world(limit = 10) {
  const clock = new ManualClock(0);
  const state = { down: true, refuse: new Set<number>(), attempts: 0 };
  const taken: number[] = [];
  const recorded: number[] = [];
  let drained = 0;
  const gaps = new OwedGaps<number>({
    clock,
    limit,
    publish: async (n) => {
      state.attempts++;
      if (state.down || state.refuse.has(n)) throw new Error("bus down");
      taken.push(n);
    },
    recorded: (n) => recorded.push(n),
    drained: () => drained++,
  });
  const run = async (ms: number) => {
    for (let t = 0; t < ms; t += 100) await clock.advance(100);
  };
  return { clock, state, gaps, taken, recorded, drained: () => drained, run };
}

describe("owed gaps", () => {
  it("keeps them while the bus refuses, retrying with one backoff for all, and publishes them in order once it takes them", async () => {
    const w = world();
    for (let n = 1; n <= 5; n++) expect(w.gaps.owe(n)).toBe(true);
    await w.run(10_000);
    expect(w.taken).toEqual([]);
    expect(w.gaps.size).toBe(5);
    // Backoff from 100 ms doubling to 2 s: about ten rounds in 10 s, each trying every gap once.
    expect(w.state.attempts).toBeLessThanOrEqual(5 * 12);
    w.state.down = false;
    await w.run(3000);
    expect(w.taken).toEqual([1, 2, 3, 4, 5]);
    expect(w.recorded).toEqual([1, 2, 3, 4, 5]);
    expect(w.gaps.size).toBe(0);
    // Once, when nothing is owed any more (the scheduler logs the outage's end then).
    expect(w.drained()).toBe(1);
  });

  it("keeps a gap the bus refused in its place while the others go", async () => {
    const w = world();
    w.state.down = false;
    w.state.refuse.add(2);
    for (let n = 1; n <= 4; n++) w.gaps.owe(n);
    await w.run(1000);
    expect(w.recorded).toEqual([1, 3, 4]);
    expect(w.gaps.size).toBe(1);
    w.state.refuse.clear();
    w.gaps.owe(5);
    await w.run(3000);
    expect(w.recorded).toEqual([1, 3, 4, 2, 5]);
  });

  it("refuses a gap past its limit", async () => {
    const w = world(2);
    expect([w.gaps.owe(1), w.gaps.owe(2), w.gaps.owe(3)]).toEqual([true, true, false]);
    w.state.down = false;
    await w.run(3000);
    expect(w.recorded).toEqual([1, 2]);
    expect(w.gaps.owe(3)).toBe(true);
  });

  it("publishes nothing more once stopped, and takes no new gap", async () => {
    const w = world();
    w.gaps.owe(1);
    w.gaps.stop();
    w.state.down = false;
    await w.run(3000);
    expect(w.recorded).toEqual([]);
    expect(w.gaps.owe(2)).toBe(false);
    expect(w.gaps.size).toBe(0);
  });
});
