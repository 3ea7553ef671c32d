import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { connectNatsBus, createMemoryBus, type Bus } from "../core/bus/index.ts";
import { type CheckJobMessage, type CheckResultMessage, jobId, regionBrowserSubject, regionSubject } from "../schemas/messages/check-messages.ts";
import { silentLogger } from "../core/log.ts";
import { createTestDatabase, type TestDatabase } from "../tests/support/db.ts";
import { dropNatsStreams, insertMonitors, insertOrg, markRegionOnline, NATS_URL, natsPrefix } from "../tests/support/scheduling.ts";
import { expiredUnclaimed, sweepRegionQueues } from "./region-queues.ts";

let db: TestDatabase;
const prefixes: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await dropNatsStreams(prefixes);
  await db.drop();
});

const job = (monitorId: string, orgId: string, region: string, due: number, expiresAt: number): CheckJobMessage => ({
  id: jobId(monitorId, region, due),
  org_id: orgId,
  monitor_id: monitorId,
  location: region,
  location_type: "region",
  due_at: due,
  expires_at: expiresAt,
  type: "http",
  config: { url: "http://127.0.0.1:9/" },
  secrets_enc: null,
  timeout_ms: 1000,
});

for (const kind of ["memory", "nats"] as const) {
  describe(`region queue sweep on the ${kind} bus`, () => {
    let bus: Bus;
    const results: CheckResultMessage[] = [];
    beforeAll(async () => {
      const prefix = natsPrefix("rq");
      prefixes.push(prefix);
      bus = kind === "memory" ? createMemoryBus() : await connectNatsBus({ url: NATS_URL, prefix });
      await bus.ensureTopology({ resultDurables: [{ name: "seen" }] });
      await bus.consumeResults<CheckResultMessage>("seen", { maxWaitMs: 10 }, (batch) => void results.push(...batch.map((d) => d.data)));
    });
    afterAll(() => bus.close());

    it("records a job that expired unclaimed in a region without workers as unavailable, and leaves one still in time", async () => {
      const org = await insertOrg(db.sql);
      const region = `dark-${kind}`;
      const [mon] = await insertMonitors(db.sql, org, [{ regions: [region] }]);
      let now = Date.now();
      const expired = job(mon!, org, region, now - 60_000, now - 30_000);
      const inTime = job(mon!, org, region, now - 1000, now + 2000);
      await bus.publishJob(regionSubject(region), expired);
      await bus.publishJob(regionSubject(region), inTime);

      expect(await sweepRegionQueues(db.sql, bus, silentLogger, () => now)).toBe(1);
      await until(() => results.some((r) => r.id === expired.id));
      expect(results.find((r) => r.id === expired.id)).toMatchObject({ status: "unavailable", location: region, location_type: "region", scheduled_at: expired.due_at, error: expiredUnclaimed(region) });
      expect(results.some((r) => r.id === inTime.id)).toBe(false);
      expect(await bus.pendingJobs(regionSubject(region))).toBe(1);

      // Once it has expired too (it comes back after its expiry), the next sweep records it.
      await Bun.sleep(2200);
      now = Date.now();
      expect(await sweepRegionQueues(db.sql, bus, silentLogger, () => now)).toBe(1);
      await until(() => results.some((r) => r.id === inTime.id));
      expect(await bus.pendingJobs(regionSubject(region))).toBe(0);
      expect(results.filter((r) => r.id === expired.id || r.id === inTime.id)).toHaveLength(2);
    }, 15_000);

    it("records an expired job left in the queue of a region that no monitor uses any more (the bus says which queues hold jobs)", async () => {
      const org = await insertOrg(db.sql);
      const region = `left-${kind}`;
      // Its monitor moved to another region after the job was published.
      const [mon] = await insertMonitors(db.sql, org, [{ regions: ["elsewhere"] }]);
      const now = Date.now();
      const expired = job(mon!, org, region, now - 60_000, now - 30_000);
      await bus.publishJob(regionSubject(region), expired);
      expect(await sweepRegionQueues(db.sql, bus, silentLogger, () => now)).toBe(1);
      await until(() => results.some((r) => r.id === expired.id));
      expect(await bus.pendingJobs(regionSubject(region))).toBe(0);
    });

    it("records an expired job of a browser engine's queue when no online worker of the region offers that engine", async () => {
      const org = await insertOrg(db.sql);
      const region = `engines-${kind}`;
      const [mon] = await insertMonitors(db.sql, org, [{ regions: [region] }]);
      // A worker without browsers is online: the region's own queue is its, the chromium queue nobody's.
      await markRegionOnline(db.sql, region);
      const now = Date.now();
      const expired = job(mon!, org, region, now - 60_000, now - 30_000);
      await bus.publishJob(regionBrowserSubject(region, "chromium"), expired);
      expect(await sweepRegionQueues(db.sql, bus, silentLogger, () => now)).toBe(1);
      await until(() => results.some((r) => r.id === expired.id));
      expect(results.find((r) => r.id === expired.id)).toMatchObject({ status: "unavailable", location: region, error: expiredUnclaimed(region, "chromium") });
      expect(await bus.pendingJobs(regionBrowserSubject(region, "chromium"))).toBe(0);

      // Once a worker there offers chromium, its queue is left to it.
      await db.sql`update region_workers set browsers = '{chromium}' where region = ${region}`;
      const next = job(mon!, org, region, now - 50_000, now - 20_000);
      await bus.publishJob(regionBrowserSubject(region, "chromium"), next);
      expect(await sweepRegionQueues(db.sql, bus, silentLogger, () => now)).toBe(0);
      expect(await bus.pendingJobs(regionBrowserSubject(region, "chromium"))).toBe(1);
      await bus.purgeJobs(regionBrowserSubject(region, "chromium"));
    });

    it("leaves the queue of a region with a worker online to its workers", async () => {
      const org = await insertOrg(db.sql);
      const region = `lit-${kind}`;
      const [mon] = await insertMonitors(db.sql, org, [{ regions: [region] }]);
      await markRegionOnline(db.sql, region);
      const now = Date.now();
      const expired = job(mon!, org, region, now - 60_000, now - 30_000);
      await bus.publishJob(regionSubject(region), expired);
      expect(await sweepRegionQueues(db.sql, bus, silentLogger, () => now)).toBe(0);
      expect(await bus.pendingJobs(regionSubject(region))).toBe(1);
      await bus.purgeJobs(regionSubject(region));
    });

    it("leaves the queue to its workers while every worker's beats stall at once (their path is down, not the workers)", async () => {
      const org = await insertOrg(db.sql);
      const region = `stall-${kind}`;
      const [mon] = await insertMonitors(db.sql, org, [{ regions: [region] }]);
      await markRegionOnline(db.sql, region);
      const now = Date.now();
      await bus.publishJob(regionSubject(region), job(mon!, org, region, now - 60_000, now - 30_000));
      try {
        await db.sql`update region_workers set last_seen_at = now() - interval '40 seconds'`;
        expect(await sweepRegionQueues(db.sql, bus, silentLogger, () => now)).toBe(0);
        expect(await bus.pendingJobs(regionSubject(region))).toBe(1);
        // No beat anywhere for longer than the stall is waited out: the region's expired job is recorded.
        await db.sql`update region_workers set last_seen_at = now() - interval '2 minutes'`;
        expect(await sweepRegionQueues(db.sql, bus, silentLogger, () => now)).toBe(1);
      } finally {
        await db.sql`update region_workers set last_seen_at = now()`;
        await bus.purgeJobs(regionSubject(region));
      }
    });
  });
}

async function until(check: () => boolean, ms = 5000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await Bun.sleep(20);
  }
}
