import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { Sql } from "../../db/client.ts";
import { createTestDatabase, type TestDatabase } from "../../tests/support/db.ts";
import { getResult, listResults, streamResults } from "./checks.ts";
import { storeResults } from "./ingest.ts";
import { parseResultId } from "./result-id.ts";
import { rebuildRollups } from "./rollups.ts";
import { createOrgWithMonitors, makeResult } from "./test-fixtures.ts";
import { createTimescaleTestDatabase, type TimescaleTestDatabase } from "./timescale-test-db.ts";

// New rows store no result id: the database derives it from (job_id, scheduled_at) (migration
// 20261126110000, check_result_id), so compressed TimescaleDB rows do not carry 16 random bytes.
// Rows stored before keep their own id. Both storage paths, one organisation each with the same ids.

let plain: TestDatabase;
let ts: TimescaleTestDatabase;
let orgId: string;
let mon: string;
const day = Date.parse("2026-09-10T00:00:00Z");
const at = (minutes: number) => new Date(day + minutes * 60_000);
/** A result stored the way rows were before the migration: with a random UUIDv7 of its due time. */
const OLD_ID = "01a088b8-af40-7abc-9def-0123456789ab";

beforeAll(async () => {
  [plain, ts] = await Promise.all([createTestDatabase(), createTimescaleTestDatabase()]);
  ({ orgId, monitorIds: [mon] } = (await createOrgWithMonitors(plain.sql)) as { orgId: string; monitorIds: [string] });
  await createOrgWithMonitors(ts.sql, { ids: { orgId, monitorIds: [mon] } });
}, 60_000);
afterAll(async () => {
  await Promise.all([plain?.drop(), ts?.close()]);
}, 30_000);

/** Ten results a minute apart from two locations (same due times), plus one row with a stored id at minute 30. */
async function seed(sql: Sql) {
  const rows = Array.from({ length: 10 }, (_, i) =>
    ["eu", "us"].map((location) => makeResult(orgId, mon, at(i), i === 3 ? "down" : "up", { location, job_id: `${mon}.${location}.${at(i).getTime()}` })),
  ).flat();
  const stored = await storeResults(sql, rows);
  await sql`
    insert into check_results (id, job_id, org_id, monitor_id, location, location_type, scheduled_at, checked_at, status, duration_ms, error, data)
    values (${OLD_ID}, ${"job_before_migration"}, ${orgId}, ${mon}, ${"eu"}, ${"region"}, ${at(30)}, ${at(30)}, ${"up"}, ${42}, ${null}, ${sql.json({})})`;
  await rebuildRollups(sql, orgId, [mon], new Date(day), new Date(day + 86_400_000));
  return { rows, stored };
}

const range = { from: new Date(day), to: new Date(day + 86_400_000) };

