import { describe, expect, it } from "bun:test";
import { type AlertTimeline, fmtDuration, timelineEntries } from "./timeline-entries";

const t = (over: Partial<AlertTimeline> = {}): AlertTimeline => ({
  id: "rule_1~mon_1~eu-west~1",
  rule: { id: "rule_1", name: "Shop down" },
  monitor: { id: "mon_1", name: "Shop", type: "http" },
  region: "eu-west",
  incarnation: 1,
  status: "recovered",
  started_at: "2026-01-01T00:01:00.500Z",
  recovered_at: "2026-01-01T00:05:00.500Z",
  checks: [
    { id: "chk_a", checked_at: "2026-01-01T00:00:00Z", status: "down", duration_ms: 5000, error: "connect ECONNREFUSED" },
    { id: "chk_b", checked_at: "2026-01-01T00:01:00.500Z", status: "timeout", duration_ms: 30000, error: null },
    { id: "chk_c", checked_at: "2026-01-01T00:05:00.500Z", status: "up", duration_ms: 120, error: null },
  ],
  notifications: [
    { id: "dlv_1", channel_id: "ch_1", channel_name: "Ops", channel_type: "slack", kind: "alert", seq: 1, status: "sent", attempts: 1, error: null, created_at: "2026-01-01T00:01:01Z", sent_at: "2026-01-01T00:01:02Z" },
    { id: "dlv_2", channel_id: "ch_2", channel_name: null, channel_type: null, kind: "escalation", seq: 1, status: "failed", attempts: 3, error: "HTTP 500", created_at: "2026-01-01T00:03:00Z", sent_at: null },
  ],
  acknowledgements: [{ by: "alice@example.com", actor_type: "user", at: "2026-01-01T00:04:00Z" }],
  ...over,
});

describe("alert timeline entries", () => {
  it("tells the story oldest first: failing checks, start, notifications, acknowledgement, the passing check, recovery", () => {
    const e = timelineEntries(t());
    expect(e.map((x) => x.text)).toEqual([
      "Check down after 5000 ms",
      "Check timeout after 30000 ms",
      "Alert started: Shop down",
      "Alert sent to Ops (slack)",
      "Escalation could not be delivered to a deleted channel after 3 attempts",
      "Acknowledged by alice@example.com",
      "Check passed (120 ms)",
      "Recovered",
    ]);
    expect(e[0]).toMatchObject({ tone: "bad", checkId: "chk_a", detail: "connect ECONNREFUSED" });
    expect(e[4]).toMatchObject({ tone: "bad", detail: "HTTP 500" });
    expect(e.at(-1)!.tone).toBe("good");
  });

  it("leaves recovery out while the alert still fires", () => {
    const e = timelineEntries(t({ status: "firing", recovered_at: null, checks: [], notifications: [], acknowledgements: [] }));
    expect(e.map((x) => x.type)).toEqual(["started"]);
  });

  it("says a heartbeat's missed deadline was a missed run, not a check down after 0 ms", () => {
    const hb = t({
      monitor: { id: "mon_1", name: "Backup", type: "heartbeat" },
      checks: [
        { id: "chk_a", checked_at: "2026-01-01T00:00:00Z", status: "down", duration_ms: 0, error: "no ping since 2025-12-31T00:00:00.000Z" },
        { id: "chk_b", checked_at: "2026-01-01T00:00:30Z", status: "down", duration_ms: 0, error: "the job reported a failure: disk full" },
        { id: "chk_c", checked_at: "2026-01-01T00:01:00Z", status: "down", duration_ms: 4200, error: "the job reported a failure: disk full" },
        { id: "chk_d", checked_at: "2026-01-01T00:05:00.500Z", status: "up", duration_ms: 0, error: null },
      ],
    });
    expect(timelineEntries(hb).filter((e) => e.type === "check").map((e) => e.text)).toEqual(["Check down: missed run", "Check down", "Check down after 4200 ms", "Check passed"]);
  });

  it("says how long it lasted in words", () => {
    expect([fmtDuration(42_000), fmtDuration(200_000), fmtDuration(7_500_000), fmtDuration(100_000_000), fmtDuration(86_400_000)]).toEqual(["42 s", "3 min 20 s", "2 h 5 min", "1 day 3 h", "1 day"]);
  });
});
