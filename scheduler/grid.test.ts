import { describe, expect, it } from "bun:test";
import fc from "fast-check";
import { newId } from "../core/ids.ts";
import { dueAfter, dueAtOrAfter, expiryOf, phaseOf } from "./grid.ts";

describe("schedule grid", () => {
  it("gives a monitor the same phase on every instance", () => {
    expect(phaseOf("mon_0193abc", 30_000)).toBe(phaseOf("mon_0193abc", 30_000));
    expect(phaseOf("mon_0193abc", 30_000)).toBeLessThan(30_000);
  });

  it("spreads monitors created together over the whole interval", () => {
    const interval = 30_000;
    const perSecond = new Array(30).fill(0);
    for (let i = 0; i < 3000; i++) perSecond[Math.floor(phaseOf(newId("mon"), interval) / 1000)]++;
    // 100 expected per second; a fair hash stays well within 50-150 in every second.
    expect(Math.min(...perSecond)).toBeGreaterThan(50);
    expect(Math.max(...perSecond)).toBeLessThan(150);
  });

  it("puts every due time on the grid at or after the given instant, within one interval", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2e12 }), fc.integer({ min: 10, max: 86_400 }), fc.string(), (t, seconds, id) => {
        const interval = seconds * 1000;
        const phase = phaseOf(id, interval);
        const due = dueAtOrAfter(t, phase, interval);
        expect(due).toBeGreaterThanOrEqual(t);
        expect(due - t).toBeLessThan(interval);
        expect((((due - phase) % interval) + interval) % interval).toBe(0);
        expect(dueAfter(due, phase, interval)).toBe(due + interval);
      }),
    );
  });

  it("lets a job run until the next one is due, a minute at most", () => {
    expect(expiryOf(1000, 30_000)).toBe(31_000);
    expect(expiryOf(1000, 300_000)).toBe(61_000);
  });
});
