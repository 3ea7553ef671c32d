import { describe, expect, it } from "bun:test";
import { fmtAgo, fmtMoney } from "./format";

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

describe("fmtMoney", () => {
  it("prints cents as dollars", () => {
    expect(fmtMoney(699)).toBe("$6.99");
    expect(fmtMoney(264000)).toBe("$2,640.00");
  });
});
