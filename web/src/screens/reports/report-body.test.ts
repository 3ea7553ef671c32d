import { describe, expect, it } from "bun:test";
import { FormIssuesError } from "../../lib/form-issues";
import { readReportBody, scheduleText } from "./report-body";

const form = (fields: [string, string][]) => {
  const f = new FormData();
  for (const [k, v] of fields) f.append(k, v);
  return f;
};

describe("report form", () => {
  it("reads ticked members and one address per line into recipients, and the weekday for a weekly report", () => {
    const body = readReportBody(
      form([
        ["name", " Team weekly "],
        ["scope", "org"],
        ["frequency", "weekly"],
        ["weekday", "5"],
        ["monthday", "12"],
        ["send_time", "08:30"],
        ["timezone", "Europe/Berlin"],
        ["member", "usr_1"],
        ["emails", "ops@example.test\n  noc@example.test, "],
        ["enabled", "on"],
      ]),
    );
    expect(body).toEqual({
      name: "Team weekly",
      scope: "org",
      status_page_id: null,
      frequency: "weekly",
      day: 5,
      send_time: "08:30",
      timezone: "Europe/Berlin",
      recipients: [{ type: "member", user_id: "usr_1" }, { type: "email", email: "ops@example.test" }, { type: "email", email: "noc@example.test" }],
      enabled: true,
    });
  });

  it("names the missing fields before asking the API", () => {
    try {
      readReportBody(form([["name", ""], ["scope", "status_page"], ["frequency", "monthly"], ["monthday", "3"]]));
      throw new Error("accepted");
    } catch (err) {
      expect(err).toBeInstanceOf(FormIssuesError);
      expect((err as FormIssuesError).issues).toEqual({ "body.name": "is required", "body.status_page_id": "pick a status page", "body.recipients": "pick a member or add an address" });
    }
  });

  it("says the schedule in words", () => {
    expect(scheduleText({ frequency: "weekly", day: 7, send_time: "09:00", timezone: "UTC" })).toBe("Weekly, every Sunday at 09:00 (UTC)");
    expect(scheduleText({ frequency: "monthly", day: 1, send_time: "06:00", timezone: "Asia/Tokyo" })).toBe("Monthly, on day 1 of every month at 06:00 (Asia/Tokyo)");
  });
});
