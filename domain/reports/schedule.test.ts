import { describe, expect, it } from "bun:test";
import { daysOf, lastCompletePeriod, nextSendAt, periodOf } from "./schedule.ts";

describe("report schedule", () => {
  it("sends at the local time on the chosen weekday across a daylight-saving change", () => {
    const s = { frequency: "weekly" as const, day: 1, send_time: "09:00", timezone: "Europe/Berlin" };
    // Berlin leaves summer time on Sunday 25 October 2026: 07:00 UTC before, 08:00 UTC after.
    expect(nextSendAt(s, new Date("2026-10-20T00:00:00Z")).toISOString()).toBe("2026-10-26T08:00:00.000Z");
    expect(nextSendAt(s, new Date("2026-10-10T00:00:00Z")).toISOString()).toBe("2026-10-12T07:00:00.000Z");
    expect(nextSendAt({ ...s, day: 7 }, new Date("2026-10-20T00:00:00Z")).toISOString()).toBe("2026-10-25T08:00:00.000Z");
  });

  it("sends a monthly report on the day of the month, strictly after the given time", () => {
    const s = { frequency: "monthly" as const, day: 1, send_time: "06:30", timezone: "America/New_York" };
    expect(nextSendAt(s, new Date("2026-03-01T11:30:00Z")).toISOString()).toBe("2026-04-01T10:30:00.000Z");
    expect(nextSendAt(s, new Date("2026-02-15T00:00:00Z")).toISOString()).toBe("2026-03-01T11:30:00.000Z");
  });

  it("covers the seven local days before the send day, a 25-hour day included", () => {
    const p = periodOf({ frequency: "weekly", timezone: "Europe/Berlin" }, new Date("2026-10-26T08:00:00Z"));
    expect(p.from.toISOString()).toBe("2026-10-18T22:00:00.000Z");
    expect(p.to.toISOString()).toBe("2026-10-25T23:00:00.000Z");
    const days = daysOf("Europe/Berlin", p);
    expect(days.map((d) => d.date)).toEqual(["2026-10-19", "2026-10-20", "2026-10-21", "2026-10-22", "2026-10-23", "2026-10-24", "2026-10-25"]);
    expect(days.at(-1)!.to.getTime() - days.at(-1)!.from.getTime()).toBe(25 * 3_600_000);
  });

  it("covers the previous calendar month, across a year end", () => {
    const p = periodOf({ frequency: "monthly", timezone: "UTC" }, new Date("2027-01-03T09:00:00Z"));
    expect([p.from.toISOString(), p.to.toISOString()]).toEqual(["2026-12-01T00:00:00.000Z", "2027-01-01T00:00:00.000Z"]);
    expect(daysOf("UTC", p)).toHaveLength(31);
  });

  it("sends now the period of the last scheduled send, a weekly report's own Monday-to-Sunday week, not the last seven days", () => {
    const s = { frequency: "weekly" as const, day: 1, send_time: "09:00", timezone: "Europe/Berlin" };
    const iso = (p: { from: Date; to: Date }) => [p.from.toISOString(), p.to.toISOString()];
    // Thursday 29 October 2026: the last send was Monday the 26th, which covered 19–25 October.
    expect(iso(lastCompletePeriod(s, new Date("2026-10-29T12:00:00Z")))).toEqual(["2026-10-18T22:00:00.000Z", "2026-10-25T23:00:00.000Z"]);
    // Monday 2 November before 09:00: the week to Sunday the 1st is over, though not sent yet.
    expect(iso(lastCompletePeriod(s, new Date("2026-11-02T06:00:00Z")))).toEqual(["2026-10-25T23:00:00.000Z", "2026-11-01T23:00:00.000Z"]);
    // A Sunday report covers Sunday to Saturday.
    expect(iso(lastCompletePeriod({ ...s, day: 7, timezone: "UTC" }, new Date("2026-11-04T12:00:00Z")))).toEqual(["2026-10-25T00:00:00.000Z", "2026-11-01T00:00:00.000Z"]);
  });

  it("sends now a monthly report's previous calendar month, whatever its send day", () => {
    const s = { frequency: "monthly" as const, day: 20, send_time: "09:00", timezone: "UTC" };
    const iso = (p: { from: Date; to: Date }) => [p.from.toISOString(), p.to.toISOString()];
    expect(iso(lastCompletePeriod(s, new Date("2026-11-04T12:00:00Z")))).toEqual(["2026-10-01T00:00:00.000Z", "2026-11-01T00:00:00.000Z"]);
    expect(iso(lastCompletePeriod(s, new Date("2026-11-25T12:00:00Z")))).toEqual(["2026-10-01T00:00:00.000Z", "2026-11-01T00:00:00.000Z"]);
  });
});
