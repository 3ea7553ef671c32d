import { describe, expect, it } from "bun:test";
import { componentStatus, overallStatus } from "./preview-status";

const m = (id: string, status: string, tags: string[] = [], paused = false) => ({ id, status, paused, tags });
const monitors = [m("a", "up", ["web"]), m("b", "down", ["web"]), m("c", "timeout", ["db"]), m("d", "pending"), m("e", "down", ["old"], true)];

describe("status page preview statuses", () => {
  it("reads a monitor's current status as the public page does", () => {
    expect(componentStatus({ monitor_id: "a" }, monitors)).toBe("operational");
    expect(componentStatus({ monitor_id: "b" }, monitors)).toBe("major_outage");
    expect(componentStatus({ monitor_id: "c" }, monitors)).toBe("major_outage");
    expect(componentStatus({ monitor_id: "d" }, monitors)).toBe("unknown");
    expect(componentStatus({ monitor_id: "e" }, monitors)).toBe("unknown");
    expect(componentStatus({ monitor_id: "gone" }, monitors)).toBe("unknown");
  });
  it("reads a group: all down is a major outage, some down a partial one", () => {
    expect(componentStatus({ tag: "web" }, monitors)).toBe("partial_outage");
    expect(componentStatus({ tag: "db" }, monitors)).toBe("major_outage");
    expect(componentStatus({ tag: "old" }, monitors)).toBe("unknown");
  });
  it("sums the page up by its worst component", () => {
    expect(overallStatus([])).toEqual({ status: "operational", text: "All systems operational" });
    expect(overallStatus(["unknown", "operational"])).toEqual({ status: "operational", text: "All systems operational" });
    expect(overallStatus(["operational", "major_outage", "degraded"])).toEqual({ status: "major_outage", text: "Major outage" });
  });
});
