import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createTestDatabase, type TestDatabase } from "../../tests/support/db.ts";
import { storageMode } from "../../db/results/storage-mode.ts";
import type { Sql } from "../../db/client.ts";
import { storeResults } from "./ingest.ts";
import { closeRollups } from "./rollup-closer.ts";
import { DAY_MS, HOUR_MS, floorTo } from "./segments.ts";
import { createOrgWithMonitors, generateDataset, prng } from "./test-fixtures.ts";
import { createTimescaleTestDatabase, type TimescaleTestDatabase } from "./timescale-test-db.ts";
import type { CheckResultInput } from "./types.ts";
import { aggregates, dailyBars, uptime, uptimeForMonitors, uptimeWindows, type ReadSource } from "./uptime.ts";

// The same generated results stored on plain PostgreSQL (partitions + rollup tables) and on
// TimescaleDB (PGlite: hypertable + continuous aggregates) must give identical uptime and
// aggregates, and both must equal what raw rows alone say. Plain PostgreSQL's rollup watermark
// stands at SPLIT too: ingest rolls up the results before it, the later ones stay raw until the
// closer runs (the last test).

let plain: TestDatabase;
let ts: TimescaleTestDatabase;
let orgId: string;
let monitorIds: string[];
let dataset: CheckResultInput[];

const START = Date.parse("2026-03-01T05:17:00Z");
const DAYS = 3;
const END = START + DAYS * DAY_MS;
// TimescaleDB gets the results before SPLIT, a refresh up to SPLIT, then the rest: answers then
// mix materialised buckets with real-time aggregation of newer rows.
const SPLIT = Date.parse("2026-03-03T08:00:00Z");

async function load(sql: Sql, rows: CheckResultInput[]) {
  for (let i = 0; i < rows.length; i += 1000) await storeResults(sql, rows.slice(i, i + 1000));
}

