import { describe, expect, it } from "bun:test";
import { BlindTime } from "./blind-time.ts";

function clocked() {
  let t = 1_000_000;
  const blind = new BlindTime({ clock: () => t, blindBeforeStart: true });
  return { blind, advance: (ms: number) => (t += ms) };
}

describe("BlindTime", () => {
  it("counts everything before the start as unseen, and no gap while reads succeed", async () => {
    const { blind, advance } = clocked();
    advance(5_000);
    expect(blind.span()).toEqual({ startedAgoS: 5, gapFromAgoS: 0, gapToAgoS: 0 });
    await blind.watch(async () => 1);
    advance(2_000);
    expect(blind.span()).toEqual({ startedAgoS: 7, gapFromAgoS: 0, gapToAgoS: 0 });
  });

  it("is blind from the last good read while reads fail, and keeps the stretch once one succeeds", async () => {
    const { blind, advance } = clocked();
    await blind.watch(async () => 1);
    advance(10_000);
    await expect(blind.watch(async () => Promise.reject(new Error("database down")))).rejects.toThrow("database down");
    advance(80_000);
    blind.failed();
    // Open: blind from the last good read (90 s ago) up to now.
    expect(blind.span()).toEqual({ startedAgoS: 90, gapFromAgoS: 90, gapToAgoS: 0 });
    advance(10_000);
    let seen = null as unknown;
    await blind.watch(async (span) => (seen = span));
    // The sweep that ends the stretch still judges with it open.
    expect(seen).toEqual({ startedAgoS: 100, gapFromAgoS: 100, gapToAgoS: 0 });
    advance(30_000);
    expect(blind.span()).toEqual({ startedAgoS: 130, gapFromAgoS: 130, gapToAgoS: 30 });
  });

  it("keeps only the latest stretch", async () => {
    const { blind, advance } = clocked();
    blind.succeeded();
    advance(1_000);
    blind.failed();
    advance(4_000);
    blind.succeeded();
    advance(20_000);
    blind.failed();
    advance(3_000);
    blind.succeeded();
    advance(1_000);
    expect(blind.span()).toEqual({ startedAgoS: 29, gapFromAgoS: 24, gapToAgoS: 1 });
  });

  it("is blind from the start when the first reads fail", () => {
    const { blind, advance } = clocked();
    advance(2_000);
    blind.failed();
    advance(3_000);
    blind.succeeded();
    expect(blind.span()).toEqual({ startedAgoS: 5, gapFromAgoS: 5, gapToAgoS: 0 });
  });

  it("sees everything before the start where the start hid nothing (a role without the API in its process)", async () => {
    let t = 0;
    const blind = new BlindTime({ clock: () => t });
    t += 5_000;
    expect(blind.span()).toEqual({ startedAgoS: 1e9, gapFromAgoS: 0, gapToAgoS: 0 });
    blind.failed();
    t += 3_000;
    blind.succeeded();
    expect(blind.span()).toEqual({ startedAgoS: 1e9, gapFromAgoS: 8, gapToAgoS: 0 });
  });
});
