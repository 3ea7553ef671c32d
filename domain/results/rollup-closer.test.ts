import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import postgres from "postgres";
import { createTestDatabase, type TestDatabase } from "../../tests/support/db.ts";
import type { Sql } from "../../db/client.ts";
import { hourFigures } from "../../db/queries/monitor-metrics.ts";
import { storeResults } from "./ingest.ts";
import { addHoursToDaily, advanceRollupWatermark, foldLateResults, lockRollupWatermarkExclusive, rollUpCommitted, rollUpCommittedSince, useCloserSettings } from "../../db/results/rollup-watermark.ts";
import { closeRollups, partsFor } from "./rollup-closer.ts";
import { DAY_MS, HOUR_MS } from "./segments.ts";
import { createOrgWithMonitors, generateDataset, makeResult, prng } from "./test-fixtures.ts";
import type { CheckResultInput } from "./types.ts";
import { aggregates, dailyBars, uptime, uptimeForMonitors, uptimeWindows, type ReadSource } from "./uptime.ts";

// Plain PostgreSQL with the rollup watermark: ingest rolls up only results due before it, the closer
// the rest. At every moment the readers must say what the raw rows alone say, and the rollup tables
// must hold exactly the raw results due before the watermark: none counted twice, none lost.

let db: TestDatabase;
let orgId: string;
let monitorIds: string[];

const START = Date.parse("2026-03-01T05:17:00Z");
const DAYS = 2;
const END = START + DAYS * DAY_MS;
/** The watermark while the dataset is stored: results before it take ingest's late path, the others stay raw. */
const W0 = Date.parse("2026-03-02T00:00:00Z");

const watermark = async () => ((await db.sql`select closed_through as t from rollup_watermark`)[0]!.t as Date).getTime();

async function load(sql: Sql, rows: CheckResultInput[], batch = 500) {
  for (let i = 0; i < rows.length; i += batch) await storeResults(sql, rows.slice(i, i + batch));
}

beforeAll(async () => {
  db = await createTestDatabase();
  // A fresh database holds no results yet: the watermark may be put anywhere.
  await db.sql`update rollup_watermark set closed_through = ${new Date(W0)}`;
  ({ orgId, monitorIds } = await createOrgWithMonitors(db.sql, { monitors: 2, intervalSeconds: 120 }));
  const dataset = generateDataset({ orgId, monitorIds, locations: ["eu-west", "us-east", "run_office"], start: new Date(START), days: DAYS, intervalSeconds: 120, seed: 11 });
  await load(db.sql, dataset);
}, 120_000);

afterAll(async () => {
  await db?.drop();
}, 30_000);

/** Each rollup table against the raw rows it must hold, grouped the same way. */
/**
 * Waits until no snapshot in the cluster is older than now. A step's update is HOT only if the page holds the
 * previous step's dead row versions no longer needed; a transaction open in *another* database keeps them too
 * (measured: four updates of 240 rows at fillfactor 70 stayed on 4 pages alone, spread to 9 beside one open
 * transaction elsewhere), and the suite runs two files at once on one cluster.
 */
