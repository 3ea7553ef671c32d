import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { Registry } from "prom-client";
import { createMemoryBus, type Bus, type ConsumerHandle } from "../../core/bus/index.ts";
import { SecretBox } from "../../core/crypto/secrets.ts";
import { createLogger } from "../../core/log.ts";
import { regionSubject, type CheckResultMessage } from "../../schemas/messages/check-messages.ts";
import { startWorker, type WorkerHandle } from "../../runner/cloud/worker.ts";
import { startScheduler, type SchedulerHandle } from "../../scheduler/start.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { insertMonitors, insertOrg, until } from "../support/scheduling.ts";

/*
 * Past capacity: a worker running 2 checks at once against a target that answers after 500 ms runs at most
 * 4 checks a second; 80 monitors at a 10 s interval ask for 8. The schedule must slip evenly (every monitor
 * still checked) with no `unavailable` storm, a bounded queue, one warn line and the overload metric, and
 * come back when the load drops.
 */
const REGION = `overload-${Math.random().toString(36).slice(2, 8)}`;
const CONCURRENCY = 2;
const MONITORS = 80;

let db: TestDatabase;
let bus: Bus;
let target: ReturnType<typeof Bun.serve>;
let results: ConsumerHandle;
let worker: WorkerHandle;
let scheduler: SchedulerHandle;
let presence: ReturnType<typeof setInterval>;
const registry = new Registry();
const logLines: { level: number; op?: string; msg: string; region?: string }[] = [];
const seen: CheckResultMessage[] = [];

const log = createLogger({
  level: "info",
  format: "json",
  destination: {
    write(line: string) {
      logLines.push(JSON.parse(line));
    },
  },
});

/** The region's workers as their beats would record them (this test runs no ingest). */
const beat = () => db.sql`
  insert into region_workers (worker_id, region, version, concurrency, started_at, last_seen_at)
  values (${`${REGION}/test`}, ${REGION}, 'test', ${CONCURRENCY}, now(), now())
  on conflict (worker_id) do update set last_seen_at = now()`;

async function gauge(name: string): Promise<number> {
  const metric = await registry.getSingleMetric(name)?.get();
  return metric?.values.find((v) => v.labels.region === REGION)?.value ?? 0;
}
const overloadLines = (level: number) => logLines.filter((l) => l.op === "scheduler.overload" && l.level === level && l.region === REGION);

beforeAll(async () => {
  db = await createTestDatabase();
  target = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch() {
      await Bun.sleep(500);
      return new Response("ok");
    },
  });
  bus = createMemoryBus();
  await bus.ensureTopology({ resultDurables: [{ name: "overload-test" }] });
  results = await bus.consumeResults<CheckResultMessage>("overload-test", { batchSize: 100, maxWaitMs: 50 }, (batch) => {
    for (const d of batch) seen.push(d.data);
  });
  await beat();
  presence = setInterval(() => void beat().catch(() => {}), 2000);
}, 60_000);

afterAll(async () => {
  clearInterval(presence);
  await scheduler?.stop();
  await worker?.stop();
  await results?.stop();
  await bus?.close();
  target?.stop(true);
  await db?.drop();
}, 60_000);

describe("the scheduler past its region's capacity", () => {
  it("slips the schedule evenly instead of collapsing, says so once, and recovers when the load drops", async () => {
    const org = await insertOrg(db.sql);
    const ids = await insertMonitors(
      db.sql,
      org,
      Array.from({ length: MONITORS }, (_, i) => ({ interval_seconds: 10, timeout_ms: 5000, regions: [REGION], config: { url: `http://127.0.0.1:${target.port}/m/${i}` } })),
    );
    worker = await startWorker({ bus, box: new SecretBox("overload-test-secret-key-0123456789abcdef"), log, region: REGION, concurrency: CONCURRENCY, allowPrivate: true, shutdownGraceMs: 1000 });
    scheduler = await startScheduler({ sql: db.sql, databaseUrl: db.url, bus, log, registry, lockRetryMs: 200, queueSeconds: 5 });

    await until(async () => (await gauge("watchpost_scheduler_overloaded")) === 1, 90_000, "the overload metric");
    expect(overloadLines(40)).toHaveLength(1);

    // A window of 45 s at 2× capacity: each monitor's turn comes about every 20 s.
    const from = Date.now();
    let maxQueued = 0;
    while (Date.now() - from < 45_000) {
      maxQueued = Math.max(maxQueued, await bus.pendingJobs(regionSubject(REGION)));
      await Bun.sleep(250);
    }
    const checked = new Set(seen.filter((r) => r.status === "up" && r.checked_at >= from).map((r) => r.monitor_id));
    expect(ids.filter((id) => !checked.has(id))).toEqual([]);
    // The queue holds what runs plus a few seconds of work, not a growing pile of jobs bound to expire.
    expect(maxQueued).toBeLessThanOrEqual(60);
    expect(seen.filter((r) => r.status === "unavailable").length).toBeLessThanOrEqual(5);
    expect(await gauge("watchpost_scheduler_schedule_lag_seconds")).toBeGreaterThan(0);
    expect(overloadLines(40)).toHaveLength(1);

    // The load drops to a quarter of the capacity: the line drains, the metric goes back to 0, one info line.
    await db.sql`update monitors set paused = true, updated_at = now() where id = any(${ids.slice(10)})`;
    await until(async () => (await gauge("watchpost_scheduler_overloaded")) === 0, 90_000, "the end of the overload");
    expect(overloadLines(30)).toHaveLength(1);
    expect(overloadLines(40)).toHaveLength(1);
    expect(await gauge("watchpost_scheduler_schedule_lag_seconds")).toBe(0);
    const after = Date.now();
    await until(() => ids.slice(0, 10).every((id) => seen.some((r) => r.monitor_id === id && r.status === "up" && r.checked_at >= after)), 30_000, "checks after recovery");
    expect(seen.filter((r) => r.status === "unavailable").length).toBeLessThanOrEqual(5);
  }, 300_000);
});
