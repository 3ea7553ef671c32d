import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { findMonitor } from "../../db/queries/monitors.ts";
import { getResult, listResults } from "./checks.ts";
import { storeResults } from "./ingest.ts";
import { enforceRetention, maintainPartitions } from "./retention.ts";
import { createOrgWithMonitors, makeResult } from "./test-fixtures.ts";
import { createTimescaleTestDatabase, onRealTimescale, type TimescaleTestDatabase } from "./timescale-test-db.ts";
import { aggregates, uptime } from "./uptime.ts";

// Storage behaviour specific to TimescaleDB: hypertable, continuous aggregates, compression, chunk retention — on a
// real TimescaleDB cluster under scripts/test.sh where the package is present (CI), else the PGlite build. What both
// storage modes share is proven in storage-equivalence.test.ts.

let ts: TimescaleTestDatabase;
beforeAll(async () => {
  ts = await createTimescaleTestDatabase();
}, 60_000);
afterAll(async () => {
  await ts?.close();
}, 30_000);

const d = (s: string) => new Date(s);
const hourly = async (monitorId: string) =>
  (await ts.sql`select bucket, total, up, down from check_results_hourly where monitor_id = ${monitorId} order by bucket`).map((r) => ({ ...r }));

describe("TimescaleDB storage", () => {
  it("runs on the real TimescaleDB cluster in CI wherever the package for this machine is present", () => {
    const pkg = process.env.TIMESCALEDB_PACKAGE_DIR ?? join(import.meta.dir, "..", "..", "..", "shared", "timescaledb");
    if (process.env.CI === "true" && existsSync(join(pkg, "start-cluster.sh"))) expect(onRealTimescale()).toBe(true);
  });

  it("creates a hypertable, two continuous aggregates and the refresh, compression and retention policies", async () => {
    const [ht] = await ts.sql`select count(*)::int as n from timescaledb_information.hypertables where hypertable_name = 'check_results'`;
    expect(ht!.n).toBe(1);
    const caggs = await ts.sql`select view_name, materialized_only from timescaledb_information.continuous_aggregates order by view_name`;
    expect(caggs.map((c) => [c.view_name, c.materialized_only])).toEqual([["check_results_daily", false], ["check_results_hourly", false]]);
    const jobs = await ts.sql`select proc_name, hypertable_name from timescaledb_information.jobs where proc_name like 'policy_%' and hypertable_name is not null order by 1, 2`;
    expect(jobs.map((j) => j.proc_name)).toEqual(["policy_compression", "policy_refresh_continuous_aggregate", "policy_refresh_continuous_aggregate", "policy_retention", "policy_retention", "policy_retention"]);    // Batches per organisation (full whatever the check interval), each series' rows adjacent.
    const settings = await ts.sql`
      select attname, segmentby_column_index as seg, orderby_column_index as ord, orderby_asc as asc from timescaledb_information.compression_settings
      where hypertable_name = 'check_results' order by coalesce(segmentby_column_index, 0), orderby_column_index`;
    expect(settings.map((c) => [c.attname, c.seg, c.ord, c.asc])).toEqual([
      ["monitor_id", null, 1, true],
      ["location", null, 2, true],
      ["scheduled_at", null, 3, false],
      ["org_id", 1, null, null],
    ]);
  });

  it("stores a job once and the aggregates count it once, before and after a refresh", async () => {
    const { orgId, monitorIds: [mon] } = await createOrgWithMonitors(ts.sql);
    const r = makeResult(orgId, mon!, "2026-10-01T10:15:00Z", "down");
    const first = await storeResults(ts.sql, [r, { ...r, status: "up" }]);
    const again = await storeResults(ts.sql, [{ ...r, status: "up" }]);
    expect(first.inserted).toHaveLength(1);
    expect(first.statusChanges.map((c) => [c.from, c.to])).toEqual([["pending", "down"]]);
    expect(again).toEqual({ inserted: [], statusChanges: [] });
    const expected = [{ bucket: d("2026-10-01T10:00:00Z"), total: 1, up: 0, down: 1 }];
    expect(await hourly(mon!)).toEqual(expected);
    await ts.refreshAggregates(d("2026-10-01T00:00:00Z"), d("2026-10-02T00:00:00Z"));
    expect(await hourly(mon!)).toEqual(expected);
  });

  it("moves the monitor's status on a change and its latest check on every result, as the API reads them", async () => {
    const { orgId, monitorIds: [mon] } = await createOrgWithMonitors(ts.sql);
    const shown = async () => {
      const m = (await findMonitor(ts.sql, orgId, mon!))!;
      return { status: m.status, status_changed_at: m.status_changed_at, last_checked_at: m.last_checked_at, last_duration_ms: m.last_duration_ms };
    };
    expect(await shown()).toEqual({ status: "pending", status_changed_at: null, last_checked_at: null, last_duration_ms: null });
    await storeResults(ts.sql, [makeResult(orgId, mon!, "2026-10-02T10:00:00Z", "up", { duration_ms: 80 })]);
    const same = await storeResults(ts.sql, [makeResult(orgId, mon!, "2026-10-02T10:01:00Z", "up", { duration_ms: 90 })]);
    expect(same.statusChanges).toEqual([]);
    expect(await shown()).toEqual({ status: "up", status_changed_at: d("2026-10-02T10:00:01Z"), last_checked_at: d("2026-10-02T10:01:01Z"), last_duration_ms: 90 });
    const down = await storeResults(ts.sql, [makeResult(orgId, mon!, "2026-10-02T10:02:00Z", "down", { duration_ms: 700 })]);
    expect(down.statusChanges.map((c) => [c.from, c.to])).toEqual([["up", "down"]]);
    expect(await shown()).toEqual({ status: "down", status_changed_at: d("2026-10-02T10:02:01Z"), last_checked_at: d("2026-10-02T10:02:01Z"), last_duration_ms: 700 });
  });

  it("keeps rows idempotent and deletable once their chunk is compressed", async () => {
    const { orgId, monitorIds: [mon] } = await createOrgWithMonitors(ts.sql);
    const rows = Array.from({ length: 20 }, (_, i) => makeResult(orgId, mon!, new Date(Date.parse("2026-09-01T00:00:00Z") + i * 60_000), "up"));
    await storeResults(ts.sql, rows);
    const compressed = await ts.sql`select compress_chunk(c, if_not_compressed => true) as c from show_chunks('check_results', older_than => ${d("2026-09-02T00:00:00Z")}::timestamptz) c`;
    expect(compressed.length).toBeGreaterThan(0);
    expect((await storeResults(ts.sql, rows.slice(0, 5))).inserted).toEqual([]);
    const page = await listResults(ts.sql, orgId, mon!, { from: d("2026-09-01T00:00:00Z"), to: d("2026-09-02T00:00:00Z"), limit: 2 });
    expect(page.total).toBe(20);
    expect(await getResult(ts.sql, orgId, mon!, page.items[0]!.id)).toEqual(page.items[0]!);
    await ts.sql`delete from check_results where monitor_id = ${mon!} and scheduled_at < ${d("2026-09-01T00:10:00Z")}`;
    expect((await listResults(ts.sql, orgId, mon!, { from: d("2026-09-01T00:00:00Z"), to: d("2026-09-02T00:00:00Z") })).total).toBe(10);
  });

  it("trims an organisation's raw rows and materialised aggregates to its plan's retention", async () => {
    const { orgId, monitorIds: [mon] } = await createOrgWithMonitors(ts.sql, { planId: "free" });
    const now = d("2026-08-31T12:00:00Z"); // free keeps 30 days: from 2026-08-01T00:00Z
    await storeResults(ts.sql, [
      makeResult(orgId, mon!, "2026-07-31T23:30:00Z", "down"),
      makeResult(orgId, mon!, "2026-07-30T10:00:00Z", "down"),
      makeResult(orgId, mon!, "2026-08-01T00:30:00Z", "up"),
    ]);
    await ts.refreshAggregates(d("2026-07-01T00:00:00Z"), d("2026-08-31T00:00:00Z"));
    const out = await enforceRetention(ts.sql, now, { batchSize: 1 });
    expect(out.deletedResults).toBeGreaterThanOrEqual(2);
    expect(out.deletedRollups).toBeGreaterThanOrEqual(4);
    expect((await hourly(mon!)).map((h) => h.bucket)).toEqual([d("2026-08-01T00:00:00Z")]);
    const days = await aggregates(ts.sql, orgId, mon!, { bucket: "day", from: d("2026-07-30T00:00:00Z"), to: d("2026-08-02T00:00:00Z") });
    expect(days.map((b) => b.checks)).toEqual([0, 0, 1]);
    // A later refresh of that range recomputes from raw rows, which are gone too.
    await ts.refreshAggregates(d("2026-07-01T00:00:00Z"), d("2026-08-31T00:00:00Z"));
    expect((await uptime(ts.sql, orgId, mon!, { from: d("2026-07-01T00:00:00Z"), to: now })).total).toBe(1);
  });

  it("drops raw and aggregate chunks past the longest retention, and creates none itself", async () => {
    const { orgId, monitorIds: [mon] } = await createOrgWithMonitors(ts.sql);
    await storeResults(ts.sql, [makeResult(orgId, mon!, "2020-01-05T10:00:00Z", "up")]);
    await ts.refreshAggregates(d("2020-01-01T00:00:00Z"), d("2020-02-01T00:00:00Z"));
    expect(await hourly(mon!)).toHaveLength(1);
    const out = await maintainPartitions(ts.sql, d("2021-01-01T00:00:00Z"), { maxRetentionDays: 30 });
    expect(out.created).toEqual([]);
    expect(out.dropped.length).toBeGreaterThanOrEqual(3);
    expect(await hourly(mon!)).toEqual([]);
    expect((await uptime(ts.sql, orgId, mon!, { from: d("2020-01-01T00:00:00Z"), to: d("2020-02-01T00:00:00Z") })).total).toBe(0);
  });
  it("runs the compression and refresh policies as TimescaleDB jobs: old chunks compressed, recent hours materialised", async () => {
    const { orgId, monitorIds: [mon] } = await createOrgWithMonitors(ts.sql);
    const now = Date.now();
    const old = new Date(now - 20 * 86_400_000);
    const recent = new Date(now - 2 * 3_600_000);
    await storeResults(ts.sql, [makeResult(orgId, mon!, old, "up"), makeResult(orgId, mon!, recent, "down")]);
    const jobs = await ts.sql`select job_id, proc_name, hypertable_name from timescaledb_information.jobs where hypertable_name is not null order by job_id`;
    // Each policy's own procedure, run in the foreground (see docs/decisions.md: this build's background workers
    // do the work and then fail at cleanup, so a test cannot wait for them).
    for (const j of jobs) if (j.proc_name !== "policy_retention") await ts.sql.unsafe(`call run_job(${Number(j.job_id)})`);
    const chunks = await ts.sql`select range_start, is_compressed from timescaledb_information.chunks where hypertable_name = 'check_results' order by range_start`;
    expect(chunks.find((c) => new Date(c.range_start) <= old && new Date(c.range_start).getTime() + 86_400_000 > old.getTime())?.is_compressed).toBe(true);
    expect(chunks.find((c) => new Date(c.range_start).getTime() + 86_400_000 > recent.getTime() && new Date(c.range_start) <= recent)?.is_compressed).toBe(false);
    // The recent hour is in the refresh window (3 days to 1 hour ago): materialised, not only computed at query time.
    const [cagg] = await ts.sql`select materialization_hypertable_schema as s, materialization_hypertable_name as n from timescaledb_information.continuous_aggregates where view_name = 'check_results_hourly'`;
    const [mat] = await ts.sql`select count(*)::int as n from ${ts.sql(`${cagg!.s}.${cagg!.n}`)} where monitor_id = ${mon!}`;
    const [hour] = await ts.sql`select total, down from check_results_hourly where monitor_id = ${mon!} and bucket = date_trunc('hour', ${recent}::timestamptz)`;
    expect(hour).toMatchObject({ total: 1, down: 1 });
    expect(mat!.n).toBeGreaterThanOrEqual(1);
    // Compressed rows still read back.
    expect((await ts.sql`select status from check_results where monitor_id = ${mon!} order by scheduled_at`).map((r) => r.status)).toEqual(["up", "down"]);
    if (onRealTimescale()) {
      // On the real cluster the policies are also scheduled: TimescaleDB's background scheduler runs for this database.
      let schedulers = 0;
      for (let i = 0; i < 40 && schedulers === 0; i++) {
        const [row] = await ts.sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and backend_type like 'TimescaleDB Background Worker Scheduler%'`;
        schedulers = row!.n;
        if (schedulers === 0) await Bun.sleep(250);
      }
      expect(schedulers).toBe(1);
    }
  });

  it("enforces retention next to compressed chunks by decompressing only the batches it deletes from", async () => {
    const { orgId, monitorIds: [mon] } = await createOrgWithMonitors(ts.sql, { planId: "free" });
    const kept = Array.from({ length: 120 }, (_, i) => makeResult(orgId, mon!, new Date(Date.parse("2026-06-20T00:00:00Z") + i * 60_000), "up"));
    const expired = [1, 2, 3].map((i) => makeResult(orgId, mon!, new Date(Date.parse("2026-06-01T00:00:00Z") + i * 60_000), "down"));
    await storeResults(ts.sql, [...kept, ...expired]);
    await ts.sql`select compress_chunk(c, if_not_compressed => true) from show_chunks('check_results', older_than => ${d("2026-07-01T00:00:00Z")}::timestamptz) c`;
    // A delete that decompressed every compressed batch would pass this limit (120 kept rows alone).
    const conn = await ts.sql.reserve();
    try {
      await conn`set timescaledb.max_tuples_decompressed_per_dml_transaction = 50`;
      const out = await enforceRetention(conn as unknown as typeof ts.sql, d("2026-07-10T12:00:00Z"));
      expect(out.deletedResults).toBeGreaterThanOrEqual(3);
      await conn`reset timescaledb.max_tuples_decompressed_per_dml_transaction`;
    } finally {
      conn.release();
    }
    const left = await ts.sql`select status, count(*)::int as n from check_results where monitor_id = ${mon!} group by status`;
    expect(left.map((r) => ({ ...r }))).toEqual([{ status: "up", n: 120 }]);
  });
});
