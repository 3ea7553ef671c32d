/**
 * Result ingest throughput on plain PostgreSQL (TEST_DATABASE_URL; a database of its own, dropped
 * after): storeResults() batches into check_results with the hourly/daily rollups and monitor
 * state in the same transaction, as the ingest consumer does. Target ≥ 10,000 results/s.
 * 1,000 monitors × 3 regions, one result a minute each (so most batches update existing rollup
 * rows), 2 % redelivered duplicates, 10 % non-up statuses. Runs once with one consumer, then with
 * `workers` consumers each owning a share of the monitors (as partitioned ingest consumers would).
 * Usage: bun bench/ingest-db.ts [results=200000] [batch=1000] [workers=2]
 */
import { storeResults } from "../domain/results/ingest.ts";
import { DAY_MS } from "../domain/results/segments.ts";
import { createOrgWithMonitors, prng } from "../domain/results/test-fixtures.ts";
import type { CheckResultInput, ResultStatus } from "../domain/results/types.ts";
import { ensurePartition } from "../db/results/maintenance.ts";
import { createTestDatabase } from "../tests/support/db.ts";

const RESULTS = Number(process.argv[2] ?? 200_000);
const BATCH = Number(process.argv[3] ?? 1000);
const WORKERS = Number(process.argv[4] ?? 2);
const MONITORS = 1000;
const REGIONS = ["eu-west", "us-east", "ap-south"];

const db = await createTestDatabase();
try {
  const sql = db.sql;
  const { orgId, monitorIds } = await createOrgWithMonitors(sql, { planId: "unlimited", monitors: MONITORS });
  const start = Math.floor(Date.now() / 60_000) * 60_000 - 2 * 3_600_000;
  for (let t = start - DAY_MS; t <= start + DAY_MS; t += DAY_MS) await ensurePartition(sql, new Date(t).toISOString().slice(0, 10));

  const rand = prng(1);
  const results: CheckResultInput[] = [];
  for (let minute = 0; results.length < RESULTS; minute++) {
    for (const monitorId of monitorIds) {
      for (const location of REGIONS) {
        const t = start + minute * 60_000 + Math.floor(rand() * 1000);
        const x = rand();
        const status: ResultStatus = x < 0.9 ? "up" : x < 0.94 ? "degraded" : x < 0.97 ? "down" : x < 0.99 ? "timeout" : "unavailable";
        const r: CheckResultInput = {
          job_id: `${monitorId}.${location}.${t}`,
          org_id: orgId,
          monitor_id: monitorId,
          location,
          location_type: "region",
          scheduled_at: new Date(t),
          checked_at: new Date(t + 300 + Math.floor(rand() * 700)),
          status,
          duration_ms: Math.floor(20 + rand() * rand() * 3000),
          error: status === "down" || status === "timeout" ? `${status}: connect ECONNREFUSED` : null,
          data: { status_code: status === "down" ? 503 : 200, dns_ms: 3, connect_ms: 12, tls_ms: 25, ttfb_ms: 80 },
        };
        results.push(r);
        if (rand() < 0.02) results.push({ ...r });
      }
    }
  }
  results.length = RESULTS;

  /** Stores `rows` in batches, `workers` at a time, each worker owning the monitors with index % workers === w. */
  const run = async (rows: CheckResultInput[], workers: number) => {
    const owner = new Map(monitorIds.map((id, i) => [id, i % workers]));
    const latencies: number[] = [];
    let stored = 0;
    let changes = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: workers }, async (_, w) => {
        const mine = rows.filter((r) => owner.get(r.monitor_id) === w);
        for (let i = 0; i < mine.length; i += BATCH) {
          const b0 = performance.now();
          const out = await storeResults(sql, mine.slice(i, i + BATCH));
          latencies.push(performance.now() - b0);
          stored += out.inserted.length;
          changes += out.statusChanges.length;
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    latencies.sort((a, b) => a - b);
    const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!.toFixed(1);
    const rate = Math.round(rows.length / seconds);
    console.log(
      `ingest, ${workers} consumer${workers > 1 ? "s" : ""}: ${rows.length.toLocaleString("en")} results in batches of ${BATCH} ` +
        `(${stored.toLocaleString("en")} stored, ${(rows.length - stored).toLocaleString("en")} duplicates, ${changes.toLocaleString("en")} status changes): ` +
        `${rate.toLocaleString("en")} results/s (target ≥ 10,000) ${rate >= 10_000 ? "OK" : "SLOW"}; batch p50 ${pct(0.5)} ms, p95 ${pct(0.95)} ms`,
    );
  };
  const half = Math.floor(results.length / 2);
  await run(results.slice(0, half), 1);
  if (WORKERS > 1) await run(results.slice(half), WORKERS);
} finally {
  await db.drop();
}
