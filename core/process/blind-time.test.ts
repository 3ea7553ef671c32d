import { describe, expect, it } from "bun:test";
import { BEFORE_ANYTHING, BlindTime, type BlindStretch, uncovered } from "./blind-time.ts";

function clocked(o: { blindBeforeStart?: boolean; elsewhere?: () => Promise<readonly BlindStretch[]> } = { blindBeforeStart: true }) {
  let t = 1_000_000;
  const blind = new BlindTime({ clock: () => t, ...o });
  return { blind, advance: (ms: number) => (t += ms) };
}

const before = (toAgoS: number) => ({ fromAgoS: BEFORE_ANYTHING, toAgoS });

describe("BlindTime", () => {
  it("counts everything before the start as unseen, and no gap while reads succeed", async () => {
    const { blind, advance } = clocked();
    advance(5_000);
    expect(blind.span()).toEqual({ gaps: [before(5)] });
    await blind.watch(async () => 1);
    advance(2_000);
    expect(blind.span()).toEqual({ gaps: [before(7)] });
  });

  it("is blind from the last good read while reads fail, and keeps the stretch once one succeeds", async () => {
    const { blind, advance } = clocked();
    await blind.watch(async () => 1);
    advance(10_000);
    await expect(blind.watch(async () => Promise.reject(new Error("database down")))).rejects.toThrow("database down");
    advance(80_000);
    blind.failed();
    // Open: blind from the last good read (90 s ago) up to now; the start joined it.
    expect(blind.span()).toEqual({ gaps: [before(0)] });
    advance(10_000);
    let seen = null as unknown;
    await blind.watch(async (span) => (seen = span));
    // The sweep that ends the stretch still judges with it open.
    expect(seen).toEqual({ gaps: [before(0)] });
    advance(30_000);
    expect(blind.span()).toEqual({ gaps: [before(30)] });
  });

  it("keeps every stretch, oldest first", async () => {
    const { blind, advance } = clocked({});
    blind.succeeded();
    advance(1_000);
    blind.failed();
    advance(4_000);
    blind.succeeded();
    advance(20_000);
    blind.succeeded();
    blind.failed();
    advance(3_000);
    blind.succeeded();
    advance(1_000);
    expect(blind.span()).toEqual({ gaps: [{ fromAgoS: 29, toAgoS: 24 }, { fromAgoS: 4, toAgoS: 1 }] });
  });

  it("is blind from the start when the first reads fail", () => {
    const { blind, advance } = clocked();
    advance(2_000);
    blind.failed();
    advance(3_000);
    blind.succeeded();
    expect(blind.span()).toEqual({ gaps: [before(0)] });
  });

  it("sees everything before the start where the start hid nothing (a role without the API in its process)", async () => {
    const { blind, advance } = clocked({});
    advance(5_000);
    expect(blind.span()).toEqual({ gaps: [] });
    blind.failed();
    advance(3_000);
    blind.succeeded();
    expect(blind.span()).toEqual({ gaps: [{ fromAgoS: 8, toAgoS: 0 }] });
  });

  it("adds what was blind elsewhere, read before a sweep at most every 5 s, and keeps one still open to now", async () => {
    let reads = 0;
    let tier: BlindStretch[] = [{ fromAgoS: 40, toAgoS: 30 }, { fromAgoS: 10, toAgoS: 0 }];
    const { blind, advance } = clocked({ elsewhere: async () => (reads++, tier) });
    advance(60_000);
    await blind.watch(async () => 1);
    expect(blind.span()).toEqual({ gaps: [{ fromAgoS: 40, toAgoS: 30 }, { fromAgoS: 10, toAgoS: 0 }] });
    advance(3_000);
    await blind.watch(async () => 1);
    expect(reads).toBe(1);
    // Not read again yet: the open stretch reaches now.
    expect(blind.span()).toEqual({ gaps: [{ fromAgoS: 43, toAgoS: 33 }, { fromAgoS: 13, toAgoS: 0 }] });
    advance(2_000);
    tier = [{ fromAgoS: 45, toAgoS: 35 }, { fromAgoS: 15, toAgoS: 4 }];
    await blind.watch(async () => 1);
    expect(reads).toBe(2);
    expect(blind.span()).toEqual({ gaps: [{ fromAgoS: 45, toAgoS: 35 }, { fromAgoS: 15, toAgoS: 4 }] });
  });

  it("fails the sweep when what is blind elsewhere cannot be read", async () => {
    const { blind, advance } = clocked({ elsewhere: async () => Promise.reject(new Error("database down")) });
    advance(1_000);
    let ran = false;
    await expect(blind.watch(async () => (ran = true))).rejects.toThrow("database down");
    expect(ran).toBe(false);
    advance(1_000);
    expect(blind.span()).toEqual({ gaps: [{ fromAgoS: 2, toAgoS: 0 }] });
  });
});

describe("uncovered", () => {
  it("is nothing without any presence", () => {
    expect(uncovered([])).toEqual([]);
  });

  it("is the time between presences and after the last, not before the first", () => {
    // Up from 100 s ago to 60 s ago, another from 70 to 50, one from 30 to 20: blind from 50 to 30 and from 20 on.
    expect(uncovered([{ fromAgoS: 30, toAgoS: 20 }, { fromAgoS: 100, toAgoS: 60 }, { fromAgoS: 70, toAgoS: 50 }])).toEqual([
      { fromAgoS: 50, toAgoS: 30 },
      { fromAgoS: 20, toAgoS: 0 },
    ]);
  });

  it("is nothing while one presence lasts to now", () => {
    expect(uncovered([{ fromAgoS: 100, toAgoS: 0 }, { fromAgoS: 300, toAgoS: 200 }])).toEqual([{ fromAgoS: 200, toAgoS: 100 }]);
  });
});
