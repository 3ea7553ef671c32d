import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createTestDatabase, type TestDatabase } from "../../tests/support/db.ts";
import { storeResults } from "./ingest.ts";
import { rebuildRollups } from "./rollups.ts";
import { createOrgWithMonitors, makeResult } from "./test-fixtures.ts";
import { aggregates, dailyBars, uptime, uptimeForMonitors, uptimePct, uptimeWindows, type ReadSource } from "./uptime.ts";

let db: TestDatabase;
let orgId: string;
let mon: string;
let quiet: string;

const d = (s: string) => new Date(s);

// A small dataset to check figures by hand: monitor `mon`, locations eu and us, interval 60 s.
beforeAll(async () => {
  db = await createTestDatabase();
  const made = await createOrgWithMonitors(db.sql, { monitors: 2 });
  orgId = made.orgId;
  [mon, quiet] = made.monitorIds as [string, string];
  const eu = (at: string, status: Parameters<typeof makeResult>[3], ms: number) => makeResult(orgId, mon, at, status, { duration_ms: ms });
  const us = (at: string, status: Parameters<typeof makeResult>[3], ms: number) => makeResult(orgId, mon, at, status, { duration_ms: ms, location: "us" });
  await storeResults(db.sql, [
    eu("2026-11-10T10:00:00Z", "up", 100),
    eu("2026-11-10T10:30:00Z", "degraded", 300),
    eu("2026-11-10T10:45:00Z", "down", 1000),
    eu("2026-11-10T11:15:00Z", "timeout", 30000),
    eu("2026-11-10T11:20:00Z", "unavailable", 0),
    us("2026-11-10T10:10:00Z", "up", 200),
    us("2026-11-10T10:50:00Z", "up", 400),
  ]);
  await storeResults(db.sql, [eu("2026-11-11T00:30:00Z", "down", 50), us("2026-11-12T12:00:00Z", "up", 80)]);
}, 60_000);
afterAll(async () => {
  await db.drop();
}, 30_000);

const counts = (u: { up: number; degraded: number; down: number; timeout: number; unavailable: number; total: number; uptime_pct: number | null }) => {
  const { up, degraded, down, timeout, unavailable, total, uptime_pct } = u;
  return { up, degraded, down, timeout, unavailable, total, uptime_pct };
};

describe("uptime", () => {
  it("counts degraded as up, timeout as down and leaves unavailable out", () => {
    expect(uptimePct({ up: 3, degraded: 1, down: 1, timeout: 3 })).toBe(50);
    expect(uptimePct({ up: 0, degraded: 0, down: 0, timeout: 0 })).toBeNull();
  });

  for (const source of ["auto", "raw"] as ReadSource[]) {
    it(`gives the hand-checked figures over the whole dataset (${source})`, async () => {
      const u = await uptime(db.sql, orgId, mon, { from: d("2026-11-10T00:00:00Z"), to: d("2026-11-13T00:00:00Z"), byLocation: true, source });
      expect(counts(u)).toEqual({ up: 4, degraded: 1, down: 2, timeout: 1, unavailable: 1, total: 9, uptime_pct: 62.5 });
      // eu: 3 failed checks × 60 s; us none; averaged over the two locations.
      expect(u.downtime_seconds_estimate).toBe(90);
      expect(u.locations!.map((l) => [l.location, l.uptime_pct, l.downtime_seconds_estimate])).toEqual([
        ["eu", 40, 180],
        ["us", 100, 0],
      ]);
    });

    it(`is exact at the edges of a custom range: from inclusive, to exclusive (${source})`, async () => {
      const a = await uptime(db.sql, orgId, mon, { from: d("2026-11-10T10:45:00Z"), to: d("2026-11-11T00:30:00Z"), source });
      expect(counts(a)).toEqual({ up: 1, degraded: 0, down: 1, timeout: 1, unavailable: 1, total: 4, uptime_pct: (1 / 3) * 100 });
      const b = await uptime(db.sql, orgId, mon, { from: d("2026-11-10T10:45:00.001Z"), to: d("2026-11-11T00:30:00.001Z"), source });
      expect(counts(b)).toEqual({ up: 1, degraded: 0, down: 1, timeout: 1, unavailable: 1, total: 4, uptime_pct: (1 / 3) * 100 });
      const inside = await uptime(db.sql, orgId, mon, { from: d("2026-11-10T10:20:00Z"), to: d("2026-11-10T11:16:00Z"), source });
      expect(counts(inside)).toEqual({ up: 1, degraded: 1, down: 1, timeout: 1, unavailable: 0, total: 4, uptime_pct: 50 });
    });
  }

  it("answers null uptime for a range without checks", async () => {
    const u = await uptime(db.sql, orgId, mon, { from: d("2026-11-01T00:00:00Z"), to: d("2026-11-02T00:00:00Z"), byLocation: true });
    expect(u).toMatchObject({ uptime_pct: null, total: 0, downtime_seconds_estimate: null, locations: [] });
  });

  it("rejects a range that ends before it starts", async () => {
    await expect(uptime(db.sql, orgId, mon, { from: d("2026-11-02T00:00:00Z"), to: d("2026-11-01T00:00:00Z") })).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
  });

  it("does not show another organisation's results", async () => {
    const other = await createOrgWithMonitors(db.sql);
    const u = await uptime(db.sql, other.orgId, mon, { from: d("2026-11-10T00:00:00Z"), to: d("2026-11-13T00:00:00Z") });
    expect(u.total).toBe(0);
  });

  it("computes the 24 h, 7 d, 30 d and 90 d windows in one call", async () => {
    const w = await uptimeWindows(db.sql, orgId, mon, { now: d("2026-11-12T12:00:30Z") });
    expect(Object.keys(w)).toEqual(["24h", "7d", "30d", "90d"]);
    expect(counts(w["24h"])).toEqual({ up: 1, degraded: 0, down: 0, timeout: 0, unavailable: 0, total: 1, uptime_pct: 100 });
    expect(w["7d"].uptime_pct).toBe(62.5);
    expect(w["90d"].total).toBe(9);
  });

  it("gives a page of monitors their uptime in one query, null for a monitor without data", async () => {
    const page = await uptimeForMonitors(db.sql, orgId, [mon, quiet], "7d", { now: d("2026-11-13T00:00:00Z") });
    expect(page[mon]!.uptime_pct).toBe(62.5);
    expect(page[quiet]).toMatchObject({ uptime_pct: null, total: 0 });
  });
});

