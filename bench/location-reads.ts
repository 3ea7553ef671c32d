/**
 * What the reads that name a location cost with the raw results' one per-monitor index, (org_id, monitor_id,
 * scheduled_at desc), against the two before migration 20261127180000 (`indexes=two` adds back (monitor_id, location,
 * scheduled_at desc)). Plain PostgreSQL (TEST_DATABASE_URL; a database of its own, dropped after): `monitors` monitors
 * checked from three locations once a minute each for `days` days (~4,300 rows per monitor and day), loaded with
 * INSERT … SELECT into daily partitions, then analysed. Prints, per read, the median of warm runs in ms and the
 * shared buffers it touched (EXPLAIN ANALYZE, BUFFERS):
 *  - the results list filtered by location over the whole range (GET /monitors/:id/checks with `location` and no
 *    range: the retention window): a page of 50, and its total as TimescaleDB counts it over the raw rows of the last
 *    seven days, its uncompressed chunks (plain storage sums the total from the rollups, which no index here changes);
 *  - the alert timeline's checks of one location over a one-hour incident;
 *  - a certificate's previous fingerprint (the newest row of one location holding one);
 *  - the metrics scrape's latest result per location of every monitor (one organisation);
 *  - the overview's bars (the 30 newest results of every monitor, all locations): no location, for comparison.
 * Usage: bun bench/location-reads.ts [monitors=20] [days=30] [indexes=org|two|one] [runs=15]
 */
import postgres from "postgres";
import type { Sql } from "../db/client.ts";
import { previousFingerprint } from "../db/queries/alert-states.ts";
import { alertChecks } from "../db/queries/alert-timeline.ts";
import { latestResults } from "../db/queries/monitor-metrics.ts";
import { latestResultsOf } from "../db/queries/monitor-overview.ts";
import { countResults, selectResults } from "../db/queries/results.ts";
import { ensurePartition } from "../db/results/maintenance.ts";
import { DAY_MS } from "../domain/results/segments.ts";
import { createOrgWithMonitors, insertResultsEveryMinute } from "../domain/results/test-fixtures.ts";
import { createTestDatabase } from "../tests/support/db.ts";
import { rawIndexesOf, setRawIndexes } from "./lib/raw-indexes.ts";

const MONITORS = Number(process.argv[2] ?? 20);
const DAYS = Number(process.argv[3] ?? 30);
const INDEXES = rawIndexesOf(process.argv[4] ?? "org");
const RUNS = Number(process.argv[5] ?? 15);
const LOCATIONS = ["eu-west", "us-east", "ap-south"];

const db = await createTestDatabase();
const sql = db.sql;
try {
  await setRawIndexes(sql, INDEXES);
  const { orgId, monitorIds } = await createOrgWithMonitors(sql, { planId: "unlimited", monitors: MONITORS, intervalSeconds: 60 });
  const now = Math.floor(Date.now() / 60_000) * 60_000;
  const start = Math.floor(now / DAY_MS) * DAY_MS - DAYS * DAY_MS;
  for (let d = start; d <= now + DAY_MS; d += DAY_MS) await ensurePartition(sql, new Date(d).toISOString().slice(0, 10));
  const loadStart = performance.now();
  await insertResultsEveryMinute(sql, orgId, monitorIds, LOCATIONS, start, now);
  await sql`analyze check_results`;
  await sql`vacuum check_results`;
  const [{ rows }] = (await sql`select count(*)::int as rows from check_results`) as unknown as [{ rows: number }];
  console.log(
    `bench/location-reads: ${MONITORS} monitors × ${LOCATIONS.length} locations × ${DAYS} days, one a minute: ${rows.toLocaleString("en")} rows ` +
      `(loaded in ${((performance.now() - loadStart) / 1000).toFixed(0)} s); indexes=${INDEXES}`,
  );

  const mon = monitorIds[0]!;
  const loc = LOCATIONS[1]!;
  const filter = { orgId, monitorId: mon, from: new Date(start), to: new Date(now), location: loc };
  const incident = new Date(now - 5 * 3_600_000);
  const reads: [string, (s: Sql) => Promise<unknown>][] = [
    ["results list, location, page of 50", (s) => selectResults(s, filter, { limit: 50, offset: 0 })],
    ["results list, location, total over 7 days (TimescaleDB's count)", (s) => countResults(s, { ...filter, from: new Date(now - 7 * DAY_MS) })],
    ["alert timeline, one location, 1-hour incident", (s) => alertChecks(s, orgId, mon, loc, incident, new Date(incident.getTime() + 3_600_000), 3_600_000, 100)],
    ["previous certificate fingerprint", (s) => previousFingerprint(s, orgId, mon, loc, new Date(now))],
    [`metrics scrape, latest per location, ${MONITORS} monitors`, (s) => latestResults(s, orgId, 3600)],
    [`overview bars, 30 newest, ${MONITORS} monitors (no location)`, (s) => latestResultsOf(s, orgId, monitorIds, 30, new Date(now - DAY_MS))],
  ];
  for (const [name, read] of reads) {
    await read(sql);
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      await read(sql);
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    const buffers = await buffersOf(db.url, read);
    console.log(`  ${name.padEnd(66)} median ${times[Math.floor(times.length / 2)]!.toFixed(2).padStart(8)} ms  shared buffers ${String(buffers).padStart(7)}`);
  }
} finally {
  await db.drop();
}

/**
 * The shared buffers (hit + read) the read's statements touched: auto_explain logs each statement's plan with ANALYZE
 * and BUFFERS as a notice on a connection of its own.
 */
async function buffersOf(url: string, read: (s: Sql) => Promise<unknown>): Promise<number> {
  const notices: string[] = [];
  const s = postgres(url, { max: 1, onnotice: (n) => void notices.push(String(n.message ?? "")), types: { bigint: postgres.BigInt } }) as unknown as Sql;
  try {
    await s`load 'auto_explain'`;
    await s`set auto_explain.log_min_duration = 0`;
    await s`set auto_explain.log_analyze = on`;
    await s`set auto_explain.log_buffers = on`;
    await s`set auto_explain.log_format = json`;
    await s`set auto_explain.log_level = notice`;
    await read(s);
  } finally {
    await s.end();
  }
  let total = 0;
  for (const m of notices) {
    if (!m.includes("{")) continue;
    const plan = JSON.parse(m.slice(m.indexOf("{"))).Plan as { "Shared Hit Blocks"?: number; "Shared Read Blocks"?: number };
    total += (plan["Shared Hit Blocks"] ?? 0) + (plan["Shared Read Blocks"] ?? 0);
  }
  return total;
}
