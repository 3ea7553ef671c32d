import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { Registry } from "prom-client";
import { connectNatsBus, createMemoryBus, type Bus } from "../../core/bus/index.ts";
import { SecretBox } from "../../core/crypto/secrets.ts";
import { createLogger } from "../../core/log.ts";
import { regionSubject, type CheckResultMessage } from "../../schemas/messages/check-messages.ts";
import { startWorker } from "../../runner/cloud/worker.ts";
import { startScheduler } from "../../scheduler/start.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { dropNatsStreams, fastClock, insertMonitors, insertOrg, NATS_URL, natsPrefix, until } from "../support/scheduling.ts";

/*
 * Past capacity: a worker running 2 checks at once against a target that answers after 100 ms runs at most
 * 20 checks a second; 80 monitors at a 10 s interval on a clock 5 times faster than the wall's (a 2 s interval)
 * ask for 40. The schedule must slip evenly (every monitor still checked) with no `unavailable` storm, a
 * bounded queue, one warn line and the overload metric, and come back when the load drops. On the in-process
 * bus and on NATS: the same code above the Bus. The scheduler and the worker share the fast clock (due times,
 * expiry, lag, the overload's 2 s to start and 10 s to end); the bus sampling, and so SCHEDULER_QUEUE_SECONDS,
 * stay on the wall clock: 0.5 s of the worker's drain, as 5 s are at a real 20 s interval.
 */
const CONCURRENCY = 2;
const MONITORS = 80;
const SPEED = 5;
const TARGET_DELAY_MS = 100;
const WINDOW_MS = 10_000;

let db: TestDatabase;
let target: ReturnType<typeof Bun.serve>;
const prefixes: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  target = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch() {
      await Bun.sleep(TARGET_DELAY_MS);
      return new Response("ok");
    },
  });
}, 60_000);

afterAll(async () => {
  target?.stop(true);
  await db?.drop();
  if (prefixes.length) await dropNatsStreams(prefixes);
}, 60_000);

const buses: Record<string, () => Promise<Bus>> = {
  memory: async () => createMemoryBus(),
  nats: async () => {
    const prefix = natsPrefix("ovl");
    prefixes.push(prefix);
    return connectNatsBus({ url: NATS_URL, prefix });
  },
};

for (const kind of ["memory", "nats"] as const) {
  describe(`the scheduler past its region's capacity, ${kind} bus`, () => {
    it("slips the schedule evenly instead of collapsing, says so once, and recovers when the load drops", async () => {
      const region = `overload-${kind}-${Math.random().toString(36).slice(2, 8)}`;
      const clock = fastClock(SPEED);
      const registry = new Registry();
      const logLines: { level: number; op?: string; msg: string; region?: string }[] = [];
      const log = createLogger({ level: "info", format: "json", destination: { write: (line: string) => void logLines.push(JSON.parse(line)) } });
      const seen: CheckResultMessage[] = [];
      const bus = await buses[kind]!();
      await bus.ensureTopology({ resultDurables: [{ name: "overload-test" }] });
      const results = await bus.consumeResults<CheckResultMessage>("overload-test", { batchSize: 100, maxWaitMs: 50 }, (batch) => {
        for (const d of batch) seen.push(d.data);
      });
      // The region's worker as its beats would record it (this test runs no ingest).
      const beat = () => db.sql`
        insert into region_workers (worker_id, region, version, concurrency, started_at, last_seen_at)
        values (${`${region}/test`}, ${region}, 'test', ${CONCURRENCY}, now(), now())
        on conflict (worker_id) do update set last_seen_at = now()`;
      await beat();
      const presence = setInterval(() => void beat().catch(() => {}), 2000);
      const gauge = async (name: string) => (await registry.getSingleMetric(name)?.get())?.values.find((v) => v.labels.region === region)?.value ?? 0;
      const overloadLines = (level: number) => logLines.filter((l) => l.op === "scheduler.overload" && l.level === level && l.region === region);
      const unavailable = () => seen.filter((r) => r.status === "unavailable").length;

      const org = await insertOrg(db.sql);
      const ids = await insertMonitors(
        db.sql,
        org,
        Array.from({ length: MONITORS }, (_, i) => ({ interval_seconds: 10, timeout_ms: 5000, regions: [region], config: { url: `http://127.0.0.1:${target.port}/m/${i}` } })),
      );
      const worker = await startWorker({ bus, box: new SecretBox("overload-test-secret-key-0123456789abcdef"), log, clock, region, concurrency: CONCURRENCY, allowPrivate: true, shutdownGraceMs: 1000 });
      const scheduler = await startScheduler({ sql: db.sql, databaseUrl: db.url, bus, log, clock, registry, lockRetryMs: 200, queueSeconds: 0.5 });
      try {
        await until(async () => (await gauge("watchpost_scheduler_overloaded")) === 1, 30_000, "the overload metric");
        expect(overloadLines(40)).toHaveLength(1);

        // A window of 10 s (50 s on the schedule's clock) at 2× capacity: each monitor's turn comes about every 4 s (20 s).
        const from = clock.now();
        const started = Date.now();
        let maxQueued = 0;
        while (Date.now() - started < WINDOW_MS) {
          maxQueued = Math.max(maxQueued, await bus.pendingJobs(regionSubject(region)));
          await Bun.sleep(250);
        }
        const checked = new Set(seen.filter((r) => r.status === "up" && r.checked_at >= from).map((r) => r.monitor_id));
        expect(ids.filter((id) => !checked.has(id))).toEqual([]);
        // The queue holds what runs plus a few seconds of work, not a growing pile of jobs bound to expire.
        expect(maxQueued).toBeLessThanOrEqual(60);
        expect(unavailable()).toBeLessThanOrEqual(5);
        expect(await gauge("watchpost_scheduler_schedule_lag_seconds")).toBeGreaterThan(0);
        expect(overloadLines(40)).toHaveLength(1);

        // The load drops to a quarter of the capacity: the line drains, the metric goes back to 0, one info line.
        await db.sql`update monitors set paused = true, updated_at = now() where id = any(${ids.slice(10)})`;
        await until(async () => (await gauge("watchpost_scheduler_overloaded")) === 0, 30_000, "the end of the overload");
        expect(overloadLines(30)).toHaveLength(1);
        expect(overloadLines(40)).toHaveLength(1);
        expect(await gauge("watchpost_scheduler_schedule_lag_seconds")).toBe(0);
        const after = clock.now();
        await until(() => ids.slice(0, 10).every((id) => seen.some((r) => r.monitor_id === id && r.status === "up" && r.checked_at >= after)), 10_000, "checks after recovery");
        expect(unavailable()).toBeLessThanOrEqual(5);
      } finally {
        clearInterval(presence);
        await scheduler.stop();
        await worker.stop();
        await results.stop();
        await bus.close();
        await db.sql`update monitors set paused = true, updated_at = now() where org_id = ${org}`;
      }
    }, 120_000);
  });
}