describe("aggregates", () => {
  it("gives hourly buckets with hand-checked figures and empty buckets filled", async () => {
    const b = await aggregates(db.sql, orgId, mon, { bucket: "hour", from: d("2026-11-10T10:00:00Z"), to: d("2026-11-10T13:00:00Z") });
    expect(b).toEqual([
      // 100, 200, 300, 400, 1000 ms: the median falls in [300, 400); the top rank is the maximum.
      { start: d("2026-11-10T10:00:00Z"), checks: 5, unavailable: 0, uptime_pct: 80, avg_ms: 400, p50_ms: 350, p95_ms: 1000, p99_ms: 1000, max_ms: 1000 },
      { start: d("2026-11-10T11:00:00Z"), checks: 1, unavailable: 1, uptime_pct: 0, avg_ms: 30000, p50_ms: 30000, p95_ms: 30000, p99_ms: 30000, max_ms: 30000 },
      { start: d("2026-11-10T12:00:00Z"), checks: 0, unavailable: 0, uptime_pct: null, avg_ms: null, p50_ms: null, p95_ms: null, p99_ms: null, max_ms: null },
    ]);
  });

  it("cuts the first and last bucket at the range and filters by location", async () => {
    const days = await aggregates(db.sql, orgId, mon, { bucket: "day", from: d("2026-11-10T10:20:00Z"), to: d("2026-11-12T12:00:00Z") });
    expect(days.map((x) => [x.start.toISOString().slice(0, 10), x.checks, x.uptime_pct])).toEqual([
      ["2026-11-10", 4, 50],
      ["2026-11-11", 1, 0],
      ["2026-11-12", 0, null],
    ]);
    const us = await aggregates(db.sql, orgId, mon, { bucket: "hour", from: d("2026-11-10T10:00:00Z"), to: d("2026-11-10T12:00:00Z"), location: "us" });
    expect(us.map((x) => [x.checks, x.avg_ms, x.max_ms])).toEqual([
      [2, 300, 400],
      [0, null, null],
    ]);
  });

  it("refuses more buckets than one answer may hold", async () => {
    await expect(aggregates(db.sql, orgId, mon, { bucket: "hour", from: d("2020-01-01T00:00:00Z"), to: d("2026-01-01T00:00:00Z") })).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
  });
});

describe("rebuildRollups", () => {
  it("recomputes lost rollups from raw rows", async () => {
    const range = { from: d("2026-11-10T00:00:00Z"), to: d("2026-11-13T00:00:00Z") };
    const before = await aggregates(db.sql, orgId, mon, { bucket: "day", ...range });
    await db.sql`delete from check_results_hourly where monitor_id = ${mon}`;
    await db.sql`update check_results_daily set total = 0, up = 0 where monitor_id = ${mon}`;
    await rebuildRollups(db.sql, orgId, [mon], d("2026-11-10T12:00:00Z"), d("2026-11-12T00:00:01Z"));
    expect(await aggregates(db.sql, orgId, mon, { bucket: "day", ...range })).toEqual(before);
    expect(await uptime(db.sql, orgId, mon, { ...range, byLocation: true })).toEqual(await uptime(db.sql, orgId, mon, { ...range, byLocation: true, source: "raw" }));
  });
});

describe("dailyBars", () => {
  it("gives one bar per UTC day, oldest first, today included", async () => {
    const bars = await dailyBars(db.sql, orgId, [mon, quiet], { days: 3, now: d("2026-11-12T15:00:00Z") });
    expect(bars[mon]!.map((b) => [b.date, b.total, b.uptime_pct])).toEqual([
      ["2026-11-10", 7, (4 / 6) * 100],
      ["2026-11-11", 1, 0],
      ["2026-11-12", 1, 100],
    ]);
    expect(bars[quiet]!.map((b) => b.uptime_pct)).toEqual([null, null, null]);
  });
});

describe("uptime windows read while results arrive", () => {
  it("count every window from one snapshot: a shorter window never holds more checks than a longer one", async () => {
    const made = await createOrgWithMonitors(db.sql, { monitors: 1 });
    const [busy] = made.monitorIds as [string];
    let writing = true;
    let n = 0;
    const writer = (async () => {
      while (writing) {
        const at = new Date(Date.now() - 60_000 + (n++ % 1000)).toISOString();
        await storeResults(db.sql, [makeResult(made.orgId, busy, at, "up", { duration_ms: 10, location: `w${n}` })]);
      }
    })();
    try {
      for (let i = 0; i < 150; i++) {
        const w = await uptimeWindows(db.sql, made.orgId, busy, { source: "raw" });
        const totals = [w["24h"].total, w["7d"].total, w["30d"].total, w["90d"].total];
        expect(totals).toEqual([...totals].sort((a, b) => a - b));
        expect(new Set(totals).size).toBe(1); // every result is within 24 h, so all four agree
      }
    } finally {
      writing = false;
      await writer;
    }
  }, 60_000);
});
