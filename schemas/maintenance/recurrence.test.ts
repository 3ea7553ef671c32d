import { describe, expect, it } from "bun:test";
import { compileTiming, parseRrule, RecurrenceError, stateAt } from "./recurrence.ts";
import { instantOfFloating, isValidTimeZone, wallAt } from "./zoned-time.ts";

const at = (iso: string) => Date.parse(iso);
const isoList = (xs: number[]) => xs.map((x) => new Date(x).toISOString());
const HOUR = 3_600_000;

describe("zoned time", () => {
  it("validates IANA zone names", () => {
    expect(isValidTimeZone("Europe/Berlin")).toBe(true);
    expect(isValidTimeZone("UTC")).toBe(true);
    expect(isValidTimeZone("Mars/Olympus_Mons")).toBe(false);
    expect(isValidTimeZone("")).toBe(false);
  });

  it("reads a skipped local time with the offset before the gap and an ambiguous one as its first instance", () => {
    // Berlin springs forward at 02:00 on 2026-03-29 and falls back at 03:00 on 2026-10-25.
    expect(new Date(instantOfFloating("Europe/Berlin", Date.UTC(2026, 2, 29, 2, 30))).toISOString()).toBe("2026-03-29T01:30:00.000Z");
    expect(new Date(instantOfFloating("Europe/Berlin", Date.UTC(2026, 9, 25, 2, 30))).toISOString()).toBe("2026-10-25T00:30:00.000Z");
    expect(wallAt("Europe/Berlin", at("2026-07-01T12:00:00Z"))).toMatchObject({ hour: 14, minute: 0 });
  });
});

describe("one-off windows", () => {
  const rec = compileTiming({ kind: "once", startsAt: at("2026-05-01T10:00:00Z"), endsAt: at("2026-05-01T12:00:00Z") });

  it("is active from its start (inclusive) to its end (exclusive)", () => {
    expect(stateAt(rec, at("2026-05-01T09:59:59Z"))).toEqual({ active: false, until: at("2026-05-01T10:00:00Z"), occurrenceStart: at("2026-05-01T10:00:00Z") });
    expect(stateAt(rec, at("2026-05-01T10:00:00Z"))).toMatchObject({ active: true, until: at("2026-05-01T12:00:00Z") });
    expect(stateAt(rec, at("2026-05-01T12:00:00Z"))).toEqual({ active: false, until: Infinity, occurrenceStart: null });
  });
});