describe.each([
  ["plain PostgreSQL", () => plain.sql],
  ["TimescaleDB", () => ts.sql],
])("result ids on %s", (_name, sqlOf) => {
  let inserted: Awaited<ReturnType<typeof storeResults>>["inserted"];
  let rows: ReturnType<typeof makeResult>[];

  beforeAll(async () => {
    ({ rows, stored: { inserted } } = await seed(sqlOf()));
  }, 60_000);

  it("stores no id for a new result and derives a UUIDv7 of its due time, distinct per job", async () => {
    const sql = sqlOf();
    const [n] = await sql<{ stored: number; total: number }[]>`
      select count(id)::int as stored, count(*)::int as total from check_results where org_id = ${orgId}`;
    expect(n).toEqual({ stored: 1, total: 21 });
    expect(inserted).toHaveLength(20);
    for (const r of inserted) {
      expect(r.id).toMatch(/^chk_[0-9a-f]{12}7[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
      expect(parseResultId(r.id)!.scheduledAtMs).toBe(r.scheduled_at.getTime());
    }
    expect(new Set(inserted.map((r) => r.id)).size).toBe(20);
  });

  it("lists, finds, exports and de-duplicates by that id, and keeps the id a row stored before", async () => {
    const sql = sqlOf();
    expect((await storeResults(sql, rows.slice(0, 4))).inserted).toEqual([]);
    const page = await listResults(sql, orgId, mon, { ...range, limit: 100 });
    expect(page.total).toBe(21);
    expect(page.items[0]!.id).toBe(`chk_${OLD_ID.replaceAll("-", "")}`);
    expect(new Set(page.items.slice(1).map((r) => r.id))).toEqual(new Set(inserted.map((r) => r.id)));
    for (const item of [page.items[0]!, page.items[5]!]) {
      expect(await getResult(sql, orgId, mon, item.id)).toEqual(item);
      expect(await getResult(sql, orgId, mon, item.job_id)).toEqual(item);
    }
    const exported: string[] = [];
    for await (const batch of streamResults(sql, orgId, mon, { ...range, batchSize: 7 })) exported.push(...batch.map((r) => r.id));
    expect(new Set(exported)).toEqual(new Set(page.items.map((r) => r.id)));
  });

  it("reads the same ids once the chunk is compressed, and still stores a redelivered result once", async () => {
    const sql = sqlOf();
    const before = await listResults(sql, orgId, mon, { ...range, limit: 100 });
    if (sql === ts.sql) {
      const chunks = await sql`select compress_chunk(c, if_not_compressed => true) from show_chunks('check_results', older_than => ${new Date(day + 86_400_000)}::timestamptz) c`;
      expect(chunks.length).toBeGreaterThan(0);
    }
    expect(await listResults(sql, orgId, mon, { ...range, limit: 100 })).toEqual(before);
    expect(await getResult(sql, orgId, mon, before.items[7]!.id)).toEqual(before.items[7]!);
    expect((await storeResults(sql, rows.slice(5, 8))).inserted).toEqual([]);
    expect((await listResults(sql, orgId, mon, { ...range, limit: 1 })).total).toBe(21);
  });
});

it("gives a result the same id on both storage paths", async () => {
  const ids = async (sql: Sql) => (await listResults(sql, orgId, mon, { ...range, limit: 100 })).items.map((r) => r.id);
  const [a, b] = await Promise.all([ids(plain.sql), ids(ts.sql)]);
  expect(a).toHaveLength(21);
  expect(b).toEqual(a);
});

it("derives the id exactly as migration 20261126110000 did, inlined into the query that reads it", async () => {
  const sql = plain.sql;
  // The first definition, computed beside the current function on awkward due times (before 1970, sub-millisecond, time zones).
  const [diff] = await sql<{ n: number; rows: number }[]>`
    with t as (
      select 'job_' || g || repeat('x', g % 50) as job,
        '2026-11-26 12:34:56.789+00'::timestamptz - g * interval '1 day 3 hours 0.0017 s' + (g % 7) * interval '1 ms' as due
      from generate_series(-20000, 20000, 7) g
      union all values ('a', '1969-12-31 23:59:59.9995+00'::timestamptz), ('b', '2030-06-01 12:00:00.001+02'), ('', '1970-01-01 00:00:00+00')
    )
    select count(*) filter (where check_result_id(null, job, due) is distinct from (
      lpad(to_hex(floor(extract(epoch from due) * 1000)::bigint), 12, '0') || '7' || substr(md5(job), 14, 3)
      || to_hex(8 | (('x' || substr(md5(job), 17, 1))::bit(4)::integer & 3)) || substr(md5(job), 18, 15))::uuid)::int as n,
      count(*)::int as rows
    from t`;
  expect(diff).toEqual({ n: 0, rows: 5715 + 3 });
  const plan = await sql<{ "QUERY PLAN": string }[]>`explain verbose select check_result_id(id, job_id, scheduled_at) from check_results`;
  const text = plan.map((r) => r["QUERY PLAN"]).join("\n");
  expect(text).toContain("md5(");
  expect(text).not.toContain("check_result_id(");
});
