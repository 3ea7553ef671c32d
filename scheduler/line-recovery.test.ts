import { describe, expect, it } from "bun:test";
import { browserQueue, regionQueue, runnerQueue } from "./job-queues.ts";
import { recoverLine } from "./line-recovery.ts";

const monitor = (id: string, phase: number, over: Partial<{ type: string; config: Record<string, unknown>; regions: string[]; runnerIds: string[] }> = {}) => ({
  id,
  type: "http",
  config: {},
  regions: ["eu"],
  runnerIds: [] as string[],
  phase,
  intervalMs: 10_000,
  ...over,
});

describe("recoverLine", () => {
  it("puts back each monitor of the queue due after the line's watermark, at its first such due time, for its latest, oldest first", () => {
    const entries = [
      monitor("late", 7000),
      monitor("early", 2000),
      monitor("published", 500),
      monitor("chromium", 3000, { type: "browser_lite", config: { engine: "chromium" } }),
      monitor("elsewhere", 4000, { regions: ["us"] }),
      monitor("on-runner", 4000, { regions: [], runnerIds: ["run_a"] }),
    ];
    // Published through 1,000; the schedule goes on after 25,000.
    expect(recoverLine(entries, regionQueue("eu"), 1000, 25_000)).toEqual([
      { monitorId: "early", firstDue: 2000, due: 22_000 },
      { monitorId: "late", firstDue: 7000, due: 17_000 },
      { monitorId: "published", firstDue: 10_500, due: 20_500 },
    ]);
    expect(recoverLine(entries, browserQueue("eu", "chromium"), 1000, 25_000)).toEqual([{ monitorId: "chromium", firstDue: 3000, due: 23_000 }]);
    expect(recoverLine(entries, runnerQueue("run_a"), 1000, 25_000)).toEqual([{ monitorId: "on-runner", firstDue: 4000, due: 24_000 }]);
    expect(recoverLine(entries, regionQueue("eu"), 25_000, 25_000)).toEqual([]);
  });
});
