/**
 * Results ingested per second end to end: results published on NATS JetStream (RESULTS stream,
 * `results.<org>.<monitor>`), consumed by the ingest durable exactly as `bun run alerting` runs it
 * (startIngest: batch insert, rollups, monitor status, live events), stored in PostgreSQL.
 * 1,000 monitors × 3 regions, one result a minute each, 10 % non-up. The results are published
 * first (a backlog, as after an outage or under a burst); the clock runs from starting the ingest
 * consumers until they have handled the last one. bench/ingest-db.ts measures the database part
 * alone (with redelivered duplicates).
 * Usage: bun bench/ingest.ts [--results 100000] [--consumers 1] [--batch 1000] [--parallel 2]
 * (--parallel: transactions per batch, each owning a share of the monitors, as startIngest does)
 * (NATS_URL / TEST_DATABASE_URL: defaults on loopback; a database and stream prefix of its own, removed after)
 */
import { parseArgs } from "node:util";
import { Registry } from "prom-client";
import { startIngest } from "../alerting/ingest/ingest.ts";
import { connectNatsBus, type Bus } from "../core/bus/index.ts";
import { type CheckResultMessage, resultSubject } from "../schemas/messages/check-messages.ts";
import { silentLogger } from "../core/log.ts";
import { DAY_MS } from "../domain/results/segments.ts";
import { createOrgWithMonitors, prng } from "../domain/results/test-fixtures.ts";
import { ensurePartition } from "../db/results/maintenance.ts";
import { createTestDatabase } from "../tests/support/db.ts";
import { dropNatsStreams, NATS_URL, natsPrefix } from "../tests/support/scheduling.ts";

const { values } = parseArgs({
  options: { results: { type: "string", default: "100000" }, consumers: { type: "string", default: "1" }, batch: { type: "string", default: "1000" }, parallel: { type: "string", default: "2" } },
});
const RESULTS = Number(values.results);
const CONSUMERS = Number(values.consumers);
const BATCH = Number(values.batch);
const MONITORS = 1000;
const REGIONS = ["eu-west", "us-east", "ap-south"];
const PUBLISH_WINDOW = 2000;

const db = await createTestDatabase();
const prefix = natsPrefix("bi");
const buses: Bus[] = [];
try {
  const { orgId, monitorIds } = await createOrgWithMonitors(db.sql, { planId: "unlimited", monitors: MONITORS });
  const start = Math.floor(Date.now() / 60_000) * 60_000 - 2 * 3_600_000;
  for (let t = start - DAY_MS; t <= start + DAY_MS; t += DAY_MS) await ensurePartition(db.sql, new Date(t).toISOString().slice(0, 10));

  const rand = prng(7);
  const messages: CheckResultMessage[] = [];
  for (let minute = 0; messages.length < RESULTS; minute++) {
    for (const monitorId of monitorIds) {
      for (const location of REGIONS) {
        const t = start + minute * 60_000 + Math.floor(rand() * 1000);
        const x = rand();
        const status = x < 0.9 ? "up" : x < 0.94 ? "degraded" : x < 0.97 ? "down" : x < 0.99 ? "timeout" : "unavailable";
        const m: CheckResultMessage = {
          id: `${monitorId}.${location}.${t}`,
          org_id: orgId,
          monitor_id: monitorId,
          location,
          location_type: "region",
          scheduled_at: t,
          checked_at: t + 300 + Math.floor(rand() * 700),
          status,
          duration_ms: Math.floor(20 + rand() * rand() * 3000),
          error: status === "down" || status === "timeout" ? `${status}: connect ECONNREFUSED` : null,
          data: { status_code: status === "down" ? 503 : 200, dns_ms: 3, connect_ms: 12, tls_ms: 25, ttfb_ms: 80 },
        };
        messages.push(m);
      }
    }
  }
  messages.length = RESULTS;
  const expected = messages.length;

  // The stream and the ingest durable exist before anything is published, as in a deployment.
  const publisher = await connectNatsBus({ url: NATS_URL, prefix });
  buses.push(publisher);
  await publisher.ensureTopology({ resultDurables: [{ name: "ingest" }] });
  const p0 = performance.now();
  for (let i = 0; i < messages.length; i += PUBLISH_WINDOW) {
    await Promise.all(messages.slice(i, i + PUBLISH_WINDOW).map((m) => publisher.publishResult(resultSubject(m.org_id, m.monitor_id), m)));
  }
  const published = messages.length;
  const publishSeconds = (performance.now() - p0) / 1000;

  const registry = new Registry();
  const consumers = [];
  const t0 = performance.now();
  for (let i = 0; i < CONSUMERS; i++) {
    const bus = await connectNatsBus({ url: NATS_URL, prefix });
    buses.push(bus);
    consumers.push(await startIngest({ sql: db.sql, bus, log: silentLogger, registry, batchSize: BATCH, parallel: Number(values.parallel) }));
  }
  const counted = async () => (await registry.getSingleMetric("watchpost_ingest_results_total")!.get()).values.reduce((n, v) => n + v.value, 0);
  const deadline = Date.now() + 300_000;
  while ((await counted()) < published && Date.now() < deadline) await Bun.sleep(50);
  const seconds = (performance.now() - t0) / 1000;
  const [row] = await db.sql<{ n: number }[]>`select count(*)::int as n from check_results`;
  const batches = await registry.getSingleMetric("watchpost_ingest_batch_seconds")!.get();
  const batchCount = batches.values.find((v) => (v as { metricName?: string }).metricName?.endsWith("_count"))?.value ?? 0;
  const rate = Math.round(published / seconds);
  for (const c of consumers) await c.stop();
  console.log(
    `ingest over NATS, ${CONSUMERS} consumer${CONSUMERS > 1 ? "s" : ""} × ${values.parallel} transaction${values.parallel === "1" ? "" : "s"} per batch: ${published.toLocaleString("en")} results published in ${publishSeconds.toFixed(1)} s, ` +
      `then ingested in ${seconds.toFixed(1)} s in ${batchCount} batches: ${rate.toLocaleString("en")} results/s (target ≥ 10,000) ${rate >= 10_000 ? "OK" : "SLOW"}; ` +
      `${row!.n.toLocaleString("en")} stored of ${expected.toLocaleString("en")} distinct jobs ${row!.n === expected ? "(exactly once)" : "(MISMATCH)"}`,
  );
} finally {
  for (const b of buses) await b.close();
  await dropNatsStreams([prefix]);
  await db.drop();
}
