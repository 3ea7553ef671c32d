import { describe, expect, it } from "bun:test";
import { configSchemas, dataSchemas } from "../../../../../schemas/check-types.ts";
import { daysLeftText, EXPIRY_FIELDS, expiryOf } from "./expiry";

const at = (minutesAgo: number) => new Date(Date.UTC(2026, 10, 29, 12) - minutesAgo * 60_000).toISOString();
const result = (minutesAgo: number, data: Record<string, unknown>, status = "up") => ({ status: status as "up", checked_at: at(minutesAgo), data });

describe("expiryOf", () => {
  it("names only fields the check types' schemas document", () => {
    for (const [type, f] of Object.entries(EXPIRY_FIELDS) as [keyof typeof dataSchemas, NonNullable<(typeof EXPIRY_FIELDS)["ssl"]>][]) {
      const data = Object.keys(dataSchemas[type].properties);
      for (const field of [f.days, f.at, ...Object.values(f.details)]) expect(data).toContain(field);
      expect(Object.keys(configSchemas[type].properties)).toContain(f.warnDays);
    }
  });

  it("reads the newest result whatever the order, passing over unavailable ones", () => {
    const e = expiryOf("ssl", { warn_days: 14 }, [
      result(60, { ssl_days_remaining: 40, valid_to: "2027-01-08T00:00:00Z", issuer: "CN=Old" }),
      result(1, {}, "unavailable"),
      result(5, { ssl_days_remaining: 10, valid_to: "2026-12-09T00:00:00Z", issuer: "CN=R11", subject: "" }, "degraded"),
    ]);
    expect(e).toEqual({ title: "Certificate", known: true, days: 10, at: "2026-12-09T00:00:00Z", details: [["Issuer", "CN=R11"]], warnDays: 14, warn: true });
  });

  it("warns at the warning days, as the check turns degraded, and not above them", () => {
    const days = (d: number) => expiryOf("domain", { domain: "example.com", warn_days: 30 }, [result(1, { domain_days_remaining: d, expiry_date: "2027-01-01T00:00:00Z" })]);
    expect(days(30)).toMatchObject({ title: "Registration", warn: true });
    expect(days(31)).toMatchObject({ warn: false });
  });

  it("warns about an expired certificate even without warning days", () => {
    expect(expiryOf("smtp", {}, [result(1, { cert_days_left: 3, cert_expires_at: "2026-12-02T00:00:00Z" })])).toMatchObject({ warnDays: null, warn: false });
    expect(expiryOf("smtp", {}, [result(1, { cert_days_left: -2, cert_expires_at: "2026-11-27T00:00:00Z" })])).toMatchObject({ warn: true });
  });

  it("does not know the expiry before a result, or when the newest result lacks it", () => {
    expect(expiryOf("domain", { warn_days: 30 }, [])).toEqual({ title: "Registration", known: false, checked: false });
    expect(expiryOf("ssl", { warn_days: 14 }, [result(60, { ssl_days_remaining: 50 }), result(5, { ssl_days_remaining: null }, "down")])).toEqual({ title: "Certificate", known: false, checked: true });
  });

  it("has nothing to say for a type without an expiry", () => {
    expect(expiryOf("http", {}, [result(1, { ssl_days_remaining: 5 })])).toBeNull();
  });
});

describe("daysLeftText", () => {
  it("says days left, today and how long ago it expired", () => {
    expect([12, 1, 0, -1, -3].map(daysLeftText)).toEqual(["12 days", "1 day", "expires today", "expired 1 day ago", "expired 3 days ago"]);
  });
});
