import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createMemoryBus } from "../core/bus/index.ts";
import { silentLogger } from "../core/log.ts";
import { listPendingJobs, scheduleJob } from "../db/queries/billing-jobs.ts";
import { createTestDatabase, type TestDatabase } from "../tests/support/db.ts";
import { insertOrg, until } from "../tests/support/scheduling.ts";
import { billingOptionsOf } from "./billing-jobs.ts";
import { loadSchedulerConfig } from "./config.ts";
import { startScheduler } from "./start.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
}, 30_000);
afterAll(async () => {
  await db.drop();
}, 30_000);

describe("billing jobs in the scheduler (#19: not in the API)", () => {
  it("the leader runs due billing jobs at the provider's clock", async () => {
    const org = await insertOrg(db.sql);
    // Due only at the provider's (simulated) time, a day ahead of the real one.
    await scheduleJob(db.sql, { orgId: org, kind: "suspension_cleanup", refId: org, dueAt: new Date(Date.now() + 3_600_000) });
    const bus = createMemoryBus();
    await bus.ensureTopology();
    const scheduler = await startScheduler({
      sql: db.sql,
      databaseUrl: db.url,
      bus,
      log: silentLogger,
      lockRetryMs: 200,
      billing: { provider: null, now: async () => new Date(Date.now() + 86_400_000), intervalMs: 50 },
    });
    try {
      await until(() => scheduler.isLeader(), 5000, "leadership");
      await until(async () => (await listPendingJobs(db.sql, org)).length === 0, 5000, "billing job done");
      expect(await listPendingJobs(db.sql, org)).toEqual([]);
    } finally {
      await scheduler.stop();
      await bus.close();
    }
  });

  it("a scheduler on its own follows the billing simulator's clock with BILLING_SIMULATOR", async () => {
    const sim = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json({ now: "2031-05-01T12:00:00.000Z" }) });
    try {
      const options = billingOptionsOf(loadSchedulerConfig({ DATABASE_URL: db.url, BILLING_SIMULATOR: "true", PADDLE_API_URL: `http://127.0.0.1:${sim.port}` }));
      expect(options.provider).not.toBeNull();
      expect((await options.now!()).toISOString()).toBe("2031-05-01T12:00:00.000Z");
      expect(billingOptionsOf(loadSchedulerConfig({ DATABASE_URL: db.url, BILLING: "false" }))).toEqual({ provider: null });
    } finally {
      sim.stop(true);
    }
  });
});
