import { afterAll, beforeAll, expect, it } from "bun:test";
import { Registry } from "prom-client";
import { type Bus, createMemoryBus, type JobMessage, type JobSubject } from "../../core/bus/index.ts";
import { silentLogger } from "../../core/log.ts";
import type { CheckJobMessage } from "../../schemas/messages/check-messages.ts";
import { startScheduler } from "../../scheduler/start.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { insertMonitors, insertOrg, until } from "../support/scheduling.ts";

/*
 * Two schedulers on one database. Leader A publishes to a region whose queue nobody drains: it fills to its
 * limit (1 worker + 20 before a drain is measured) and every other due check waits in A's line. A dies (its
 * lock connection is cut, no clean hand-over) or stops; B takes over. B must publish first the checks that waited in
 * A's line, oldest first, and none that A had published.
 */
const MONITORS = 40;
const INTERVAL_S = 10;
const LIMIT = 21;

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
}, 60_000);
afterAll(async () => {
  await db?.drop();
}, 60_000);

/** The bus as one scheduler sees it, recording every job it publishes. */
function spying(bus: Bus, published: CheckJobMessage[]): Bus {
  return new Proxy(bus, {
    get(target, prop) {
      if (prop === "publishJob")
        return (subject: JobSubject, job: JobMessage) => {
          published.push(job as CheckJobMessage);
          return target.publishJob(subject, job);
        };
      const v = Reflect.get(target, prop);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

for (const how of ["dies", "stops cleanly"] as const) {
  it(`a new leader takes over the line of due checks the old one kept back when it ${how}, oldest first, and publishes none twice`, async () => {
    const region = `ovf-${Math.random().toString(36).slice(2, 8)}`;
    const bus = createMemoryBus();
    await bus.ensureTopology();
    const org = await insertOrg(db.sql);
    await db.sql`insert into region_workers (worker_id, region, version, concurrency, started_at, last_seen_at)
      values (${`${region}/w`}, ${region}, 't', 1, now(), now() + interval '1 hour')`;
    const ids = await insertMonitors(db.sql, org, Array.from({ length: MONITORS }, () => ({ interval_seconds: INTERVAL_S, regions: [region] })));

    const byA: CheckJobMessage[] = [];
    const byB: CheckJobMessage[] = [];
    const registryA = new Registry();
    const gauge = async (registry: Registry, name: string) => (await registry.getSingleMetric(name)?.get())?.values.find((v) => !v.labels.region || v.labels.region === region)?.value ?? 0;
    const a = await startScheduler({ sql: db.sql, databaseUrl: db.url, bus: spying(bus, byA), log: silentLogger, registry: registryA, lockRetryMs: 1000, queueSeconds: 1 });
    let b: Awaited<ReturnType<typeof startScheduler>> | null = null;
    try {
      // Every monitor has been due once: LIMIT published, the others wait in A's line.
      await until(async () => (await gauge(registryA, "watchpost_scheduler_waiting_checks")) >= MONITORS - LIMIT, 30_000, "a line at A");
      expect(byA).toHaveLength(LIMIT);
      await Bun.sleep(1200); // one more write of the watermark and the line

      if (how === "dies") {
        // Its lock connection is cut, so it never writes a final watermark.
        await db.sql`select pg_terminate_backend(pid) from pg_stat_activity
          where datname = current_database() and application_name = 'watchpost-scheduler-lock'`;
        await until(async () => (await gauge(registryA, "watchpost_scheduler_leader")) === 0, 10_000, "A to step down");
      }
      // Stopping hands over: the final watermark and lines are written.
      await a.stop();

      b = await startScheduler({ sql: db.sql, databaseUrl: db.url, bus: spying(bus, byB), log: silentLogger, registry: new Registry(), lockRetryMs: 200, queueSeconds: 1 });
      await until(() => b!.isLeader(), 10_000, "B to lead");
      // A worker drains the queue from now on, a job at a time.
      const worker = await bus.consumeJobs<CheckJobMessage>(`jobs.region.${region}`, { maxInFlight: 1 }, async () => {
        await Bun.sleep(40);
      });
      try {
        await until(() => new Set(byB.map((j) => j.monitor_id)).size === MONITORS, 30_000, "B to publish every monitor");
      } finally {
        await worker.stop();
      }

      const publishedByA = new Set(byA.map((j) => j.monitor_id));
      const neverPublished = ids.filter((id) => !publishedByA.has(id));
      expect(neverPublished).toHaveLength(MONITORS - LIMIT);
      // B's first jobs are the checks that had waited longest: the monitors A never published, in their order of due time.
      const first = byB.slice(0, neverPublished.length);
      expect(new Set(first.map((j) => j.monitor_id))).toEqual(new Set(neverPublished));
      // Each monitor is checked once before any is checked again, and no job A published is published again.
      expect(new Set(byB.slice(0, MONITORS).map((j) => j.monitor_id)).size).toBe(MONITORS);
      const idsByA = new Set(byA.map((j) => j.id));
      expect(byB.filter((j) => idsByA.has(j.id))).toEqual([]);
    } finally {
      await b?.stop();
      await a.stop();
      await bus.close();
      await db.sql`update monitors set paused = true where org_id = ${org}`;
    }
  }, 90_000);
}
