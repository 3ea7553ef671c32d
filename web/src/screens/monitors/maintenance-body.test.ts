import { describe, expect, it } from "bun:test";
import { FormIssuesError } from "../../lib/form-issues";
import { localInput, readWindowForm, upcomingStarts } from "./maintenance-body";

const form = (entries: Record<string, string | string[]>) => {
  const f = new FormData();
  for (const [k, v] of Object.entries(entries)) for (const x of [v].flat()) f.append(k, x);
  return f;
};
const issuesOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    if (err instanceof FormIssuesError) return err.issues;
    throw err;
  }
  return {};
};

describe("readWindowForm", () => {
  it("builds a weekly window from a preset, in the chosen zone, for tagged and picked monitors", () => {
    const body = readWindowForm(
      form({ name: "DB patching", kind: "rrule", rrule_preset: "weekly", starts_at: "2026-12-06T02:00", duration_minutes: "90", timezone: "Europe/Berlin", tags: "db, db , prod", monitor_ids: ["mon_1"], suppress_alerts: "on" }),
    );
    expect(body).toMatchObject({ rrule: "FREQ=WEEKLY", cron: null, duration_minutes: 90, timezone: "Europe/Berlin", tags: ["db", "prod"], monitor_ids: ["mon_1"], suppress_alerts: true, pause_monitors: false });
    // 02:00 on the wall clock in Berlin (UTC+1 in December), not in the browser's zone.
    expect(body.starts_at).toBe("2026-12-06T01:00:00.000Z");
  });

  it("names what the API would refuse: a one-off without an end, a bad cron, an unknown zone", () => {
    expect(issuesOf(() => readWindowForm(form({ name: "x", kind: "once", starts_at: "2026-12-06T02:00", suppress_alerts: "on", timezone: "UTC" })))).toEqual({ "body.ends_at": "a one-off window needs an end" });
    const bad = issuesOf(() => readWindowForm(form({ name: "x", kind: "cron", cron: "every sunday", duration_minutes: "30", timezone: "UTC" })));
    expect(Object.keys(bad)).toEqual(["body.cron"]);
    expect(issuesOf(() => readWindowForm(form({ name: "x", kind: "cron", cron: "0 2 * * 0", duration_minutes: "", timezone: "Mars/Olympus" })))).toMatchObject({
      "body.timezone": 'Unknown time zone "Mars/Olympus"',
      "body.duration_minutes": expect.stringContaining("length"),
    });
  });
});

describe("localInput", () => {
  it("shows an instant as wall time in the window's zone", () => {
    expect(localInput("Europe/Berlin", "2026-12-06T01:00:00.000Z")).toBe("2026-12-06T02:00");
    expect(localInput("UTC", null)).toBe("");
  });
});

describe("upcomingStarts", () => {
  it("lists the next starts of a cron window in its time zone", () => {
    const now = Date.parse("2026-12-01T00:00:00Z");
    const starts = upcomingStarts({ starts_at: null, ends_at: null, rrule: null, cron: "0 2 * * 0", duration_minutes: 60, timezone: "UTC" }, now, 2);
    expect(starts.map((t) => new Date(t).toISOString())).toEqual(["2026-12-06T02:00:00.000Z", "2026-12-13T02:00:00.000Z"]);
    expect(upcomingStarts({ starts_at: null, ends_at: null, rrule: null, cron: "nonsense", duration_minutes: 60, timezone: "UTC" }, now)).toEqual([]);
  });
});
