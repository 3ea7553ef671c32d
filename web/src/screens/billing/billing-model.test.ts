import { describe, expect, it } from "bun:test";
import { annualSaving, cartTotal, fmtQuota, lapsedSince, overAfterChange } from "./billing-model";

describe("billing helpers", () => {
  it("words quotas for the plan comparison", () => {
    expect(fmtQuota("min_interval_seconds", 300)).toBe("every 5 min");
    expect(fmtQuota("min_interval_seconds", 30)).toBe("every 30 s");
    expect(fmtQuota("retention_days", 730)).toBe("2 years");
    expect(fmtQuota("retention_days", 90)).toBe("90 days");
    expect(fmtQuota("monitors", 1_000_000)).toBe("Unlimited");
  });

  it("gives the annual saving of the spec's prices as about 15 %", () => {
    expect(annualSaving(699, 7188)).toBe(14);
    expect(annualSaving(2999, 29988)).toBe(17);
    expect(annualSaving(0, 0)).toBe(0);
  });

  it("names the quotas a downgrade leaves over their cap, counting add-ons that stay", () => {
    const usage = { monitors: { used: 60 }, runners: { used: "2" }, status_pages: { used: 1 }, alert_rules: { used: 40 } };
    expect(overAfterChange(usage, { monitors: 50, runners: 1, status_pages: 3, alert_rules: 15 })).toEqual([
      { quota: "monitors", used: 60, cap: 50 },
      { quota: "runners", used: 2, cap: 1 },
    ]);
    expect(overAfterChange(usage, { monitors: 50, runners: 1 }, { monitors: 25, runners: 1 })).toEqual([]);
  });

  it("adds up the cart", () => {
    expect(cartTotal([{ id: "starter", name: "Starter", quantity: 1, unitCents: 699 }, { id: "runner", name: "Runner", quantity: 2, unitCents: 499 }])).toBe(1697);
  });

  it("hides a past-due line once a newer subscription started, not while it is the latest", () => {
    const lapsed = { id: "a", status: "past_due", period_start: "2027-01-01T00:00:00Z" };
    const older = { id: "o", status: "cancelled", period_start: "2026-12-01T00:00:00Z" };
    expect(lapsedSince([older, lapsed], lapsed)).toBe(false);
    expect(lapsedSince([older, lapsed, { id: "n", status: "active", period_start: "2027-01-20T00:00:00Z" }], lapsed)).toBe(true);
  });
});