beforeAll(async () => {
  [plain, ts] = await Promise.all([createTestDatabase(), createTimescaleTestDatabase()]);
  ({ orgId, monitorIds } = await createOrgWithMonitors(plain.sql, { monitors: 2, intervalSeconds: 120 }));
  await createOrgWithMonitors(ts.sql, { intervalSeconds: 120, ids: { orgId, monitorIds } });
  // A fresh database holds no results yet: the watermark may be put anywhere.
  await plain.sql`update rollup_watermark set closed_through = ${new Date(SPLIT)}`;
  dataset = generateDataset({ orgId, monitorIds, locations: ["eu-west", "us-east", "run_office"], start: new Date(START), days: DAYS, intervalSeconds: 120, seed: 42 });
  const before = dataset.filter((r) => new Date(r.scheduled_at).getTime() < SPLIT);
  const after = dataset.filter((r) => new Date(r.scheduled_at).getTime() >= SPLIT);
  await Promise.all([
    load(plain.sql, [...before, ...after]),
    (async () => {
      await load(ts.sql, before);
      await ts.refreshAggregates(null, new Date(SPLIT));
      await load(ts.sql, after);
    })(),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([plain?.drop(), ts?.close()]);
}, 30_000);

async function materialisedHourly(): Promise<string> {
  const [rel] = await ts.sql`
    select materialization_hypertable_schema || '.' || materialization_hypertable_name as name
    from timescaledb_information.continuous_aggregates where view_name = 'check_results_hourly'`;
  return rel!.name as string;
}

/** Runs `read` on (a) plain raw rows, (b) plain rollups + edges, (c) TimescaleDB, and expects one answer. */
async function same<T>(read: (sql: Sql, source: ReadSource) => Promise<T>): Promise<T> {
  const raw = await read(plain.sql, "raw");
  expect(await read(plain.sql, "auto")).toEqual(raw);
  expect(await read(ts.sql, "auto")).toEqual(raw);
  return raw;
}

const rand = prng(7);
const randomRange = () => {
  const a = START - HOUR_MS + Math.floor(rand() * (DAYS * DAY_MS + 2 * HOUR_MS));
  const b = a + Math.floor(rand() * rand() * DAYS * DAY_MS) + 1000;
  return { from: new Date(a), to: new Date(b) };
};

describe("storage equivalence", () => {
  it("stores the dataset in both modes, duplicates once", async () => {
    expect(await storageMode(plain.sql)).toBe("partitioned");
    expect(await storageMode(ts.sql)).toBe("timescale");
    const unique = new Set(dataset.map((r) => r.job_id)).size;
    expect(unique).toBeLessThan(dataset.length);
    for (const sql of [plain.sql, ts.sql]) {
      const [row] = await sql`select count(*)::int as n, count(distinct status)::int as statuses from check_results where org_id = ${orgId}`;
      expect(row).toEqual({ n: unique, statuses: 5 });
    }
    // Until the final refresh, TimescaleDB answers from materialised buckets before SPLIT and
    // from real-time aggregation after it.
    const [materialised] = await ts.sql`select max(bucket) as last from ${ts.sql(await materialisedHourly())}`;
    expect(materialised!.last).toEqual(new Date(SPLIT - HOUR_MS));
  });

  it("gives the same uptime over the whole dataset and per location", async () => {
    const u = await same((sql, source) => uptime(sql, orgId, monitorIds[0]!, { from: new Date(START - DAY_MS), to: new Date(END + DAY_MS), byLocation: true, source }));
    expect(u.locations!.map((l) => l.location)).toEqual(["eu-west", "run_office", "us-east"]);
    expect(u.unavailable).toBeGreaterThan(0);
    expect(u.uptime_pct).toBeGreaterThan(70);
  });

  it("gives the same uptime over aligned, sub-hour, midnight-crossing and random ranges", async () => {
    const fixed = [
      [Date.parse("2026-03-02T00:00:00Z"), Date.parse("2026-03-03T00:00:00Z")],
      [Date.parse("2026-03-02T07:00:00Z"), Date.parse("2026-03-02T09:00:00Z")],
      [Date.parse("2026-03-02T07:03:10Z"), Date.parse("2026-03-02T07:41:59Z")],
      [Date.parse("2026-03-01T23:59:59Z"), Date.parse("2026-03-02T00:00:01Z")],
      [SPLIT - 90_000, SPLIT + 3 * HOUR_MS + 5_000],
      [START, END],
    ].map(([a, b]) => ({ from: new Date(a!), to: new Date(b!) }));
    for (const range of [...fixed, ...Array.from({ length: 25 }, randomRange)]) {
      for (const id of monitorIds) await same((sql, source) => uptime(sql, orgId, id, { ...range, byLocation: true, source }));
    }
  });

  it("gives the same hourly and daily aggregates, p50 and p95 included", async () => {
    const hours = await same((sql, source) => aggregates(sql, orgId, monitorIds[0]!, { bucket: "hour", from: new Date(START), to: new Date(END), source }));
    // START and END are not hour-aligned: one partial bucket at each end.
    expect(hours.filter((b) => b.checks > 0).length).toBe(DAYS * 24 + 1);
    expect(hours.every((b) => b.checks === 0 || (b.p50_ms! <= b.p95_ms! && b.p95_ms! <= b.max_ms!))).toBe(true);
    await same((sql, source) => aggregates(sql, orgId, monitorIds[1]!, { bucket: "hour", from: new Date(START + 1234), to: new Date(END - 98765), location: "us-east", source }));
    await same((sql, source) => aggregates(sql, orgId, monitorIds[0]!, { bucket: "day", from: new Date(START - DAY_MS), to: new Date(END + DAY_MS), source }));
    for (let i = 0; i < 8; i++) {
      const range = randomRange();
      await same((sql, source) => aggregates(sql, orgId, monitorIds[i % 2]!, { bucket: i % 2 ? "day" : "hour", ...range, location: i % 3 ? undefined : "run_office", source }));
    }
  });

  it("gives the same daily bars, windows and monitor-page figures", async () => {
    const now = new Date(END + 30 * 60_000);
    const bars = await same((sql, source) => dailyBars(sql, orgId, monitorIds, { days: 90, now, source }));
    expect(bars[monitorIds[0]!]!.filter((b) => b.total > 0).map((b) => b.date)).toEqual(["2026-03-01", "2026-03-02", "2026-03-03", "2026-03-04"]);
    await same((sql, source) => uptimeWindows(sql, orgId, monitorIds[1]!, { now, byLocation: true, source }));
    for (const window of ["24h", "7d"] as const) await same((sql, source) => uptimeForMonitors(sql, orgId, monitorIds, window, { now, source }));
  });

  it("still agrees once TimescaleDB has materialised everything", async () => {
    await ts.refreshAggregates();
    await same((sql, source) => aggregates(sql, orgId, monitorIds[0]!, { bucket: "hour", from: new Date(START - 1000), to: new Date(END), source }));
    for (let i = 0; i < 6; i++) {
      const range = randomRange();
      await same((sql, source) => uptime(sql, orgId, monitorIds[i % 2]!, { ...range, byLocation: true, source }));
    }
    const now = new Date(floorTo(END, DAY_MS) + 5 * HOUR_MS);
    await same((sql, source) => dailyBars(sql, orgId, monitorIds, { days: 7, now, source }));
  });
  it("still agrees once plain PostgreSQL's closer has rolled up the rest, and halfway there", async () => {
    for (const maxSteps of [45, 1000]) {
      const closed = await closeRollups(plain.sql, new Date(END + HOUR_MS), { stepMs: 10 * 60_000, maxSteps });
      expect(closed.results).toBeGreaterThan(0);
      await same((sql, source) => aggregates(sql, orgId, monitorIds[0]!, { bucket: "hour", from: new Date(START - 1000), to: new Date(END), source }));
      for (let i = 0; i < 6; i++) {
        const range = randomRange();
        await same((sql, source) => uptime(sql, orgId, monitorIds[i % 2]!, { ...range, byLocation: true, source }));
      }
    }
    const [w] = await plain.sql`select closed_through as t from rollup_watermark`;
    expect(w!.t).toEqual(new Date(floorTo(END + HOUR_MS - 30_000, 10 * 60_000)));
  });
});
