import { describe, expect, it } from "bun:test";
import { LogThrottle } from "./log-throttle.ts";

describe("LogThrottle", () => {
  it("lets the first occurrence through, then one per period with the count since the last", () => {
    let now = 1_000;
    const t = new LogThrottle(10_000, () => now);
    expect(t.hit()).toBe(1);
    expect(t.hit()).toBeNull();
    now += 9_999;
    expect(t.hit()).toBeNull();
    now += 1;
    expect(t.hit()).toBe(3);
    now += 60_000;
    expect(t.hit()).toBe(1);
  });
});
