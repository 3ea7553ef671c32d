import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createSql, type Sql } from "../../db/client.ts";
import { insertResults, type ResultRecord } from "../../db/queries/results.ts";
import { ensurePartition } from "../../db/results/maintenance.ts";
import { buildPartitionKey, partitionsWithoutNewKey, resultKeyState } from "../../db/results/result-key.ts";
import { createTestDatabase, type TestDatabase } from "../../tests/support/db.ts";
import { rekeyResults } from "./result-key.ts";

// The raw results' unique key is (scheduled_at, job_id) since migration 20261127140000: every insert lands at the
// index's right edge instead of on a leaf page of its monitor's own. A fresh database gets it from the migration;
// on one with rows the migration keys the small partitions only, and housekeeping builds the rest concurrently,
// then drops the old (job_id, scheduled_at) key. Ingest never waits for a build.

const MIGRATION = readFileSync(join(import.meta.dir, "..", "..", "db", "migrations", "20261127140000_check_results_key_due_first.sql"), "utf8");
const [UP, DOWN] = MIGRATION.split("-- migrate:down") as [string, string];

const BIG_DAY = "2026-05-04";
const BIG = "check_results_p20260504";
const T = Date.parse(`${BIG_DAY}T10:00:00Z`);
const BIG_ROWS = 60_000; // ~12 MB: past the 8 MB the migration builds inline

let db: TestDatabase;

const record = (i: number, at = T + i * 10): ResultRecord => ({
  job_id: `mon_key_${i % 50}.local.${at}`,
  org_id: "org_key",
  monitor_id: `mon_key_${i % 50}`,
  location: "local",
  location_type: "region",
  scheduled_at: new Date(at).toISOString(),
  checked_at: new Date(at + 40).toISOString(),
  status: "up",
  duration_ms: 20,
  error: null,
  data: { status_code: 200 },
});

const count = async () => ((await db.sql`select count(*)::int as n from check_results`) as unknown as [{ n: number }])[0].n;

/** A database as migration 20261127140000 finds one with history: the old key, a big day and a small one. */
async function withHistoryBeforeTheMigration(): Promise<void> {
  await db.sql.unsafe(DOWN);
  expect(await resultKeyState(db.sql)).toEqual({ valid: false, oldKey: true });
  await db.sql`truncate check_results`;
  await db.sql`
    insert into check_results (job_id, org_id, monitor_id, location, location_type, scheduled_at, checked_at, status, duration_ms, error, data)
    select 'mon_key_' || (i % 50) || '.local.' || (${T}::bigint + i * 10), 'org_key', 'mon_key_' || (i % 50), 'local', 'region',
      ${new Date(T)}::timestamptz + i * interval '10 ms', ${new Date(T)}::timestamptz + i * interval '10 ms' + interval '40 ms',
      'up', 20, null, '{"status_code": 200, "dns_ms": 1, "connect_ms": 2, "tls_ms": 0, "ttfb_ms": 12, "size_bytes": 1432}'::jsonb
    from generate_series(0, ${BIG_ROWS - 1}) i`;
  await insertResults(db.sql, [record(0, Date.parse("2026-05-05T01:00:00Z"))]);
  await db.sql.unsafe(UP);
}

/** Waits until the index build is waiting for the open writer's transaction. */
async function buildWaiting(): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const [row] = await db.sql`
      select count(*)::int as n from pg_stat_activity
      where query ilike 'create unique index%' and wait_event_type = 'Lock' and pid <> pg_backend_pid()`;
    if (row!.n > 0) return;
    await Bun.sleep(25);
  }
  throw new Error("the concurrent build never started");
}

beforeAll(async () => {
  db = await createTestDatabase();
  await ensurePartition(db.sql, BIG_DAY);
  await ensurePartition(db.sql, "2026-05-05");
}, 60_000);

afterAll(async () => {
  await db?.drop();
}, 30_000);

