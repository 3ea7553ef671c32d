/**
 * What each of ingest's statements costs PostgreSQL per stored check, as the CPU time of the backend
 * that runs it (/proc/<pid>/schedstat, nanoseconds: this machine's PostgreSQL must be local). Steady
 * state of the all-in-one at `monitors` monitors checked every 20 s: every rollup and monitor-state row
 * exists already, each batch holds the next `batch` monitors' results (about 60 at 10,000 monitors:
 * 500 checks/s, a 250 ms batch wait, two parallel transactions), 1 % change status. Plain
 * PostgreSQL's rollup watermark starts at the first due time: ingest reads it under its shared lock and
 * upserts rollups only for late results (none here), and the closer (closeRollups, on the same
 * backend, its clock the newest due time) rolls the rest up a minute at a time; its cost per result
 * closed and per step is printed on a line of its own.
 * Blocks each index of check_results read into shared buffers per check are printed too: an index whose hot pages
 * outgrow shared_buffers reads about one per insert. `key=job` measures the raw results' unique key as it was before
 * migration 20261127140000, (job_id, scheduled_at), against today's (scheduled_at, job_id). The per-monitor indexes:
 * today one, (org_id, monitor_id, scheduled_at desc); `indexes=two` adds back (monitor_id, location, scheduled_at desc)
 * as before migration 20261127180000; `indexes=one` has (monitor_id, scheduled_at desc, location) alone instead.
 * Usage: bun bench/ingest-statements.ts [monitors=10000] [batch=60] [checks=30000] [key=due|job] [indexes=org|two|one]
 * (TEST_DATABASE_URL; a database of its own)
 */
import { readFileSync } from "node:fs";
import { createSql } from "../db/client.ts";
import { addToRollups, insertResults, updateMonitorStates, type MonitorStateUpdate, type ResultRecord } from "../db/queries/results.ts";
import { ensurePartition } from "../db/results/maintenance.ts";
import { lockRollupWatermarkShared } from "../db/results/rollup-watermark.ts";
import { closeRollups } from "../domain/results/rollup-closer.ts";
import { rollupDeltas } from "../domain/results/rollup-deltas.ts";
import { createOrgWithMonitors } from "../domain/results/test-fixtures.ts";
import { createTestDatabase } from "../tests/support/db.ts";
import { rawIndexesOf, setRawIndexes } from "./lib/raw-indexes.ts";

const MONITORS = Number(process.argv[2] ?? 10_000);
const BATCH = Number(process.argv[3] ?? 60);
const CHECKS = Number(process.argv[4] ?? 30_000);
const KEY = process.argv[5] ?? "due";
if (KEY !== "due" && KEY !== "job") throw new Error(`key is due or job, not ${KEY}`);
const INDEXES = rawIndexesOf(process.argv[6] ?? "org");
const INTERVAL_MS = 20_000;

