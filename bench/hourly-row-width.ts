/**
 * What the width of an hourly rollup row costs the closer's step (plain PostgreSQL). The step updates one hourly row
 * per series each minute ("The closer's step, taken apart" in docs/performance.md); a row is ~350 bytes, 188 of them
 * the 47-bucket duration histogram (`integer[]`). Three scratch tables of `rows` rows, keyed and filled like
 * check_results_hourly (fillfactor 45): `wide` as today, `narrow` without the histogram, `sparse` with a 6-byte
 * `bytea` in its place (what a sparse encoding of a series' few occupied buckets would take). Each round updates
 * every row of each table once through the key, joined to a list of the series as the closer's upsert is (the
 * counters added, the histogram written back as it was), in rotating order; prints each table's step times and
 * CPU of the backend (/proc/<pid>/schedstat: this machine's PostgreSQL must be local).
 * Usage: bun bench/hourly-row-width.ts [rows=100000] [rounds=4] (TEST_DATABASE_URL; a database of its own)
 */
import { readFileSync } from "node:fs";
import { createSql } from "../db/client.ts";
import { createTestDatabase } from "../tests/support/db.ts";

const ROWS = Number(process.argv[2] ?? 100_000);
const ROUNDS = Number(process.argv[3] ?? 4);
const TABLES = ["wide", "narrow", "sparse"] as const;
type Table = (typeof TABLES)[number];

const db = await createTestDatabase();
const conn = createSql(db.url, { max: 1 });
const cpuNs = (pid: number) => Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]);
try {
  const [{ pid }] = await conn<{ pid: number }[]>`select pg_backend_pid() as pid`;
  await conn.unsafe(`
    create table h_wide (org_id text, monitor_id text, location text, bucket timestamptz, total int, up int, down int,
      degraded int, timeout int, unavailable int, duration_sum bigint, duration_max int, hist int[],
      primary key (org_id, monitor_id, bucket, location)) with (fillfactor = 45);
    create table h_narrow (like h_wide including all) with (fillfactor = 45);
    alter table h_narrow drop column hist;
    create table h_sparse (like h_narrow including all) with (fillfactor = 45);
    alter table h_sparse add column hist bytea;
    create table series as select 'org_01a2234ce6d470ff8aa3988e71c95f31'::text as org_id, 'mon_' || md5(i::text) as monitor_id,
      'local'::text as location, date_trunc('hour', now()) as bucket from generate_series(1, ${ROWS}) i;
    insert into h_wide select s.*, 3, 3, 0, 0, 0, 0, 100, 40,
      (select array_agg(case when k in (10, 11, 12) then 1 else 0 end) from generate_series(0, 46) k) from series s;
    insert into h_narrow select s.*, 3, 3, 0, 0, 0, 0, 100, 40 from series s;
    insert into h_sparse select s.*, 3, 3, 0, 0, 0, 0, 100, 40, '\\x0a010b010c01'::bytea from series s;`);
  await conn.unsafe("vacuum analyze h_wide, h_narrow, h_sparse, series");
  const widths: Record<Table, number> = { wide: 0, narrow: 0, sparse: 0 };
  for (const t of TABLES) {
    const [{ w }] = await conn.unsafe<{ w: number }[]>(`select avg(pg_column_size(h.*))::int as w from (select * from h_${t} limit 1000) h`);
    widths[t] = w;
  }
  const step = (t: Table) =>
    conn.unsafe(`
      update h_${t} h set total = total + 3, up = up + 3, duration_sum = duration_sum + 100${t === "narrow" ? "" : ", hist = hist"}
      from series s where h.org_id = s.org_id and h.monitor_id = s.monitor_id and h.bucket = s.bucket and h.location = s.location`);
  const ms: Record<Table, number[]> = { wide: [], narrow: [], sparse: [] };
  const cpu: Record<Table, number[]> = { wide: [], narrow: [], sparse: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < TABLES.length; i++) {
      const t = TABLES[(round + i) % TABLES.length]!;
      const c0 = cpuNs(pid);
      const t0 = performance.now();
      await step(t);
      ms[t].push(performance.now() - t0);
      cpu[t].push((cpuNs(pid) - c0) / 1e6);
    }
  }
  console.log(`hourly-row-width: ${ROWS} rows, ${ROUNDS} update steps per table, alternated`);
  for (const t of TABLES) {
    const mb = (await conn.unsafe<{ mb: number }[]>(`select (pg_relation_size('h_${t}') / 1048576.0)::float8 as mb`))[0]!.mb;
    console.log(
      `${t.padEnd(6)} | row ${widths[t]} bytes | table ${mb.toFixed(0)} MB after | step ms ${ms[t].map((x) => x.toFixed(0)).join(", ")} | backend CPU-ms ${cpu[t].map((x) => x.toFixed(0)).join(", ")}`,
    );
  }
} finally {
  await conn.end();
  await db.drop();
}
