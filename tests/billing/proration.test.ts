import { describe, expect, it } from "bun:test";
import { periodEnd, prorate } from "../../billing/proration.ts";

const DAY = 86_400_000;
const start = new Date("2026-11-01T00:00:00Z");
const month = { start, end: new Date(start.getTime() + 30 * DAY) };
const year = { start, end: new Date(start.getTime() + 365 * DAY) };
const at = (days: number) => new Date(start.getTime() + days * DAY);

describe("proration: round((new − old) × remaining / period) in cents", () => {
  it("upgrade Starter → Pro monthly with 10 of 30 days left: (2999 − 699) × 10/30 = 766.67 → 767 charged", () => {
    expect(prorate(699, 2999, month, at(20))).toBe(767);
  });

  it("downgrade Pro → Starter monthly half way: (699 − 2999) × 15/30 = −1150 → 1150 credited", () => {
    expect(prorate(2999, 699, month, at(15))).toBe(-1150);
  });

  it("annual Starter → Business with 100 of 365 days left: (264000 − 7188) × 100/365 = 70359.45 → 70359", () => {
    expect(prorate(7188, 264000, year, at(265))).toBe(70359);
  });

  it("overlap credit of a 4.99 add-on with 12 of 30 days left: 499 × 12/30 = 199.6 → 200", () => {
    expect(-prorate(499, 0, month, at(18))).toBe(200);
  });

  it("charges the whole difference at the period start and nothing at its end", () => {
    expect(prorate(699, 2999, month, start)).toBe(2300);
    expect(prorate(699, 2999, month, month.end)).toBe(0);
    expect(prorate(699, 2999, month, at(40))).toBe(0);
  });

  it("rounds half a cent away from zero both ways", () => {
    expect(prorate(0, 1, month, at(15))).toBe(1);
    expect(prorate(1, 0, month, at(15))).toBe(-1);
  });

  it("periods are calendar months and years, clamped to the month's last day", () => {
    expect(periodEnd(new Date("2026-01-31T10:00:00Z"), "monthly").toISOString()).toBe("2026-02-28T10:00:00.000Z");
    expect(periodEnd(new Date("2026-11-22T05:00:00Z"), "monthly").toISOString()).toBe("2026-12-22T05:00:00.000Z");
    expect(periodEnd(new Date("2028-02-29T00:00:00Z"), "annual").toISOString()).toBe("2029-02-28T00:00:00.000Z");
  });
});