const db = await createTestDatabase();
const conn = createSql(db.url, { max: 1 });
try {
  if (KEY === "job") {
    const migration = readFileSync(new URL("../db/migrations/20261127140000_check_results_key_due_first.sql", import.meta.url), "utf8");
    await db.sql.unsafe(migration.split("-- migrate:down")[1]!);
  }
  await setRawIndexes(db.sql, INDEXES);
  const { orgId, monitorIds } = await createOrgWithMonitors(db.sql, { planId: "unlimited", monitors: MONITORS, intervalSeconds: 20 });
  // A minute before a whole hour: the closer's first step ends that hour and writes the daily rows too.
  const start = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3 * 3_600_000 - 60_000;
  for (const d of [-1, 0, 1]) await ensurePartition(db.sql, new Date(start + d * 86_400_000).toISOString().slice(0, 10));
  // A fresh database holds no results: the watermark may start at the first due time.
  await db.sql`update rollup_watermark set closed_through = ${new Date(start)}`;
  const [{ pid }] = (await conn`select pg_backend_pid() as pid`) as unknown as [{ pid: number }];
  const cpuNs = () => Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]);

  let next = 0;
  let lastDue = start;
  const batch = (): ResultRecord[] =>
    Array.from({ length: BATCH }, () => {
      const n = next++;
      const i = n % MONITORS;
      const due = start + Math.floor(n / MONITORS) * INTERVAL_MS + Math.floor((i * INTERVAL_MS) / MONITORS);
      const status = Math.random() < 0.01 ? "down" : "up";
      lastDue = Math.max(lastDue, due);
      return {
        job_id: `job_${monitorIds[i]}_${due}`,
        org_id: orgId,
        monitor_id: monitorIds[i]!,
        location: "local",
        location_type: "region" as const,
        scheduled_at: new Date(due).toISOString(),
        checked_at: new Date(due + 40).toISOString(),
        status,
        duration_ms: 20 + (n % 300),
        error: status === "down" ? "HTTP 503" : null,
        data: { status_code: status === "down" ? 503 : 200, dns_ms: 1, connect_ms: 2, tls_ms: 0, ttfb_ms: 12, size_bytes: 1432 },
      };
    });
  // Blocks each index of check_results read into shared buffers so far (every partition's index under its parent's name).
  const indexReads = async () => {
    await conn`select pg_stat_force_next_flush()`; // the bench's backend reports its counts as it goes idle
    await Bun.sleep(50);
    const rows = await db.sql<{ name: string; reads: string }[]>`
      select coalesce(parent.relname, s.indexrelname) as name, sum(s.idx_blks_read)::text as reads
      from pg_statio_user_indexes s
      left join pg_inherits i on i.inhrelid = s.indexrelid
      left join pg_class parent on parent.oid = i.inhparent
      where s.relname like 'check_results_p%'
      group by 1 order by 1`;
    return new Map(rows.map((r) => [r.name, Number(r.reads)]));
  };
  const sums = { watermark: 0, insert: 0, rollups: 0, state: 0, commit: 0 };
  const steps: { cpuMs: number; wallMs: number; heldMs: number; results: number; endsHour: boolean }[] = [];
  let closedThrough = start;
  const store = async (rows: ResultRecord[]) => {
    let t = cpuNs();
    const lap = (k: keyof typeof sums) => {
      const now = cpuNs();
      sums[k] += now - t;
      t = now;
    };
    await conn.begin(async (tx) => {
      lap("commit"); // begin
      const watermark = await lockRollupWatermarkShared(tx as never);
      lap("watermark");
      const inserted = await insertResults(tx as never, rows);
      lap("insert");
      const { hourly, daily } = rollupDeltas(inserted.filter((r) => r.scheduled_at < watermark));
      await addToRollups(tx as never, hourly, daily);
      lap("rollups");
      const latest = inserted.map((r): MonitorStateUpdate => ({ org_id: r.org_id, monitor_id: r.monitor_id, status: r.status as "up", checked_at: r.checked_at, duration_ms: r.duration_ms }));
      await updateMonitorStates(tx as never, latest);
      lap("state");
    });
    lap("commit");
    // The closer as housekeeping runs it (30 s grace, one-minute steps), whenever a step is due.
    if (lastDue + 40 - 30_000 >= closedThrough + 60_000) await closeSteps(lastDue + 40);
  };
  const closeSteps = async (now: number) => {
    for (;;) {
      const [cpu, wall] = [cpuNs(), performance.now()];
      const c = await closeRollups(conn as never, new Date(now), { maxSteps: 1 });
      if (c.steps === 0) return;
      const endsHour = c.closedThrough!.getTime() % 3_600_000 === 0;
      steps.push({ cpuMs: (cpuNs() - cpu) / 1e6, wallMs: performance.now() - wall, heldMs: c.lockHeldMs ?? 0, results: c.results, endsHour });
      closedThrough = c.closedThrough!.getTime();
    }
  };
  // Warm-up: two rounds, so every rollup and state row exists and the statements are planned and cached.
  while (next < 2 * MONITORS) await store(batch());
  await db.sql`vacuum analyze check_results, check_results_hourly, check_results_daily, monitor_state`;
  for (const k of Object.keys(sums) as (keyof typeof sums)[]) sums[k] = 0;
  const readsBefore = await indexReads();
  const first = next;
  while (next - first < CHECKS) await store(batch());
  const n = next - first;
  const us = (ns: number) => (ns / n / 1000).toFixed(1).padStart(6);
  const total = sums.watermark + sums.insert + sums.rollups + sums.state + sums.commit;
  const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  console.log(
    `ingest statements, ${MONITORS} monitors, batches of ${BATCH}, ${n} checks, key ${KEY === "due" ? "(scheduled_at, job_id)" : "(job_id, scheduled_at)"}: PostgreSQL CPU-µs per check: watermark ${us(sums.watermark)} | insert ${us(sums.insert)} | late rollups ${us(sums.rollups)} | ` +
      `state ${us(sums.state)} | begin+commit ${us(sums.commit)} | total ${us(total)} | load average ${load}`,
  );
  const readsAfter = await indexReads();
  console.log(
    `  blocks read into shared buffers per check, by index of check_results (shared_buffers ${(await db.sql`show shared_buffers`)[0]!.shared_buffers}): ` +
      [...readsAfter].map(([name, r]) => `${name} ${((r - (readsBefore.get(name) ?? 0)) / n).toFixed(2)}`).join(" | "),
  );
  // The rest, for the closer's figures: every whole minute due so far.
  await closeSteps(lastDue + 30_000 + 60_000);
  const within = steps.filter((x) => !x.endsHour);
  const cpuMs = within.reduce((a, x) => a + x.cpuMs, 0);
  const results = within.reduce((a, x) => a + x.results, 0);
  console.log(
    `closer, ${steps.length} steps: PostgreSQL CPU-µs per result closed ${((cpuMs * 1000) / results).toFixed(1)} (steps within an hour); ` +
      `per step (CPU ms / wall ms / ms holding ingest's lock / results; * ends an hour, daily rows too): ${steps.map((x) => `${x.endsHour ? "*" : ""}${x.cpuMs.toFixed(0)}/${x.wallMs.toFixed(0)}/${x.heldMs.toFixed(0)}/${x.results}`).join(", ")}`,
  );
} finally {
  await conn.end();
  await db.drop();
}
process.exit(0);
