import { describe, expect, it } from "bun:test";
import { BEFORE_ANYTHING } from "../../core/process/blind-time.ts";
import { heardExpiry, unheardStretches } from "./runner-job-expiry.ts";

const T = 1_800_000_000_000;
const LIFE = 10_000;

describe("a runner job's life, counted on time its runner could have been heard", () => {
  it("is the plain life when nothing was unheard", () => {
    expect(heardExpiry(T, LIFE, [])).toBe(T + LIFE);
  });

  it("starts when the runners could be heard again for a due time of an outage (the all-in-one before it listened)", () => {
    const unheard = unheardStretches({ gaps: [{ fromAgoS: BEFORE_ANYTHING, toAgoS: 3 }] }, T);
    // Due 25 s before now, long expired by its own life; the API listened 3 s ago.
    expect(heardExpiry(T - 25_000, LIFE, unheard)).toBe(T - 3_000 + LIFE);
    // Due after that: its own life.
    expect(heardExpiry(T - 1_000, LIFE, unheard)).toBe(T - 1_000 + LIFE);
  });

  it("leaves out only the unheard part of its life, and nothing of a stretch after its life ran out", () => {
    // Unheard from 20 s to 12 s before now.
    const unheard = unheardStretches({ gaps: [{ fromAgoS: 20, toAgoS: 12 }] }, T);
    // Due 24 s ago: 4 s heard, 8 s unheard, then the 6 s left.
    expect(heardExpiry(T - 24_000, LIFE, unheard)).toBe(T - 12_000 + 6_000);
    // Due 40 s ago: expired 30 s ago, before the stretch began.
    expect(heardExpiry(T - 40_000, LIFE, unheard)).toBe(T - 30_000);
  });

  it("takes stretches that overlap or come out of order (the API tier's absences and an API's own interruption)", () => {
    const unheard = [[T - 20_000, T - 12_000], [T - 30_000, T - 15_000], [T - 14_000, T - 13_000]] as const;
    // Due 40 s ago: 10 s heard before the stretches began.
    expect(heardExpiry(T - 40_000, LIFE, unheard)).toBe(T - 30_000);
    // Due 31 s ago: 1 s heard, then unheard until 12 s ago, then 9 s.
    expect(heardExpiry(T - 31_000, LIFE, unheard)).toBe(T - 12_000 + 9_000);
  });

  it("skips every stretch its life meets", () => {
    const unheard = unheardStretches({ gaps: [{ fromAgoS: 30, toAgoS: 28 }, { fromAgoS: 25, toAgoS: 20 }] }, T);
    // Due 32 s ago: 2 s heard, 2 s not, 3 s heard, 5 s not, then 5 s.
    expect(heardExpiry(T - 32_000, LIFE, unheard)).toBe(T - 20_000 + 5_000);
  });
});
