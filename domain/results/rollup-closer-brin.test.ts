import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createTestDatabase, type TestDatabase } from "../../tests/support/db.ts";
import { ensurePartition } from "../../db/results/maintenance.ts";
import { closeRollups } from "./rollup-closer.ts";

// The closer finds a minute's raw rows through the BRIN index on scheduled_at. A BRIN scan returns every block range
// not yet summarised, whatever it holds. autosummarize only asked autovacuum to summarise each filled range, and
// autovacuum records at most 256 such requests and drops the rest: past ~250 ranges a minute (30,000 monitors at a
// 20 s interval) ranges stayed unsummarised until the partition's next VACUUM, hours apart on a large day, and every
// part of every step read every page inserted since. autosummarize is now off (migration 20261127120000), as here:
// the closer summarises the new ranges itself before it reads.

const T = Date.parse("2026-05-04T10:00:00Z");
const DAY = "2026-05-04";
const PARTITION = "check_results_p20260504";
const MINUTES = 4;
const PER_MINUTE = 12_000;

let db: TestDatabase;

/** Raw rows of minute m, in due-time order (as ingest stores them), 40 monitors. */
const insertMinute = (m: number) => db.sql`
  insert into check_results (id, job_id, org_id, monitor_id, location, location_type, scheduled_at, checked_at, status, duration_ms, error, data)
  select gen_random_uuid(), 'job_brin_' || ${m} || '_' || i, 'org_brin', 'mon_brin_' || (i % 40), 'local', 'region',
    ${new Date(T + m * 60_000)}::timestamptz + i * ${60_000 / PER_MINUTE} * interval '1 millisecond',
    ${new Date(T + m * 60_000)}::timestamptz + i * ${60_000 / PER_MINUTE} * interval '1 millisecond' + interval '40 ms',
    case when i % 17 = 0 then 'down' else 'up' end, 20 + i % 300, null,
    '{"status_code": 200, "dns_ms": 1, "connect_ms": 2, "tls_ms": 0, "ttfb_ms": 12, "size_bytes": 1432}'::jsonb
  from generate_series(0, ${PER_MINUTE - 1}) i`;

/**
 * Heap blocks a read of minute m through the BRIN index visits, and the blocks its rows are on. The unique key
 * (scheduled_at, job_id) leads with the due time too, and on a table this small the planner reads through it instead:
 * it is dropped for the read, in a transaction rolled back after. At scale the closer's reads go through the BRIN
 * index with the key there (EXPLAIN at 3 million rows a day, 300,000 a minute: docs/performance.md).
 */
async function minuteRead(m: number): Promise<{ visited: number; holding: number }> {
  const [from, to] = [new Date(T + m * 60_000), new Date(T + (m + 1) * 60_000)];
  const conn = await db.sql.reserve();
  let plan: unknown;
  try {
    await conn`begin`;
    await conn`set local enable_seqscan = off`;
    await conn`drop index check_results_due_job_key`;
    plan = await conn.unsafe(`explain (analyze, format json) select count(*) from check_results where scheduled_at >= '${from.toISOString()}' and scheduled_at < '${to.toISOString()}'`);
  } finally {
    await conn`rollback`;
    conn.release();
  }
  const text = JSON.stringify(plan);
  const blocks = (key: string) => Number(new RegExp(`"${key}":(\\d+)`).exec(text)?.[1] ?? 0);
  const [{ holding }] = (await db.sql`
    select count(distinct (ctid::text::point)[0])::int as holding from check_results where scheduled_at >= ${from} and scheduled_at < ${to}`) as unknown as [{ holding: number }];
  return { visited: blocks("Exact Heap Blocks") + blocks("Lossy Heap Blocks"), holding };
}

beforeAll(async () => {
  db = await createTestDatabase();
  await ensurePartition(db.sql, DAY);
  await db.sql`update rollup_watermark set closed_through = ${new Date(T)}`;
  for (let m = 0; m < MINUTES; m++) await insertMinute(m);
}, 60_000);

afterAll(async () => {
  await db?.drop();
}, 30_000);

describe("the closer and the BRIN index it reads through", () => {
  it("summarises the ranges inserted since the last summary before it reads, so a minute's read visits that minute's blocks", async () => {
    // Before: the index knows nothing of the new ranges, so a minute's read visits every block of the partition.
    const before = await minuteRead(1);
    expect(before.visited).toBeGreaterThan(MINUTES * before.holding * 0.9);

    const closed = await closeRollups(db.sql, new Date(T + 2 * 60_000 + 30_000), { maxSteps: 1 });
    expect(closed).toMatchObject({ steps: 1, results: PER_MINUTE });

    // After one step: the next minute's read visits its own blocks and at most a range (16 blocks) on each side.
    const after = await minuteRead(1);
    expect(after.visited).toBeLessThanOrEqual(after.holding + 32);
  });

  it("leaves the summaries to the closer in every daily partition: autovacuum is asked for none (it dropped most, each a LOG line)", async () => {
    await ensurePartition(db.sql, "2026-05-05");
    const rows = await db.sql<{ relname: string; autosummarize: boolean }[]>`
      select ic.relname, 'autosummarize=off' <> all(coalesce(ic.reloptions, '{}')) as autosummarize
      from pg_inherits h join pg_index i on i.indrelid = h.inhrelid join pg_class ic on ic.oid = i.indexrelid
      join pg_am am on am.oid = ic.relam and am.amname = 'brin'
      where h.inhparent = 'check_results'::regclass and h.inhrelid <> 'check_results_default'::regclass order by 1`;
    expect(rows.map((r) => r.relname)).toContain("check_results_p20260505_scheduled_at_idx");
    expect(rows.filter((r) => r.autosummarize)).toEqual([]);
  });

  it("does not wait for a summary another process holds the table for (autovacuum): it reads as before and closes the step", async () => {
    await insertMinute(MINUTES); // new, unsummarised ranges
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    // VACUUM and summaries of the partition take this lock; a closer that waited for it would stall the schedule.
    const holder = db.sql.begin(async (tx) => {
      await tx.unsafe(`lock table ${PARTITION} in share update exclusive mode`);
      locked();
      await held;
    });
    await isLocked;
    const started = performance.now();
    const closed = await closeRollups(db.sql, new Date(T + 3 * 60_000 + 30_000), { maxSteps: 1 });
    const tookMs = performance.now() - started;
    release();
    await holder;
    expect(closed).toMatchObject({ steps: 1, results: PER_MINUTE });
    expect(tookMs).toBeLessThan(5_000);
    const [{ rolled }] = (await db.sql`select sum(total)::int as rolled from check_results_hourly where org_id = 'org_brin'`) as unknown as [{ rolled: number }];
    expect(rolled).toBe(2 * PER_MINUTE); // minutes 0 and 1, one a step
  });
});
