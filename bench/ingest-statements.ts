/**
 * What each of ingest's statements costs PostgreSQL per stored check, as the CPU time of the backend
 * that runs it (/proc/<pid>/schedstat, nanoseconds: this machine's PostgreSQL must be local). Steady
 * state of the all-in-one at `monitors` monitors checked every 20 s: every rollup and monitor-state row
 * exists already, each batch holds the next `batch` monitors' results (about 60 at 10,000 monitors:
 * 500 checks/s, a 250 ms batch wait, two parallel transactions), 1 % change status.
 * Usage: bun bench/ingest-statements.ts [monitors=10000] [batch=60] [checks=30000] (TEST_DATABASE_URL; a database of its own)
 */
import { readFileSync } from "node:fs";
import { createSql } from "../db/client.ts";
import { addToRollups, insertResults, updateMonitorStates, type MonitorStateUpdate, type ResultRecord } from "../db/queries/results.ts";
import { ensurePartition } from "../db/results/maintenance.ts";
import { rollupDeltas } from "../domain/results/rollup-deltas.ts";
import { createOrgWithMonitors } from "../domain/results/test-fixtures.ts";
import { createTestDatabase } from "../tests/support/db.ts";

const MONITORS = Number(process.argv[2] ?? 10_000);
const BATCH = Number(process.argv[3] ?? 60);
const CHECKS = Number(process.argv[4] ?? 30_000);
const INTERVAL_MS = 20_000;

const db = await createTestDatabase();
const conn = createSql(db.url, { max: 1 });
try {
  const { orgId, monitorIds } = await createOrgWithMonitors(db.sql, { planId: "unlimited", monitors: MONITORS, intervalSeconds: 20 });
  const start = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3 * 3_600_000;
  for (const d of [-1, 0, 1]) await ensurePartition(db.sql, new Date(start + d * 86_400_000).toISOString().slice(0, 10));
  const [{ pid }] = (await conn`select pg_backend_pid() as pid`) as unknown as [{ pid: number }];
  const cpuNs = () => Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]);

  let next = 0;
  const batch = (): ResultRecord[] =>
    Array.from({ length: BATCH }, () => {
      const n = next++;
      const i = n % MONITORS;
      const due = start + Math.floor(n / MONITORS) * INTERVAL_MS + Math.floor((i * INTERVAL_MS) / MONITORS);
      const status = Math.random() < 0.01 ? "down" : "up";
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
  const sums = { insert: 0, rollups: 0, state: 0, commit: 0 };
  const store = async (rows: ResultRecord[]) => {
    let t = cpuNs();
    const lap = (k: keyof typeof sums) => {
      const now = cpuNs();
      sums[k] += now - t;
      t = now;
    };
    await conn.begin(async (tx) => {
      lap("commit"); // begin
      const inserted = await insertResults(tx as never, rows);
      lap("insert");
      const { hourly, daily } = rollupDeltas(inserted);
      await addToRollups(tx as never, hourly, daily);
      lap("rollups");
      const latest = inserted.map((r): MonitorStateUpdate => ({ org_id: r.org_id, monitor_id: r.monitor_id, status: r.status as "up", checked_at: r.checked_at, duration_ms: r.duration_ms }));
      await updateMonitorStates(tx as never, latest);
      lap("state");
    });
    lap("commit");
  };
  // Warm-up: two rounds, so every rollup and state row exists and the statements are planned and cached.
  while (next < 2 * MONITORS) await store(batch());
  await db.sql`vacuum analyze check_results, check_results_hourly, check_results_daily, monitor_state`;
  for (const k of Object.keys(sums) as (keyof typeof sums)[]) sums[k] = 0;
  const first = next;
  while (next - first < CHECKS) await store(batch());
  const n = next - first;
  const us = (ns: number) => (ns / n / 1000).toFixed(1).padStart(6);
  const total = sums.insert + sums.rollups + sums.state + sums.commit;
  const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  console.log(
    `ingest statements, ${MONITORS} monitors, batches of ${BATCH}, ${n} checks: PostgreSQL CPU-µs per check: insert ${us(sums.insert)} | rollups ${us(sums.rollups)} | ` +
      `state ${us(sums.state)} | begin+commit ${us(sums.commit)} | total ${us(total)} | load average ${load}`,
  );
} finally {
  await conn.end();
  await db.drop();
}
process.exit(0);
