import { describe, expect, it } from "bun:test";
import { groupStatus, monitorStatus, worst } from "./component-status.ts";

const m = (status: string, paused = false) => ({ id: "mon_1", name: "m", status, tags: [], paused, status_changed_at: null, last_duration_ms: null });

describe("component status", () => {
  it("maps monitor statuses, with maintenance and pause taking precedence", () => {
    expect(monitorStatus(m("up"), false)).toBe("operational");
    expect(monitorStatus(m("degraded"), false)).toBe("degraded");
    expect(monitorStatus(m("down"), false)).toBe("major_outage");
    expect(monitorStatus(m("timeout"), false)).toBe("major_outage");
    expect(monitorStatus(m("pending"), false)).toBe("unknown");
    expect(monitorStatus(m("down"), true)).toBe("maintenance");
    expect(monitorStatus(m("down", true), false)).toBe("unknown");
  });

  it("calls a tag group a major outage only when every known monitor is down", () => {
    expect(groupStatus(["major_outage", "major_outage"])).toBe("major_outage");
    expect(groupStatus(["major_outage", "operational"])).toBe("partial_outage");
    expect(groupStatus(["degraded", "operational"])).toBe("degraded");
    expect(groupStatus(["unknown", "operational"])).toBe("operational");
    expect(groupStatus([])).toBe("unknown");
  });

  it("orders severities", () => {
    expect(worst("operational", "degraded")).toBe("degraded");
    expect(worst("major_outage", "partial_outage")).toBe("major_outage");
    expect(worst("unknown", "operational")).toBe("operational");
    expect(worst("operational", "maintenance")).toBe("maintenance");
  });
});
