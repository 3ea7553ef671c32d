/**
 * Uptime read figures on plain PostgreSQL (TEST_DATABASE_URL; a database of its own, dropped after):
 * 50 monitors with one result a minute for 90 days (~130,000 rows each, 6.5 M in all), loaded
 * with COPY into daily partitions and rolled up from raw rows. Prints the median of warm runs for
 *  1. one monitor: 90-day uptime + 90 daily aggregates (target < 10 ms);
 *  2. a page of 50 monitors: 90-day uptime + 90-day bars (target < 100 ms).
 * Usage: bun bench/uptime.ts [monitors=50] [days=90] [runs=25]   (BENCH_KEEP_DB=1 keeps the database)
 */
import type { Sql } from "../db/client.ts";
import { closeRollups } from "../domain/results/rollup-closer.ts";
import { rebuildRollups } from "../domain/results/rollups.ts";
import { DAY_MS } from "../domain/results/segments.ts";
import { createOrgWithMonitors, prng } from "../domain/results/test-fixtures.ts";
import { aggregates, dailyBars, uptime, uptimeForMonitors } from "../domain/results/uptime.ts";
import { ensurePartition } from "../db/results/maintenance.ts";
import { createTestDatabase } from "../tests/support/db.ts";

const MONITORS = Number(process.argv[2] ?? 50);
const DAYS = Number(process.argv[3] ?? 90);
const RUNS = Number(process.argv[4] ?? 25);

const esc = (v: string | null) => (v === null ? "\\N" : v.replace(/\\/g, "\\\\").replace(/\t/g, "\\t").replace(/\n/g, "\\n"));

/** COPYs one result a minute over [start, end) for one monitor, in one stream. */
async function copyMonitor(sql: Sql, orgId: string, monitorId: string, start: number, end: number, seed: number): Promise<number> {
  const rand = prng(seed);
  const stream = await sql`copy check_results (id, job_id, org_id, monitor_id, location, location_type, scheduled_at, checked_at, status, duration_ms, error, data) from stdin`.writable();
  let n = 0;
  let chunk = "";
  for (let t = start; t < end; t += 60_000, n++) {
    const x = rand();
    const status = x < 0.97 ? "up" : x < 0.98 ? "degraded" : x < 0.99 ? "down" : x < 0.995 ? "timeout" : "unavailable";
    const ms = status === "unavailable" ? 0 : Math.floor(20 + rand() * rand() * 2000);
    const error = status === "down" || status === "timeout" ? status : null;
    chunk += `\\N\tjob_${monitorId}_${t}\t${orgId}\t${monitorId}\teu-west\tregion\t${new Date(t).toISOString()}\t${new Date(t + 900).toISOString()}\t${status}\t${ms}\t${esc(error)}\t{"status_code": 200}\n`;
    if (chunk.length > 1 << 20) {
      if (!stream.write(chunk)) await new Promise((r) => stream.once("drain", r));
      chunk = "";
    }
  }
  await new Promise<void>((resolve, reject) => stream.end(chunk, (err?: Error | null) => (err ? reject(err) : resolve())));
  return n;
}

async function median(label: string, target: number, fn: () => Promise<unknown>): Promise<void> {
  for (let i = 0; i < 3; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const med = times[Math.floor(times.length / 2)]!;
  const verdict = Number.isFinite(target) ? `target < ${target} ms: ${med < target ? "OK" : "SLOW"}` : "for comparison";
  console.log(`${label.padEnd(58)} median ${med.toFixed(2).padStart(7)} ms  (min ${times[0]!.toFixed(2)}, max ${times.at(-1)!.toFixed(2)}; ${verdict})`);
}

const db = await createTestDatabase();
try {
  const sql = db.sql;
  const now = new Date();
  const end = Math.floor(now.getTime() / 60_000) * 60_000;
  const start = end - DAYS * DAY_MS;
  const { orgId, monitorIds } = await createOrgWithMonitors(sql, { planId: "unlimited", monitors: MONITORS });
  for (let t = start - DAY_MS; t <= end + DAY_MS; t += DAY_MS) await ensurePartition(sql, new Date(t).toISOString().slice(0, 10));

  let t0 = performance.now();
  let rows = 0;
  // Two COPY streams at a time: one per core.
  for (let i = 0; i < monitorIds.length; i += 2) {
    const counts = await Promise.all(monitorIds.slice(i, i + 2).map((id, j) => copyMonitor(sql, orgId, id, start, end, i + j + 1)));
    rows += counts.reduce((a, b) => a + b, 0);
  }
  const loadS = (performance.now() - t0) / 1000;
  t0 = performance.now();
  for (let i = 0; i < monitorIds.length; i += 10) await rebuildRollups(sql, orgId, monitorIds.slice(i, i + 10), new Date(start), new Date(end));
  // Plain PostgreSQL: the rollups closed up to where the scheduler's closer keeps them (30 s to 90 s behind now).
  await closeRollups(sql, new Date(), { maxSteps: 1_000_000 });
  await sql`vacuum analyze check_results`;
  await sql`vacuum analyze check_results_hourly`;
  await sql`vacuum analyze check_results_daily`;
  console.log(`loaded ${rows.toLocaleString("en")} results for ${MONITORS} monitors over ${DAYS} days with COPY in ${loadS.toFixed(1)} s (${Math.round(rows / loadS).toLocaleString("en")}/s); rollups + analyze ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const one = monitorIds[0]!;
  const range = { from: new Date(now.getTime() - DAYS * DAY_MS), to: now };
  await median(`one monitor: ${DAYS}-day uptime`, 10, () => uptime(sql, orgId, one, range));
  await median(`one monitor: ${DAYS} daily aggregates (avg, p50, p95, max)`, 10, () => aggregates(sql, orgId, one, { bucket: "day", ...range }));
  await median(`one monitor: ${DAYS}-day uptime + daily aggregates`, 10, async () => {
    await uptime(sql, orgId, one, range);
    await aggregates(sql, orgId, one, { bucket: "day", ...range });
  });
  await median(`page of ${MONITORS}: ${DAYS}-day uptime (one query)`, 100, () => uptimeForMonitors(sql, orgId, monitorIds, range));
  await median(`page of ${MONITORS}: ${DAYS}-day bars`, 100, () => dailyBars(sql, orgId, monitorIds, { days: DAYS, now }));
  await median(`page of ${MONITORS}: ${DAYS}-day uptime + ${DAYS}-day bars`, 100, async () => {
    await uptimeForMonitors(sql, orgId, monitorIds, range);
    await dailyBars(sql, orgId, monitorIds, { days: DAYS, now });
  });
  await median(`raw rows only (reference): one monitor ${DAYS}-day uptime`, Number.POSITIVE_INFINITY, () => uptime(sql, orgId, one, { ...range, source: "raw" }));
} finally {
  if (process.env.BENCH_KEEP_DB) console.log(`kept ${db.url}`);
  else await db.drop();
}
