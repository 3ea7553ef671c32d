import { describe, expect, it } from "bun:test";
import { deadlineAfter, expectedAfter, missedDeadlines, nextExpected, timingIssues } from "./schedule.ts";

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

describe("heartbeat deadlines on a cron schedule", () => {
  describe("Europe/Berlin", () => {
    const daily9 = { schedule: "0 9 * * *", timezone: "Europe/Berlin", grace_seconds: 600 };

    it("expects the 09:00 run 23 hours after the previous one across the spring change (CET to CEST)", () => {
      // 2026-03-28 09:05 CET = 08:05Z; the next 09:00 is CEST (UTC+2).
      expect(iso(expectedAfter(daily9, at("2026-03-28T08:05:00Z")))).toBe("2026-03-29T07:00:00.000Z");
      expect(iso(deadlineAfter(daily9, at("2026-03-28T08:05:00Z")))).toBe("2026-03-29T07:10:00.000Z");
    });

    it("expects the 09:00 run 25 hours after the previous one across the autumn change (CEST to CET)", () => {
      expect(iso(expectedAfter(daily9, at("2026-10-24T07:05:00Z")))).toBe("2026-10-25T08:00:00.000Z");
    });

    it("moves a run inside the skipped spring hour to the end of the gap (02:30 becomes 03:00 CEST)", () => {
      const t = { schedule: "30 2 * * *", timezone: "Europe/Berlin" };
      expect(nextExpected(t, at("2026-03-28T12:00:00Z"), 2).map(iso)).toEqual(["2026-03-29T01:00:00.000Z", "2026-03-30T00:30:00.000Z"]);
    });

    it("expects a run in the repeated autumn hour once, not twice", () => {
      const t = { schedule: "30 2 * * *", timezone: "Europe/Berlin" };
      expect(nextExpected(t, at("2026-10-24T12:00:00Z"), 2).map(iso)).toEqual(["2026-10-25T00:30:00.000Z", "2026-10-26T01:30:00.000Z"]);
    });

    it("counts one miss per scheduled run across the spring change", () => {
      const due = deadlineAfter(daily9, at("2026-03-27T08:01:00Z"))!; // 2026-03-28 09:10 CET
      const { missed, nextDue } = missedDeadlines(daily9, due, at("2026-03-29T12:00:00Z"), 10);
      expect(missed.map(iso)).toEqual(["2026-03-28T08:10:00.000Z", "2026-03-29T07:10:00.000Z"]);
      expect(iso(nextDue)).toBe("2026-03-30T07:10:00.000Z");
    });
  });

  describe("America/New_York", () => {
    const daily9 = { schedule: "0 9 * * *", timezone: "America/New_York", grace_seconds: 0 };

    it("follows 09:00 local across the spring change (EST to EDT)", () => {
      expect(iso(expectedAfter(daily9, at("2026-03-07T14:05:00Z")))).toBe("2026-03-08T13:00:00.000Z");
    });

    it("follows 09:00 local across the autumn change (EDT to EST)", () => {
      expect(iso(expectedAfter(daily9, at("2026-10-31T13:05:00Z")))).toBe("2026-11-01T14:00:00.000Z");
    });

    it("keeps an hourly schedule hourly in real time through the repeated autumn hour", () => {
      const hourly = { schedule: "0 * * * *", timezone: "America/New_York", grace_seconds: 300 };
      const due = deadlineAfter(hourly, at("2026-11-01T04:30:00Z"))!; // 00:30 EDT; expected 01:00 EDT
      const { missed, nextDue } = missedDeadlines(hourly, due, at("2026-11-01T07:30:00Z"), 10);
      // 01:00 EDT, 01:00 EST, 02:00 EST, each plus 5 minutes of grace.
      expect(missed.map(iso)).toEqual(["2026-11-01T05:05:00.000Z", "2026-11-01T06:05:00.000Z", "2026-11-01T07:05:00.000Z"]);
      expect(iso(nextDue)).toBe("2026-11-01T08:05:00.000Z");
    });

    it("skips the missing 02:00 hour of the spring change without inventing a run", () => {
      const hourly = { schedule: "0 * * * *", timezone: "America/New_York" };
      expect(nextExpected(hourly, at("2026-03-08T05:30:00Z"), 3).map(iso)).toEqual(["2026-03-08T06:00:00.000Z", "2026-03-08T07:00:00.000Z", "2026-03-08T08:00:00.000Z"]);
    });
  });

  it("reads a schedule without a time zone in UTC, and takes a sixth (seconds) field", () => {
    expect(iso(expectedAfter({ schedule: "0 9 * * *" }, at("2026-06-01T10:00:00Z")))).toBe("2026-06-02T09:00:00.000Z");
    expect(iso(expectedAfter({ schedule: "30 0 9 * * *" }, at("2026-06-01T10:00:00Z")))).toBe("2026-06-02T09:00:30.000Z");
  });

  it("does not expect the run again that a ping at exactly its time answered", () => {
    expect(iso(expectedAfter({ schedule: "0 9 * * *" }, at("2026-06-01T09:00:00.400Z")))).toBe("2026-06-02T09:00:00.000Z");
  });

  it("keeps only the latest misses of a long silence and jumps past it", () => {
    const minutely = { schedule: "* * * * *", grace_seconds: 0 };
    const { missed, nextDue } = missedDeadlines(minutely, at("2026-01-01T00:00:00Z"), at("2026-03-01T00:00:30Z"), 3);
    expect(missed).toHaveLength(3);
    expect(nextDue).toBeGreaterThan(at("2026-03-01T00:00:30Z"));
    expect(nextDue).toBeLessThanOrEqual(at("2026-03-01T00:01:00Z"));
  });
});

