/**
 * What ingest's monitor-state statement costs PostgreSQL per check, from EXPLAIN (ANALYZE, BUFFERS, WAL) of the
 * statement itself: execution + planning time, WAL records and bytes, buffers touched. WAL and buffers do not
 * depend on the machine's load (time does). 2,000 monitors with a realistic HTTP config, every one with a state
 * already (steady state); each batch takes the next monitors in turn, 2 % of results change the status.
 * Usage: bun bench/monitor-state.ts [batch sizes=5,25,200] [checks per size=2000] (TEST_DATABASE_URL; a database of its own)
 */
import { monitorStateStatement, type MonitorStateUpdate } from "../db/queries/results.ts";
import { createOrgWithMonitors } from "../domain/results/test-fixtures.ts";
import { createTestDatabase } from "../tests/support/db.ts";

const SIZES = (process.argv[2] ?? "5,25,200").split(",").map(Number);
const CHECKS = Number(process.argv[3] ?? 2000);
const MONITORS = 2000;

interface Explained {
  "Planning Time": number;
  "Execution Time": number;
  Plan: { "WAL Records": number; "WAL Bytes": number; "Shared Hit Blocks": number; "Shared Read Blocks": number; "Shared Dirtied Blocks": number };
}

const db = await createTestDatabase();
try {
  const sql = db.sql;
  const { orgId, monitorIds } = await createOrgWithMonitors(sql, { planId: "unlimited", monitors: MONITORS });
  const config = { url: "https://service.example.com/health", method: "GET", headers: { "User-Agent": "watchpost", Accept: "*/*" }, expected_status: ["200-299"] };
  await sql`update monitors set config = ${sql.json(config)}, tags = '{prod,api}', regions = '{local}'`;
  let at = Date.now() - 86_400_000;
  let next = 0;
  const batch = (size: number): MonitorStateUpdate[] =>
    Array.from({ length: size }, () => {
      const i = next++ % MONITORS;
      at += 10;
      return { org_id: orgId, monitor_id: monitorIds[i]!, status: Math.random() < 0.02 ? "down" : "up", checked_at: new Date(at), duration_ms: 40 + (i % 100) };
    });
  for (let i = 0; i < (2 * MONITORS) / 100; i++) await monitorStateStatement(sql, batch(100));
  await sql`vacuum analyze monitors`;
  const load = async () => (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ");
  for (const size of SIZES) {
    const sum = { ms: 0, walRecords: 0, walBytes: 0, buffers: 0, dirtied: 0 };
    const batches = Math.max(1, Math.round(CHECKS / size));
    for (let i = 0; i < batches; i++) {
      const [row] = await sql<{ "QUERY PLAN": Explained[] }[]>`explain (analyze, buffers, wal, format json) ${monitorStateStatement(sql, batch(size))}`;
      const p = row!["QUERY PLAN"][0]!;
      sum.ms += p["Planning Time"] + p["Execution Time"];
      sum.walRecords += p.Plan["WAL Records"];
      sum.walBytes += p.Plan["WAL Bytes"];
      sum.buffers += p.Plan["Shared Hit Blocks"] + p.Plan["Shared Read Blocks"];
      sum.dirtied += p.Plan["Shared Dirtied Blocks"];
    }
    const n = batches * size;
    console.log(
      `monitor state, batches of ${String(size).padStart(3)}: per check ${((sum.ms / n) * 1000).toFixed(1)} µs (planning + execution), ` +
        `${(sum.walRecords / n).toFixed(2)} WAL records, ${(sum.walBytes / n).toFixed(0)} WAL bytes, ${(sum.buffers / n).toFixed(1)} buffers, ` +
        `${(sum.dirtied / n).toFixed(2)} dirtied | load average ${await load()}`,
    );
  }
} finally {
  await db.drop();
}
process.exit(0);
