import { describe, expect, it } from "bun:test";
import { fmtRunTime, hasRunTime, isMissedRun } from "./run-time";

// As domain/monitors/heartbeat.ts stores them.
const miss = { status: "down", duration_ms: 0, error: "no ping since 2026-01-01T00:00:00.000Z", data: { signal: "missed", run_duration_ms: null } };
const failNoStart = { status: "down", duration_ms: 0, error: "the job reported a failure: disk full", data: { signal: "fail", run_duration_ms: null } };
const timed = { status: "up", duration_ms: 4210, error: null, data: { signal: "success", run_duration_ms: 4210 } };

describe("run time", () => {
  it("reads a heartbeat's missed deadline as a missed run, not 0 ms", () => {
    expect(fmtRunTime("heartbeat", miss)).toBe("missed run");
    // The alert timeline has no data: the sweep's error says it.
    const { data: _d, ...bare } = miss;
    expect(isMissedRun(bare)).toBe(true);
    expect(isMissedRun({ ...bare, error: "no ping received yet" })).toBe(true);
    expect(isMissedRun({ ...bare, status: "unavailable", error: "Watchpost could not receive pings for part of this run's window (…); no ping since x" })).toBe(true);
    expect(isMissedRun({ status: "down", duration_ms: 0, error: "the job reported a failure" })).toBe(false);
  });

  it("shows no run time for a heartbeat ping without a start, and the run's time with one", () => {
    expect(fmtRunTime("heartbeat", failNoStart)).toBe("—");
    expect(fmtRunTime("heartbeat", { status: "up", duration_ms: 0 })).toBe("—");
    expect(fmtRunTime("heartbeat", timed)).toBe("4210 ms");
    expect(hasRunTime("heartbeat", { status: "up", duration_ms: 4210 })).toBe(true);
  });

  it("leaves other check types' durations alone, 0 ms included", () => {
    expect(fmtRunTime("http", { status: "down", duration_ms: 0, error: "no ping since x" })).toBe("0 ms");
    expect(fmtRunTime("http", { status: "up", duration_ms: 182.4 })).toBe("182 ms");
    expect(fmtRunTime("http", { status: "up", duration_ms: null })).toBe("—");
  });
});