describe("heartbeat deadlines with a period", () => {
  it("expects a ping one period after the last, down after the grace, one miss per period", () => {
    const t = { period_seconds: 60, grace_seconds: 30 };
    const since = at("2026-01-01T00:00:00Z");
    expect(iso(deadlineAfter(t, since))).toBe("2026-01-01T00:01:30.000Z");
    const { missed, nextDue } = missedDeadlines(t, deadlineAfter(t, since)!, since + 151_000, 10);
    expect(missed.map(iso)).toEqual(["2026-01-01T00:01:30.000Z", "2026-01-01T00:02:30.000Z"]);
    expect(iso(nextDue)).toBe("2026-01-01T00:03:30.000Z");
  });

  it("has nothing missed before the deadline", () => {
    const t = { period_seconds: 60 };
    expect(missedDeadlines(t, 1000, 999, 10)).toEqual({ missed: [], nextDue: 1000 });
  });
});

describe("heartbeat timing issues", () => {
  it("accepts a period alone or a schedule with a known zone", () => {
    expect(timingIssues({ period_seconds: 60 })).toEqual([]);
    expect(timingIssues({ schedule: "*/5 * * * *", timezone: "Europe/Berlin" })).toEqual([]);
  });

  it("refuses a schedule whose runs come closer than period_seconds' minimum of 30 s (a seconds field)", () => {
    expect(timingIssues({ schedule: "*/5 * * * * *" })).toEqual([{ field: "schedule", message: "runs 5 s apart; runs must be at least 30 s apart, as period_seconds" }]);
    expect(timingIssues({ schedule: "0,10 * * * * *" })[0]!.message).toStartWith("runs 10 s apart");
    expect(timingIssues({ schedule: "*/30 * * * * *" })).toEqual([]);
    expect(timingIssues({ schedule: "* * * * *" })).toEqual([]);
  });

  it("wants exactly one of period_seconds and schedule", () => {
    expect(timingIssues({})[0]!.field).toBe("");
    expect(timingIssues({ period_seconds: 60, schedule: "* * * * *" })[0]!.message).toContain("not both");
  });

  it("refuses an unknown time zone by name, and a zone without a schedule", () => {
    expect(timingIssues({ schedule: "0 9 * * *", timezone: "Mars/Olympus_Mons" })).toEqual([
      { field: "timezone", message: 'Unknown time zone "Mars/Olympus_Mons"; use an IANA name such as Europe/Berlin' },
    ]);
    expect(timingIssues({ period_seconds: 60, timezone: "UTC" })[0]!.field).toBe("timezone");
  });

  it("refuses cron expressions that are not 5 or 6 valid fields", () => {
    for (const bad of ["* * *", "* * * * * * *", "61 * * * *", "0 25 * * *", "every day"]) {
      const issues = timingIssues({ schedule: bad });
      expect(issues.map((i) => i.field)).toEqual(["schedule"]);
      expect(issues[0]!.message).toMatch(/^(needs 5 fields|has (a|an) \w+|has characters|is not a cron)/);
    }
  });
});