async function noOlderSnapshotAnywhere() {
  const [mark] = await db.sql.begin(async (tx) => {
    await tx`select txid_current()`;
    return tx<{ xid: string }[]>`select backend_xid::text as xid from pg_stat_activity where pid = pg_backend_pid()`;
  });
  for (let i = 0; i < 400; i++) {
    const [older] = await db.sql<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity
      where pid <> pg_backend_pid() and (age(backend_xmin) >= age(${mark!.xid}::xid) or age(backend_xid) >= age(${mark!.xid}::xid))`;
    if (older!.n === 0) return;
    await Bun.sleep(25);
  }
  throw new Error("a snapshot older than the step stayed open for 10 s");
}

async function expectRollupsMatchRawBelowWatermark() {
  // Hourly rows hold the results due before the watermark; daily rows those due before its hour.
  const bounds = [["check_results_hourly", "1 hour", "closed_through"], ["check_results_daily", "1 day", "date_bin('1 hour', closed_through, '2000-01-01T00:00:00Z'::timestamptz)"]] as const;
  for (const [table, step, bound] of bounds) {
    const [diff] = await db.sql`
      with expected as (
        select org_id, monitor_id, location, date_bin(${step}::interval, scheduled_at, '2000-01-01T00:00:00Z'::timestamptz) as bucket,
          count(*)::int as total, count(*) filter (where status = 'up')::int as up, count(*) filter (where status = 'down')::int as down,
          count(*) filter (where status = 'degraded')::int as degraded, count(*) filter (where status = 'timeout')::int as timeout,
          count(*) filter (where status = 'unavailable')::int as unavailable,
          coalesce(sum(duration_ms) filter (where status <> 'unavailable'), 0)::bigint as duration_sum,
          max(duration_ms) filter (where status <> 'unavailable') as duration_max,
          result_duration_hist(duration_ms) filter (where status <> 'unavailable') as hist
        from check_results where scheduled_at < (select ${db.sql.unsafe(bound)} from rollup_watermark) group by 1, 2, 3, 4
      ), actual as (
        select org_id, monitor_id, location, bucket, total, up, down, degraded, timeout, unavailable, duration_sum, duration_max, hist from ${db.sql(table)}
      )
      select (select count(*) from (select * from expected except all select * from actual) a)::int as missing,
        (select count(*) from (select * from actual except all select * from expected) b)::int as extra,
        (select count(*) from expected)::int as rows`;
    expect({ table, missing: diff!.missing, extra: diff!.extra }).toEqual({ table, missing: 0, extra: 0 });
  }
}

/** Runs `read` on raw rows alone and on rollups plus raw rows, and expects one answer. */
async function same<T>(read: (source: ReadSource) => Promise<T>): Promise<T> {
  const raw = await read("raw");
  expect(await read("auto")).toEqual(raw);
  return raw;
}

const rand = prng(3);
/** Fixed ranges around the dataset and the watermark, and random ones. */
function ranges(): { from: Date; to: Date }[] {
  const w = [W0 - 90_000, W0 + 3 * HOUR_MS + 5_000];
  const fixed = [[START, END], [START - DAY_MS, END + DAY_MS], w, [Date.parse("2026-03-02T07:03:10Z"), Date.parse("2026-03-03T00:00:00Z")]];
  const random = Array.from({ length: 6 }, () => {
    const a = START - HOUR_MS + Math.floor(rand() * (DAYS * DAY_MS + 2 * HOUR_MS));
    return [a, a + Math.floor(rand() * rand() * DAYS * DAY_MS) + 1000];
  });
  return [...fixed, ...random].map(([a, b]) => ({ from: new Date(a!), to: new Date(b!) }));
}

async function expectReadsExact() {
  for (const [i, range] of ranges().entries()) {
    await same((source) => uptime(db.sql, orgId, monitorIds[i % 2]!, { ...range, byLocation: true, source }));
    await same((source) => aggregates(db.sql, orgId, monitorIds[i % 2]!, { bucket: i % 2 ? "day" : "hour", ...range, source }));
  }
  const now = new Date(END + 30 * 60_000);
  await same((source) => dailyBars(db.sql, orgId, monitorIds, { days: 10, now, source }));
  await same((source) => uptimeWindows(db.sql, orgId, monitorIds[1]!, { now, byLocation: true, source }));
  await same((source) => uptimeForMonitors(db.sql, orgId, monitorIds, "24h", { now: new Date(W0 + 5 * HOUR_MS + 123), source }));
}

describe("rollups closed through the watermark", () => {
  it("gives exact figures before the closer ran, halfway and after", async () => {
    expect(await watermark()).toBe(W0);
    const [{ hours }] = (await db.sql`select count(*)::int as hours from check_results_hourly where bucket >= ${new Date(W0)}`) as unknown as [{ hours: number }];
    expect(hours).toBe(0);
    await expectRollupsMatchRawBelowWatermark();
    await expectReadsExact();

    // Halfway: 100 one-minute steps, through the middle of an hour.
    const half = await closeRollups(db.sql, new Date(END), { maxSteps: 100 });
    expect(half.steps).toBe(100);
    expect(half.results).toBeGreaterThan(0);
    expect(await watermark()).toBe(W0 + 100 * 60_000);
    await expectRollupsMatchRawBelowWatermark();
    await expectReadsExact();

    // After: everything up to an hour after the last result (hour-wide steps for speed).
    const rest = await closeRollups(db.sql, new Date(END + HOUR_MS + 30_000), { stepMs: HOUR_MS, maxSteps: 100 });
    expect(await watermark()).toBe(Math.floor((END + HOUR_MS) / HOUR_MS) * HOUR_MS);
    expect(rest.results).toBeGreaterThan(0);
    await expectRollupsMatchRawBelowWatermark();
    await expectReadsExact();
  });

  it("rolls up a late result (due before the watermark) at ingest", async () => {
    const late = makeResult(orgId, monitorIds[0]!, new Date(W0 + 90_000), "down", { duration_ms: 4321 });
    const hour = new Date(W0);
    const down = async () => (await db.sql`select down from check_results_hourly where monitor_id = ${monitorIds[0]!} and location = 'eu' and bucket = ${hour}`)[0]?.down ?? 0;
    const before = await down();
    await storeResults(db.sql, [late]);
    expect(await down()).toBe(before + 1);
    await expectRollupsMatchRawBelowWatermark();
    await expectReadsExact();
  });

  it("catches up after downtime a bounded number of steps per run", async () => {
    const from = await watermark();
    const now = new Date(from + 10 * 60_000 + 30_000); // ten steps behind, past the 30 s grace
    const runs = [];
    for (let i = 0; i < 5; i++) runs.push((await closeRollups(db.sql, now, { maxSteps: 3 })).steps);
    expect(runs).toEqual([3, 3, 3, 1, 0]);
    expect(await watermark()).toBe(from + 10 * 60_000);
    await expectRollupsMatchRawBelowWatermark();
  });

  it("reads a step in parts of about 40,000 results, counted first", async () => {
    expect([0, 40_000, 40_001, 120_000, 300_000, 3_000_000].map(partsFor)).toEqual([1, 1, 2, 4, 8, 8]);
    const from = await watermark();
    await storeResults(db.sql, [0, 1, 2, 3, 4].map((i) => makeResult(orgId, monitorIds[i % 2]!, new Date(from + i * 10_000 + i), "up")));
    const [{ n }] = (await db.sql`select count(*)::int as n from check_results where scheduled_at >= ${new Date(from)} and scheduled_at < ${new Date(from + 60_000)}`) as unknown as [{ n: number }];
    expect(n).toBeGreaterThanOrEqual(5);
    const asked: number[] = [];
    const one = await closeRollups(db.sql, new Date(from + 90_000), { parts: (results) => (asked.push(results), 2) });
    expect(asked).toEqual([n]);
    expect(one.results).toBe(n);
    await expectRollupsMatchRawBelowWatermark();
  });

  it("spreads the parts of the step that catches up, not those of a catch-up; a stop ends the rests, checks waiting extend them", async () => {
    const from = await watermark();
    // Three steps due: the first two run as a catch-up, the last starts its four parts 500 ms apart.
    let started = performance.now();
    const three = await closeRollups(db.sql, new Date(from + 3 * 60_000 + 30_000), { parts: 4, spreadMs: 2_000 });
    const took = performance.now() - started;
    expect(three.steps).toBe(3);
    expect(took).toBeGreaterThanOrEqual(1_490);
    expect(took).toBeLessThan(4_500); // all three spread: 4,500 ms at least
    expect(await watermark()).toBe(from + 3 * 60_000);
    await expectRollupsMatchRawBelowWatermark();

    // Stopping during a step spread over a minute: the step completes, without the rests.
    const stop = new AbortController();
    started = performance.now();
    const closing = closeRollups(db.sql, new Date(from + 4 * 60_000 + 30_000), { parts: 4, spreadMs: 60_000, signal: stop.signal });
    await Bun.sleep(300);
    stop.abort();
    expect((await closing).steps).toBe(1);
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(await watermark()).toBe(from + 4 * 60_000);
    await expectRollupsMatchRawBelowWatermark();

    // Checks waiting to start: a spread step's next part waits while they do, up to half its spread again.
    let waiting = true;
    let asked = 0;
    started = performance.now();
    setTimeout(() => (waiting = false), 700);
    await closeRollups(db.sql, new Date(from + 5 * 60_000 + 30_000), { parts: 2, spreadMs: 1_000, yieldTo: () => (asked++, waiting) });
    expect(performance.now() - started).toBeGreaterThanOrEqual(690);
    expect(asked).toBeGreaterThan(1);
    // ...and never past that: the step runs regardless once it has waited that long.
    started = performance.now();
    await closeRollups(db.sql, new Date(from + 6 * 60_000 + 30_000), { parts: 2, spreadMs: 400, yieldTo: () => true });
    const tookYielding = performance.now() - started;
    expect(tookYielding).toBeGreaterThanOrEqual(590);
    expect(tookYielding).toBeLessThan(5_000);
    expect(await watermark()).toBe(from + 6 * 60_000);
    await expectRollupsMatchRawBelowWatermark();
  });

  it("keeps a spread step's transaction where the server ends idle transactions sooner than its rests", async () => {
    // A managed PostgreSQL may set idle_in_transaction_session_timeout; a step rests between its parts inside its transaction.
    const strict = postgres(db.url, { max: 1, onnotice: () => {}, connection: { idle_in_transaction_session_timeout: 200 } }) as unknown as Sql;
    try {
      expect((await strict`show idle_in_transaction_session_timeout`)[0]!.idle_in_transaction_session_timeout).toBe("200ms");
      const from = await watermark();
      const one = await closeRollups(strict, new Date(from + 90_000), { parts: 2, spreadMs: 1_000 });
      expect(one.steps).toBe(1);
      expect(await watermark()).toBe(from + 60_000);
    } finally {
      await strict.end();
    }
  });

  it("neither loses nor double-counts results stored while the closer runs", async () => {
    // Half an hour before midnight: results late past the day's end are rolled up by ingest (before the
    // watermark's day), the others by the closer (late ones of the watermark's day through rollup_late).
    const start = Date.parse("2026-03-10T23:30:00Z");
    // Close up to the new range first (day steps, then half-hour ones), so the closer and ingest meet there.
    for (const stepMs of [DAY_MS, HOUR_MS / 2]) while ((await closeRollups(db.sql, new Date(start + 30_000), { stepMs, maxSteps: 100 })).steps > 0);
    expect(await watermark()).toBe(start);
    const { orgId: org, monitorIds: mons } = await createOrgWithMonitors(db.sql, { monitors: 3, intervalSeconds: 20 });
    const rows = generateDataset({ orgId: org, monitorIds: mons, locations: ["eu-west", "us-east"], start: new Date(start), days: 1 / 24, intervalSeconds: 20, seed: 5 });
    // Arrival order: by due time plus up to three minutes of jitter, so many arrive after the closer passed them.
    const jitter = prng(9);
    const arrivals = rows.map((r) => ({ r, at: new Date(r.scheduled_at).getTime() + Math.floor(jitter() * 180_000) })).sort((a, b) => a.at - b.at);
    const batches: CheckResultInput[][] = [];
    for (let i = 0; i < arrivals.length; i += 25) batches.push(arrivals.slice(i, i + 25).map((a) => a.r));

    let closedByCloser = 0;
    let clock = start;
    let done = false;
    // Each batch is stored at its arrival time on a clock shared with the closer, once the closer has
    // caught up with that clock (less its 30 s grace): results arriving over a minute late find the
    // watermark past them and take ingest's path, the others wait for the closer.
    const ingest = async (worker: number) => {
      for (let i = worker; i < batches.length; i += 4) {
        clock = Math.max(clock, arrivals[i * 25]!.at);
        while ((await watermark()) < Math.floor((clock - 30_000) / 60_000) * 60_000) await Bun.sleep(1);
        await storeResults(db.sql, batches[i]!);
      }
    };
    const closer = async () => {
      while (!done) {
        const c = await closeRollups(db.sql, new Date(clock), { maxSteps: 2 });
        closedByCloser += c.results;
        if (c.steps === 0) await Bun.sleep(1);
      }
    };
    const closing = closer();
    await Promise.all([0, 1, 2, 3].map(ingest));
    done = true;
    await closing;
    for (;;) {
      const c = await closeRollups(db.sql, new Date(start + 2 * HOUR_MS), { maxSteps: 500 });
      closedByCloser += c.results;
      if (c.steps === 0) break;
    }

    const unique = new Set(rows.map((r) => r.job_id)).size;
    const [{ n, rolled }] = (await db.sql`
      select (select count(*)::int from check_results where org_id = ${org}) as n,
        (select sum(total)::int from check_results_hourly where org_id = ${org}) as rolled`) as unknown as [{ n: number; rolled: number }];
    expect(n).toBe(unique);
    expect(rolled).toBe(unique);
    // Both paths ran: the closer rolled some results up, ingest the late ones.
    expect(closedByCloser).toBeGreaterThan(0);
    expect(closedByCloser).toBeLessThan(unique);
    await expectRollupsMatchRawBelowWatermark();
  });

  // A step reads what is committed before it takes the lock, then under it only what committed since.
  describe("a step that takes the lock last", () => {
    const T = Date.parse("2026-03-20T10:00:00Z");
    let org: string;
    let mons: string[];
    const minute = (m: number, n: number, at = T + m * 60_000) =>
      Array.from({ length: n }, (_, i) => makeResult(org, mons[i % mons.length]!, new Date(at + (i * 60_000) / n), i % 5 ? "up" : "down", { duration_ms: 10 + i * 37 }));
    /** Closes one minute [T + m, T + m + 1) by hand as the closer does, calling `between` after the first read and the daily rows (before the lock). */
    const stepByHand = (m: number, between: () => Promise<void>, lockWaitMs = 5_000) =>
      db.sql.begin(async (tx) => {
        const [from, to] = [new Date(T + m * 60_000), new Date(T + (m + 1) * 60_000)];
        expect(await watermark()).toBe(from.getTime());
        await useCloserSettings(tx as never);
        const first = await rollUpCommitted(tx as never, from, to);
        await addHoursToDaily(tx as never, from, to);
        await between();
        expect((await lockRollupWatermarkExclusive(tx as never, { timeoutMs: lockWaitMs })).getTime()).toBe(from.getTime());
        const dailyBefore = new Date(Math.floor(to.getTime() / HOUR_MS) * HOUR_MS);
        const rest = await rollUpCommittedSince(tx as never, from, to, [first.snapshot], dailyBefore);
        const late = await foldLateResults(tx as never, dailyBefore);
        await advanceRollupWatermark(tx as never, from, to, { dailyDone: true });
        return { first: first.results, rest: rest.results, late };
      });

    /**
     * The closer's step of minute m while an ingest batch of 3 results of that minute holds the shared lock for
     * 700 ms: its lock does not come within 100 ms, so the step is redone with the lock first.
     */
    const stepBehindLongBatch = async (m: number) => {
      const batch = db.sql.begin(async (tx) => {
        await storeResults(tx as never, minute(m, 3));
        await Bun.sleep(700);
      });
      await Bun.sleep(100);
      const out = await closeRollups(db.sql, new Date(T + (m + 1) * 60_000 + 30_000), { maxSteps: 1, lockWaitMs: 100 });
      await batch;
      return out;
    };

    beforeAll(async () => {
      ({ orgId: org, monitorIds: mons } = await createOrgWithMonitors(db.sql, { monitors: 3, intervalSeconds: 20 }));
      for (const stepMs of [DAY_MS, HOUR_MS]) await closeRollups(db.sql, new Date(T + 30_000), { stepMs, maxSteps: 1_000 });
      expect(await watermark()).toBe(T);
    });

    it("adds a batch committed between its first read and the lock, once", async () => {
      await storeResults(db.sql, minute(0, 7));
      const done = await stepByHand(0, async () => {
        await storeResults(db.sql, minute(0, 5)); // read the old watermark: stays raw
      });
      expect(done).toEqual({ first: 7, rest: 5, late: 0 });
      await expectRollupsMatchRawBelowWatermark();
    });

    it("waits for a batch in progress at its first read (read the old watermark), and adds it", async () => {
      await storeResults(db.sql, minute(1, 4));
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      const batch = db.sql.begin(async (tx) => {
        await storeResults(tx as never, minute(1, 6));
        await held;
      });
      await Bun.sleep(100); // the batch holds the shared lock and its rows, uncommitted
      // A later transaction ends first, so the read's snapshot has its xmax past the batch's ids and lists the batch
      // among the running ones (rows written in a savepoint of it would have ids it does not list: lost, as in CI).
      await db.sql`select txid_current()`;
      const done = await stepByHand(1, async () => {
        setTimeout(release, 300); // committed while the step waits for the lock
      });
      await batch;
      expect(done).toEqual({ first: 4, rest: 6, late: 0 });
      await expectRollupsMatchRawBelowWatermark();
    });

    it("keeps a late result of its hour off the rows it holds, and adds it under the lock", async () => {
      // The step holds the hour's rollup rows of every monitor from its first read to its commit. A
      // result of that hour due before the watermark (late) is stored meanwhile: ingest holds the
      // shared lock, so waiting for one of those rows would deadlock with the step's wait for the lock.
      await storeResults(db.sql, minute(2, 6));
      const done = await stepByHand(2, async () => {
        const late = storeResults(db.sql, [makeResult(org, mons[0]!, new Date(T + 30_000), "down", { duration_ms: 999 })]);
        await Promise.race([late, Bun.sleep(5_000).then(() => Promise.reject(new Error("the late batch waited for the step's rollup rows")))]);
      });
      expect(done).toEqual({ first: 6, rest: 0, late: 1 });
      expect(await watermark()).toBe(T + 3 * 60_000);
      await expectRollupsMatchRawBelowWatermark();
    });

    it("redoes a step with the lock first when the lock does not come in time", async () => {
      await storeResults(db.sql, minute(3, 5));
      expect(await stepBehindLongBatch(3)).toMatchObject({ steps: 1, results: 8, lockedFirst: 1 });
      expect(await watermark()).toBe(T + 4 * 60_000);
      await expectRollupsMatchRawBelowWatermark();
    });

    it("rewrites the hour's rows in place, step after step (HOT: no new index entries, no growth)", async () => {
      // Each step writes a new version of every series' hourly row. At fillfactor 70 only about a third of a
      // page's rows had room for theirs: the others moved to new pages (migration 20261126160000).
      const many = await createOrgWithMonitors(db.sql, { monitors: 240, intervalSeconds: 20 });
      const results = (m: number) => many.monitorIds.map((id, i) => makeResult(many.orgId, id, new Date(T + m * 60_000 + i * 100), "up", { duration_ms: 5 + i }));
      const pages = async () =>
        new Map(
          (await db.sql<{ monitor_id: string; page: string }[]>`
            select monitor_id, (ctid::text::point)[0]::text as page from check_results_hourly where org_id = ${many.orgId} and bucket = ${new Date(T)}`).map((r) => [r.monitor_id, r.page]),
        );
      await storeResults(db.sql, results(4));
      await closeRollups(db.sql, new Date(T + 5 * 60_000 + 30_000), { maxSteps: 1 });
      const first = await pages();
      expect(first.size).toBe(240);
      for (const m of [5, 6]) {
        await noOlderSnapshotAnywhere();
        await storeResults(db.sql, results(m));
        await closeRollups(db.sql, new Date(T + (m + 1) * 60_000 + 30_000), { maxSteps: 1 });
        expect(await pages()).toEqual(first);
      }
      await expectRollupsMatchRawBelowWatermark();
    });

    it("adds the hour it ends to the daily rows before the lock, and what comes meanwhile under it; a late result of the day waits in rollup_late, not for those rows", async () => {
      // The hour's last step writes the day's daily rows before it takes the lock and holds them until it commits.
      // Ingest, holding the shared lock, must not wait for one of them: a late result of an earlier hour of the
      // same day goes to rollup_late (hung before the change), and the step adds it to the hourly and daily rows.
      await closeRollups(db.sql, new Date(T + 59 * 60_000 + 30_000), { maxSteps: 100 });
      expect(await watermark()).toBe(T + 59 * 60_000);
      await storeResults(db.sql, minute(59, 6));
      const down = async () => (await db.sql`select coalesce(sum(down), 0)::int as n from check_results_hourly where monitor_id = ${mons[1]!} and bucket = ${new Date(T - 2 * HOUR_MS)}`)[0]!.n as number;
      const downBefore = await down();
      const done = await stepByHand(59, async () => {
        const late = storeResults(db.sql, [makeResult(org, mons[1]!, new Date(T - 90 * 60_000), "down", { duration_ms: 777 })]);
        await Promise.race([late, Bun.sleep(5_000).then(() => Promise.reject(new Error("the late batch waited for the step's daily rows")))]);
        expect(await down()).toBe(downBefore + 1); // its hourly row at once: readers read that hour from it
        await storeResults(db.sql, minute(59, 4)); // committed between the read and the lock
      });
      expect(done).toEqual({ first: 6, rest: 4, late: 1 });
      expect(await watermark()).toBe(T + HOUR_MS);
      await expectRollupsMatchRawBelowWatermark();
      // The lock-first path (a redone step) ends an hour the same way.
      await storeResults(db.sql, minute(119, 5));
      await closeRollups(db.sql, new Date(T + 119 * 60_000 + 30_000), { maxSteps: 100 });
      await storeResults(db.sql, [makeResult(org, mons[2]!, new Date(T + 5 * 60_000), "up", { duration_ms: 55 })]);
      expect(await stepBehindLongBatch(119)).toMatchObject({ steps: 1, results: 9, lockedFirst: 1 });
      expect(await watermark()).toBe(T + 2 * HOUR_MS);
      await expectRollupsMatchRawBelowWatermark();
    });

    it("adds to the daily rows too what commits between the read of an hour's last step and its lock", async () => {
      // The closer itself, its read in two parts with a rest of up to 1 s between them: a batch committed in
      // the rest holds rows of the first part's monitors that its read did not see (8 monitors: some are in it).
      const eight = await createOrgWithMonitors(db.sql, { monitors: 8, intervalSeconds: 20 });
      const batch = (n: number) =>
        Array.from({ length: n }, (_, i) => makeResult(eight.orgId, eight.monitorIds[i % 8]!, new Date(T + 179 * 60_000 + i * 1_000), i % 3 ? "up" : "down", { duration_ms: 20 + i }));
      await closeRollups(db.sql, new Date(T + 179 * 60_000 + 30_000), { maxSteps: 1_000 });
      await storeResults(db.sql, batch(8));
      const closing = closeRollups(db.sql, new Date(T + 180 * 60_000 + 30_000), { maxSteps: 1, parts: 2, restRatio: 1_000 });
      await Bun.sleep(150);
      await storeResults(db.sql, batch(16).slice(8));
      expect(await closing).toMatchObject({ steps: 1, results: 16, lockedFirst: 0 });
      expect(await watermark()).toBe(T + 3 * HOUR_MS);
      await expectRollupsMatchRawBelowWatermark();
    });
  });

  it("gives the metrics counters (the current UTC hour) exactly from the rollup plus raw rows after the watermark", async () => {
    // The hour must already hold checks of every series and must not end while the test runs.
    const intoHour = Date.now() % HOUR_MS;
    if (intoHour < 30_000 || intoHour > HOUR_MS - 60_000) await Bun.sleep((HOUR_MS - intoHour + 30_000) % HOUR_MS);
    const now = Date.now();
    const { orgId: org, monitorIds: mons } = await createOrgWithMonitors(db.sql, { monitors: 3, intervalSeconds: 20 });
    await load(db.sql, generateDataset({ orgId: org, monitorIds: mons, locations: ["eu-west", "us-east"], start: new Date(now - 100 * 60_000), days: 100 / 1440, intervalSeconds: 20, seed: 8 }));
    const sorted = <T extends { monitor_id: string; location: string }>(rows: T[]) =>
      rows.map((r) => ({ ...r })).sort((a, b) => (a.monitor_id + a.location < b.monitor_id + b.location ? -1 : 1));
    const expectWindowExact = () =>
      db.sql.begin(async (tx) => {
        const raw = await tx`
          select monitor_id, location,
            count(*) filter (where status = 'up')::int as up, count(*) filter (where status = 'down')::int as down,
            count(*) filter (where status = 'degraded')::int as degraded, count(*) filter (where status = 'timeout')::int as timeout,
            count(*) filter (where status = 'unavailable')::int as unavailable,
            coalesce(sum(duration_ms) filter (where status <> 'unavailable'), 0)::float8 as duration_sum,
            result_duration_hist(duration_ms) filter (where status <> 'unavailable') as hist
          from check_results where org_id = ${org} and scheduled_at >= date_trunc('hour', now(), 'UTC')
          group by 1, 2`;
        expect(raw.length).toBe(6);
        expect(sorted(await hourFigures(tx as unknown as Sql, org, true))).toEqual(sorted(raw as never));
      });
    // Coarse steps first: the watermark is months behind here.
    const closeTo = async (t: number) => {
      for (const stepMs of [30 * DAY_MS, DAY_MS, HOUR_MS, 60_000]) await closeRollups(db.sql, new Date(t), { stepMs, maxSteps: 100 });
    };
    await expectWindowExact();
    for (const t of [now - 70 * 60_000, now - 20 * 60_000, now]) {
      await closeTo(t);
      expect(await watermark()).toBe(Math.floor((t - 30_000) / 60_000) * 60_000);
      await expectWindowExact();
    }
    // A late result of the watermark's hour waits in rollup_late for the closer: the window counts it.
    const w = await watermark();
    if (w % HOUR_MS !== 0) {
      await storeResults(db.sql, [makeResult(org, mons[0]!, new Date(w - 1_000), "down", { location: "eu-west", duration_ms: 777 })]);
      expect((await db.sql`select count(*)::int as n from rollup_late`)[0]!.n).toBe(1);
      await expectWindowExact();
    }
    // A late result of the hour before: in its hourly row at once, its daily part waits in rollup_late when of the
    // watermark's day. The window counts it once.
    await storeResults(db.sql, [makeResult(org, mons[1]!, new Date(Math.floor(w / HOUR_MS) * HOUR_MS - 10 * 60_000), "down", { location: "us-east", duration_ms: 555 })]);
    await expectWindowExact();
  }, 180_000);
});
