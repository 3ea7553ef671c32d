import { describe, expect, it } from "bun:test";
import { fmtAgo, fmtMoney, fmtPct, fmtTime } from "./format";

describe("fmtAgo", () => {
  const now = Date.parse("2026-01-10T12:00:00Z");
  it("says how long ago in the largest whole unit", () => {
    expect(fmtAgo("2026-01-10T11:57:00Z", now)).toBe("3 minutes ago");
    expect(fmtAgo("2026-01-08T12:00:00Z", now)).toBe("2 days ago");
    expect(fmtAgo("2026-01-10T11:59:55Z", now)).toBe("5 seconds ago");
  });
  it("says when in the future, and never for no time", () => {
    expect(fmtAgo("2026-01-12T12:00:00Z", now)).toBe("in 2 days");
    expect(fmtAgo(null, now)).toBe("never");
  });
});

describe("fmtPct", () => {
  it("says 100% only when nothing failed, else two decimals cut so a failure never reads as 100", () => {
    expect(fmtPct(100)).toBe("100%");
    expect(fmtPct(50)).toBe("50.00%");
    expect(fmtPct(97.5)).toBe("97.50%");
    expect(fmtPct(99.996)).toBe("99.99%");
    expect(fmtPct(99.99)).toBe("99.99%");
    expect(fmtPct(0)).toBe("0.00%");
    expect(fmtPct(null)).toBe("—");
  });
});

describe("fmtMoney", () => {
  it("prints cents as dollars", () => {
    expect(fmtMoney(699)).toBe("$6.99");
    expect(fmtMoney(264000)).toBe("$2,640.00");
  });
});

describe("fmtTime", () => {
  it("shows the moment in the given zone with the zone named", () => {
    const s = fmtTime("2026-01-10T12:00:05Z", "Asia/Tokyo");
    expect(s).toMatch(/(21|09):00:05/);
    expect(s).toMatch(/GMT\+9|JST/);
    expect(fmtTime("2026-07-01T12:00:00Z", "UTC")).toMatch(/12:00:00.*UTC/);
  });
  it("names the viewer's own zone when none is given", () => {
    expect(fmtTime(Date.parse("2026-01-10T12:00:00Z"))).toMatch(/[A-Z]{2,}|GMT/);
  });
  it("prints a dash for no time or a bad one", () => {
    expect(fmtTime(null)).toBe("—");
    expect(fmtTime("not a time")).toBe("—");
  });
});
