import { describe, expect, it } from "bun:test";
import { clip, formatDuration, formatTime, renderEvent } from "./format.ts";
import { sampleEvent } from "./testing.ts";

describe("event rendering", () => {
  it("writes durations the way an on-call reader scans them", () => {
    expect([0, 45_000, 750_000, 3 * 3600_000 + 120_000, 2 * 86400_000 + 4 * 3600_000, -5].map(formatDuration)).toEqual(["0s", "45s", "12m 30s", "3h 2m", "2d 4h", "0s"]);
  });

  it("writes times in UTC, to the second", () => {
    expect(formatTime("2026-11-22T10:02:30.123Z")).toBe("2026-11-22 10:02:30 UTC");
    expect(formatTime("2026-11-22T10:02:30Z")).toBe("2026-11-22 10:02:30 UTC");
  });

  it("gives each kind its own title, and a test says nothing is alerting", () => {
    const titles = (["alert", "escalation", "reminder", "recovery", "acknowledgement"] as const).map((k) => renderEvent(sampleEvent(k)).title);
    expect(titles).toEqual([
      "🔴 Alert: Checkout API",
      "🔺 Escalation: Checkout API",
      "🔁 Still alerting: Checkout API",
      "✅ Recovered: Checkout API",
      "👀 Acknowledged: Checkout API",
    ]);
    expect(renderEvent(sampleEvent("test"))).toMatchObject({
      title: "🧪 Test notification from Watchpost",
      headline: "Sent to check that this channel works; nothing is alerting.",
    });
  });

  it("names a runner by its name, and says a closed alert closed rather than recovered", () => {
    const atRunner = { region: "run_01J0RUNNER", regionName: "runner office-lan" };
    expect(renderEvent(sampleEvent("alert", atRunner))).toMatchObject({ headline: "status is down or timeout in runner office-lan" });
    expect(renderEvent(sampleEvent("alert", atRunner)).facts).toContainEqual({ name: "Region", value: "runner office-lan" });
    expect(renderEvent(sampleEvent("recovery", { ...atRunner, closed: "location_removed" }))).toMatchObject({
      title: "⚪ Closed: Checkout API",
      headline: "No longer checked from runner office-lan: the alert there is closed, not recovered",
    });
  });

  it("offers the acknowledge link only while the alert is a problem", () => {
    const texts = (kind: "alert" | "recovery" | "acknowledgement") => renderEvent(sampleEvent(kind)).links.map((l) => l.text);
    expect(texts("alert")).toEqual(["View monitor", "Acknowledge"]);
    expect(texts("recovery")).toEqual(["View monitor"]);
    expect(texts("acknowledgement")).toEqual(["View monitor"]);
  });

  it("leaves out facts the event does not have", () => {
    const names = renderEvent(sampleEvent("recovery", { monitor: { id: "m", name: "DB", type: "tcp" } })).facts.map((f) => f.name);
    expect(names).toEqual(["Status", "Rule", "Region", "Response time", "Started", "Was alerting for"]);
  });

  it("marks a cut with an ellipsis inside the limit", () => {
    expect(clip("abcdef", 4)).toBe("abc…");
    expect(clip("abc", 4)).toBe("abc");
  });
});