describe("RRULE windows", () => {
  it("keeps a daily 02:30 Berlin window at 02:30 local across both DST changes", () => {
    const rec = compileTiming({
      kind: "rrule",
      rrule: "RRULE:FREQ=DAILY;BYHOUR=2;BYMINUTE=30",
      timezone: "Europe/Berlin",
      durationMs: HOUR,
      startsAt: at("2026-03-01T00:00:00Z"),
      endsAt: null,
    });
    expect(isoList(rec.startsBetween(at("2026-03-28T00:00:00Z"), at("2026-03-31T00:00:00Z")))).toEqual([
      "2026-03-28T01:30:00.000Z", // 02:30 CET
      "2026-03-29T01:30:00.000Z", // 02:30 does not exist that day: 03:30 CEST (RFC 5545)
      "2026-03-30T00:30:00.000Z", // 02:30 CEST
    ]);
    expect(isoList(rec.startsBetween(at("2026-10-24T00:00:00Z"), at("2026-10-27T00:00:00Z")))).toEqual([
      "2026-10-24T00:30:00.000Z", // 02:30 CEST
      "2026-10-25T00:30:00.000Z", // 02:30 happens twice: the first
      "2026-10-26T01:30:00.000Z", // 02:30 CET
    ]);
    expect(stateAt(rec, at("2026-03-30T01:00:00Z"))).toMatchObject({ active: true, until: at("2026-03-30T01:30:00Z") });
  });

  it("runs a weekly window in New York at the same local hour before and after the March change", () => {
    const rec = compileTiming({
      kind: "rrule",
      rrule: "FREQ=WEEKLY;BYDAY=SU;BYHOUR=9;BYMINUTE=0;BYSECOND=0",
      timezone: "America/New_York",
      durationMs: 2 * HOUR,
      startsAt: at("2026-01-01T00:00:00Z"),
      endsAt: null,
    });
    // DST starts 2026-03-08: 09:00 EST = 14:00Z, 09:00 EDT = 13:00Z.
    expect(isoList(rec.startsBetween(at("2026-03-01T00:00:00Z"), at("2026-03-16T00:00:00Z")))).toEqual([
      "2026-03-01T14:00:00.000Z",
      "2026-03-08T13:00:00.000Z",
      "2026-03-15T13:00:00.000Z",
    ]);
    expect(new Date(rec.nextStart(at("2026-03-02T00:00:00Z"))!).toISOString()).toBe("2026-03-08T13:00:00.000Z");
  });

  it("stops at ends_at and starts no earlier than starts_at", () => {
    const rec = compileTiming({
      kind: "rrule",
      rrule: "FREQ=DAILY",
      timezone: "UTC",
      durationMs: HOUR,
      startsAt: at("2026-06-01T08:00:00Z"),
      endsAt: at("2026-06-03T08:00:00Z"),
    });
    expect(isoList(rec.startsBetween(at("2026-05-01T00:00:00Z"), at("2026-07-01T00:00:00Z")))).toEqual(["2026-06-01T08:00:00.000Z", "2026-06-02T08:00:00.000Z"]);
    expect(rec.nextStart(at("2026-06-02T09:00:00Z"))).toBeNull();
  });

  it("refuses rules it cannot honour, saying why", () => {
    expect(() => parseRrule("FREQ=FORTNIGHTLY")).toThrow(RecurrenceError);
    expect(() => parseRrule("FREQ=SECONDLY")).toThrow(/SECONDLY/);
    expect(() => parseRrule("FREQ=DAILY;BYHOUR=25")).toThrow(/BYHOUR=25/);
    expect(() => parseRrule("DTSTART:20260101T000000Z\nRRULE:FREQ=DAILY")).toThrow(/starts_at/);
    expect(() => parseRrule("nonsense")).toThrow(RecurrenceError);
    expect(parseRrule("FREQ=MONTHLY;BYMONTHDAY=1").freq).toBeDefined();
  });

  it("refuses a DTSTART, RDATE or EXDATE inside the rule line rather than ignoring it", () => {
    expect(() => parseRrule("FREQ=DAILY;DTSTART=20260101T000000Z")).toThrow(/starts_at/);
    expect(() => parseRrule("RRULE:DTSTART=20260101T000000Z;FREQ=DAILY")).toThrow(/starts_at/);
    expect(() => parseRrule("FREQ=DAILY;EXDATE=20260102T000000Z")).toThrow(/starts_at/);
  });
});

describe("cron windows", () => {
  it("follows local time in New York across the November change", () => {
    const rec = compileTiming({ kind: "cron", cron: "0 1 * * *", timezone: "America/New_York", durationMs: 3 * HOUR, startsAt: null, endsAt: null });
    // DST ends 2026-11-01 at 02:00 EDT: 01:00 happens twice; the window starts at the first.
    expect(isoList(rec.startsBetween(at("2026-10-31T00:00:00Z"), at("2026-11-03T00:00:00Z")))).toEqual([
      "2026-10-31T05:00:00.000Z", // 01:00 EDT
      "2026-11-01T05:00:00.000Z", // 01:00 EDT, the first of the two
      "2026-11-02T06:00:00.000Z", // 01:00 EST
    ]);
    // 3 hours from 01:00 EDT on the change day end at 03:00 EST (05:00Z + 3h = 08:00Z).
    expect(stateAt(rec, at("2026-11-01T07:30:00Z"))).toMatchObject({ active: true, until: at("2026-11-01T08:00:00Z") });
    expect(stateAt(rec, at("2026-11-01T08:00:00Z"))).toMatchObject({ active: false, until: at("2026-11-02T06:00:00Z") });
  });

  it("moves a start that falls into the spring gap to the end of the gap", () => {
    const rec = compileTiming({ kind: "cron", cron: "30 2 * * *", timezone: "Europe/Berlin", durationMs: HOUR, startsAt: null, endsAt: null });
    expect(isoList(rec.startsBetween(at("2026-03-28T00:00:00Z"), at("2026-03-31T00:00:00Z")))).toEqual([
      "2026-03-28T01:30:00.000Z",
      "2026-03-29T01:00:00.000Z", // 03:00 CEST, the first valid time after the gap
      "2026-03-30T00:30:00.000Z",
    ]);
  });

  it("merges back-to-back occurrences into one stretch", () => {
    const rec = compileTiming({ kind: "cron", cron: "0 * * * *", timezone: "UTC", durationMs: HOUR, startsAt: at("2026-05-01T10:00:00Z"), endsAt: at("2026-05-01T14:00:00Z") });
    expect(stateAt(rec, at("2026-05-01T10:30:00Z"))).toMatchObject({ active: true, until: at("2026-05-01T14:00:00Z") });
  });
});
