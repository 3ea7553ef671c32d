/**
 * Where the rollup closer's step spends PostgreSQL's CPU (plain PostgreSQL), measured on the backend that runs it
 * (/proc/<pid>/schedstat: this machine's PostgreSQL must be local). `monitors` monitors checked every 20 s, 25 minutes
 * of raw results written straight by SQL (3 a minute per monitor, 1 % down), every hourly rollup row present (the
 * first five minutes closed before measuring, as in steady state). Prints:
 * - the step's parts one by one, each in a transaction rolled back: the read of the first measured minute in 1, 4
 *   and 16 parts of the monitors (each part one aggregate + upsert statement over the whole minute), then the read
 *   under the lock of rows committed since (rollUpCommittedSince) and the late results (foldLateResults);
 * - closeRollups as the scheduler runs it (without its rests), over five minutes each, alternated: five one-minute
 *   steps, then one five-minute step (`stepMs`), then again: CPU per result and the longest the lock was held.
 * Usage: bun bench/closer-step.ts [monitors=50000] (TEST_DATABASE_URL; a database of its own)
 */
import { readFileSync } from "node:fs";
import { createSql } from "../db/client.ts";
import { ensurePartition } from "../db/results/maintenance.ts";
import { foldLateResults, rollUpCommitted, rollUpCommittedSince, useCloserSettings } from "../db/results/rollup-watermark.ts";
import { closeRollups } from "../domain/results/rollup-closer.ts";
import { createTestDatabase } from "../tests/support/db.ts";

const MONITORS = Number(process.argv[2] ?? 50_000);
const MINUTE = 60_000;
const db = await createTestDatabase();
const conn = createSql(db.url, { max: 1 });
try {
  // Three hours back on a whole hour: the 25 minutes stay inside one hour (no step writes daily rows).
  const start = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3 * 3_600_000;
  for (const d of [-1, 0, 1]) await ensurePartition(db.sql, new Date(start + d * 86_400_000).toISOString().slice(0, 10));
  await db.sql`insert into organisations (id, name, plan_id) values ('org_bench', 'closer bench', 'unlimited')`;
  await db.sql`
    insert into monitors (id, org_id, name, type, config, interval_seconds, timeout_ms)
    select 'mon_' || md5(i::text), 'org_bench', 'm', 'http', '{"url":"https://example.com"}', 20, 30000
    from generate_series(0, ${MONITORS - 1}) i`;
  await db.sql`update rollup_watermark set closed_through = ${new Date(start)}`;
  for (let round = 0; round < 75; round++) {
    await db.sql`
      insert into check_results (job_id, org_id, monitor_id, location, location_type, scheduled_at, checked_at, status, duration_ms, error, data)
      select 'job_mon_' || md5(i::text) || '_' || due, 'org_bench', 'mon_' || md5(i::text), 'local', 'region',
        to_timestamp(due / 1000.0), to_timestamp((due + 40) / 1000.0), case when random() < 0.01 then 'down' else 'up' end,
        20 + (i % 300), null, '{"status_code":200,"dns_ms":1,"connect_ms":2,"tls_ms":0,"ttfb_ms":12,"size_bytes":1432}'::jsonb
      from generate_series(0, ${MONITORS - 1}) i, lateral (select ${start}::bigint + ${round * 20_000} + (i::bigint * 20000 / ${MONITORS}) as due) d
      order by due`;
  }
  await db.sql`vacuum analyze check_results, check_results_hourly, check_results_daily`;
  const [{ pid }] = (await conn`select pg_backend_pid() as pid`) as unknown as [{ pid: number }];
  const cpuNs = () => Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]);
  await closeRollups(conn as never, new Date(start + 5 * MINUTE + 30_000), { stepMs: 5 * MINUTE, restRatio: 0 });
  const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

  const from = new Date(start + 5 * MINUTE);
  const to = new Date(start + 6 * MINUTE);
  for (const parts of [1, 4, 16]) {
    const laps: string[] = [];
    let t = cpuNs();
    const lap = (label: string) => {
      const now = cpuNs();
      laps.push(`${label} ${((now - t) / 1e6).toFixed(0)}`);
      t = now;
    };
    await conn
      .begin(async (tx) => {
        await useCloserSettings(tx as never);
        const snapshots: string[] = [];
        for (let part = 0; part < parts; part++) snapshots.push((await rollUpCommitted(tx as never, from, to, { part, parts })).snapshot);
        lap(`read in ${String(parts).padStart(2)} part(s)`);
        await rollUpCommittedSince(tx as never, from, to, snapshots);
        lap("since");
        await foldLateResults(tx as never, from);
        lap("late");
        throw new Error("rolled back");
      })
      .catch((err: Error) => {
        if (err.message !== "rolled back") throw err;
      });
    console.log(`closer step of one minute, ${MONITORS} monitors (${MONITORS * 3} results): PostgreSQL CPU-ms ${laps.join(" | ")} | load average ${load()}`);
  }

  for (const [first, stepMinutes] of [[5, 1], [10, 5], [15, 1], [20, 5]] as const) {
    const [cpu, wall] = [cpuNs(), performance.now()];
    const out = await closeRollups(conn as never, new Date(start + (first + 5) * MINUTE + 30_000), { stepMs: stepMinutes * MINUTE, restRatio: 0 });
    const ms = (cpuNs() - cpu) / 1e6;
    console.log(
      `closeRollups, ${stepMinutes}-minute steps over minutes ${first}-${first + 5}: ${out.steps} step(s), ${out.results} results, ` +
        `PostgreSQL ${ms.toFixed(0)} CPU-ms = ${((ms * 1000) / out.results).toFixed(2)} µs per result, wall ${(performance.now() - wall).toFixed(0)} ms, ` +
        `lock held at most ${out.lockHeldMs!.toFixed(0)} ms | load average ${load()}`,
    );
  }
} finally {
  await conn.end();
  await db.drop();
}