describe("the raw results' unique key, due time first", () => {
  it("is (scheduled_at, job_id) on a fresh database, on every partition made from now on, and still stores a job once", async () => {
    expect(await resultKeyState(db.sql)).toEqual({ valid: true, oldKey: false });
    await ensurePartition(db.sql, "2026-05-06");
    const defs = await db.sql<{ def: string }[]>`
      select pg_get_indexdef(i.indexrelid) as def from pg_index i where i.indisunique and i.indrelid = 'check_results_p20260506'::regclass`;
    expect(defs.map((d) => d.def.replace(/^.* USING /, ""))).toEqual(["btree (scheduled_at, job_id)"]);

    const r = record(1, Date.parse("2026-05-06T08:00:00Z"));
    expect(await insertResults(db.sql, [r, { ...r, status: "down" }])).toHaveLength(1);
    expect(await insertResults(db.sql, [{ ...r, status: "down" }])).toEqual([]);
    expect(await rekeyResults(db.sql)).toEqual({ built: [], droppedOldKey: false, done: true, waitsForOperator: false });
  });

  it("on a database with history: the migration keys the small partitions and leaves the big ones to housekeeping", async () => {
    await withHistoryBeforeTheMigration();
    expect(await resultKeyState(db.sql)).toEqual({ valid: false, oldKey: true });
    expect(await partitionsWithoutNewKey(db.sql)).toEqual([BIG]);
    // Meanwhile ingest's `on conflict` is served by the old key.
    expect(await insertResults(db.sql, [record(7)])).toEqual([]);
  });

  it("builds the rest without blocking ingest, then drops the old key; every row stays and a job is still stored once", async () => {
    const before = await count();
    // A writer's open transaction: a concurrent build waits for it, a plain CREATE INDEX would hold the
    // partition against every writer behind it.
    const other = createSql(db.url, { max: 1 });
    const writer = await other.reserve();
    try {
      await writer`begin`;
      await writer`insert into check_results_p20260504 select * from check_results_p20260504 limit 0`;
      const rekey = rekeyResults(db.sql);
      await buildWaiting();

      const during = await db.sql.begin(async (tx) => {
        await tx`set local lock_timeout = '2s'`;
        return insertResults(tx as never, [record(BIG_ROWS + 1), record(3)]);
      });
      expect(during.map((r) => r.job_id)).toEqual([record(BIG_ROWS + 1).job_id]);

      await writer`commit`;
      expect(await rekey).toEqual({ built: [BIG], droppedOldKey: true, done: true, waitsForOperator: false });
    } finally {
      writer.release();
      await other.end();
    }
    expect(await resultKeyState(db.sql)).toEqual({ valid: true, oldKey: false });
    expect(await partitionsWithoutNewKey(db.sql)).toEqual([]);
    expect(await count()).toBe(before + 1);
    expect(await insertResults(db.sql, [record(5), record(BIG_ROWS + 1)])).toEqual([]);
    const [dup] = await db.sql`
      select count(*)::int as n from (select 1 from check_results group by job_id, scheduled_at having count(*) > 1) d`;
    expect(dup!.n).toBe(0);
  }, 60_000);

  it("stops a build when the process stops, and the next run drops what it left and builds that partition again", async () => {
    await withHistoryBeforeTheMigration();
    const other = createSql(db.url, { max: 1 });
    const writer = await other.reserve();
    const stopping = new AbortController();
    try {
      await writer`begin`;
      await writer`insert into check_results_p20260504 select * from check_results_p20260504 limit 0`;
      const rekey = rekeyResults(db.sql, { signal: stopping.signal });
      await buildWaiting();
      stopping.abort();
      expect(await rekey).toEqual({ built: [], droppedOldKey: false, done: false, waitsForOperator: false });
      await writer`commit`;
    } finally {
      writer.release();
      await other.end();
    }
    const [left] = await db.sql`select indisvalid as valid from pg_index where indexrelid = to_regclass('check_results_p20260504_scheduled_at_job_id_idx')`;
    expect(left).toEqual({ valid: false });
    expect(await resultKeyState(db.sql)).toEqual({ valid: false, oldKey: true });

    expect(await rekeyResults(db.sql)).toEqual({ built: [BIG], droppedOldKey: true, done: true, waitsForOperator: false });
    expect(await resultKeyState(db.sql)).toEqual({ valid: true, oldKey: false });
  }, 60_000);

  it("leaves the old key while a long reader holds the table, and drops it on a later run", async () => {
    await withHistoryBeforeTheMigration();
    await buildPartitionKey(db.sql, BIG);
    expect(await resultKeyState(db.sql)).toEqual({ valid: true, oldKey: true });
    const other = createSql(db.url, { max: 1 });
    const reader = await other.reserve();
    try {
      await reader`begin`;
      await reader`select count(*) from check_results_p20260505`;
      // Dropping the old key needs the table to itself: it gives up after its lock timeout rather than queue ingest.
      expect(await rekeyResults(db.sql)).toEqual({ built: [], droppedOldKey: false, done: false, waitsForOperator: false });
      await reader`commit`;
    } finally {
      reader.release();
      await other.end();
    }
    expect(await rekeyResults(db.sql)).toEqual({ built: [], droppedOldKey: true, done: true, waitsForOperator: false });
  }, 60_000);
});
