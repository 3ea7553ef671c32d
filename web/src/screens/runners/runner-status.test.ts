import { describe, expect, it } from "bun:test";
import { runnerStatusNote, showsInFlight } from "./runner-status";

const NOW = Date.parse("2026-11-30T12:00:00Z");
const ago = (ms: number) => new Date(NOW - ms).toISOString();
const base = { status: "online" as const, last_seen_at: ago(5_000), stopped_at: null, revoked_at: null };

describe("runnerStatusNote", () => {
  it("says since when a runner is offline: when it stopped, or its last heartbeat", () => {
    expect(runnerStatusNote({ ...base, status: "offline", stopped_at: ago(120_000) }, NOW)).toBe("stopped 2 minutes ago");
    expect(runnerStatusNote({ ...base, status: "offline", last_seen_at: ago(3 * 3_600_000) }, NOW)).toBe("last heartbeat 3 hours ago");
    expect(runnerStatusNote({ ...base, status: "offline", last_seen_at: null }, NOW)).toBe("never connected");
  });

  it("says when a runner was revoked, and nothing more for an online one (its last-seen time is beside it)", () => {
    expect(runnerStatusNote({ ...base, status: "revoked", revoked_at: ago(86_400_000) }, NOW)).toBe("revoked yesterday");
    expect(runnerStatusNote(base, NOW)).toBeNull();
  });
});

describe("showsInFlight", () => {
  it("counts checks in flight only while the runner is online (an offline runner's last report is stale)", () => {
    expect(showsInFlight({ status: "online", in_flight: 3 })).toBe("3");
    expect(showsInFlight({ status: "offline", in_flight: 3 })).toBe("—");
    expect(showsInFlight({ status: "revoked", in_flight: 0 })).toBe("—");
  });
});
