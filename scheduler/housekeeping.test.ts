import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createMemoryBus, type Bus } from "../core/bus/index.ts";
import { silentLogger } from "../core/log.ts";
import { storeResults } from "../domain/results/ingest.ts";
import { createOrgWithMonitors, makeResult } from "../domain/results/test-fixtures.ts";
import { createSql } from "../db/client.ts";
import { resultKeyState } from "../db/results/result-key.ts";
import { createTestDatabase, type TestDatabase } from "../tests/support/db.ts";
import { startHousekeeping } from "./housekeeping.ts";

let db: TestDatabase;
let bus: Bus;
beforeAll(async () => {
  db = await createTestDatabase();
  bus = createMemoryBus();
}, 60_000);
afterAll(async () => {
  await bus.close();
  await db.drop();
}, 30_000);

const DAY = 86_400_000;

async function until(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await Bun.sleep(25);
  }
}

describe("storage housekeeping", () => {
  it("enforces each plan's retention and creates the coming days' partitions without being called", async () => {
    const now = new Date();
    const free = await createOrgWithMonitors(db.sql, { planId: "free" }); // keeps 30 days
    const business = await createOrgWithMonitors(db.sql, { planId: "business" }); // keeps 730 days
    const at = (days: number) => new Date(now.getTime() - days * DAY);
    await storeResults(db.sql, [
      makeResult(free.orgId, free.monitorIds[0]!, at(40), "down"),
      makeResult(free.orgId, free.monitorIds[0]!, at(10), "up"),
      makeResult(business.orgId, business.monitorIds[0]!, at(40), "up"),
    ]);
    const ahead = new Date(now.getTime() + 6 * DAY).toISOString().slice(0, 10).replaceAll("-", "");
    await db.sql`drop table if exists ${db.sql(`check_results_p${ahead}`)}`;

    const housekeeping = startHousekeeping(db.sql, bus, silentLogger, { heartbeatSweepMs: 60_000, runnerSweepMs: 60_000, regionSweepMs: 60_000, storageMs: 60_000, now: () => now });
    try {
      const left = async (orgId: string) => (await db.sql`select count(*)::int as n from check_results where org_id = ${orgId}`)[0]!.n as number;
      await until(async () => (await left(free.orgId)) === 1);
      expect(await left(business.orgId)).toBe(1);
      const [hourly] = await db.sql`select count(*)::int as n from check_results_hourly where org_id = ${free.orgId}`;
      expect(hourly!.n).toBe(1);
      const [part] = await db.sql`select to_regclass(${`check_results_p${ahead}`}) is not null as ok`;
      expect(part!.ok).toBe(true);
    } finally {
      await housekeeping.stop();
    }
  });
  it("rolls the raw results up through the watermark without being called", async () => {
    const { orgId, monitorIds: [mon] } = await createOrgWithMonitors(db.sql);
    // The watermark at this minute, as migrating leaves it: one from a template built hours ago would leave the closer
    // more minutes to catch up, a minute a step, than the wait below allows.
    await db.sql`update rollup_watermark set closed_through = greatest(closed_through, date_trunc('minute', now()))`;
    const [w] = await db.sql`select closed_through as t from rollup_watermark`;
    const due = new Date(Math.max(w!.t.getTime(), Date.now()) + 60_000);
    await storeResults(db.sql, [makeResult(orgId, mon!, due, "down")]);
    const hourly = async () => (await db.sql`select coalesce(sum(total), 0)::int as n from check_results_hourly where monitor_id = ${mon!}`)[0]!.n as number;
    expect(await hourly()).toBe(0);

    const later = new Date(due.getTime() + 120_000);
    const housekeeping = startHousekeeping(db.sql, bus, silentLogger, { heartbeatSweepMs: 60_000, runnerSweepMs: 60_000, regionSweepMs: 60_000, storageMs: 3_600_000, rollupCloseMs: 20, now: () => later });
    try {
      await until(async () => (await hourly()) === 1);
      const [after] = await db.sql`select closed_through as t from rollup_watermark`;
      expect(after!.t.getTime()).toBeGreaterThan(due.getTime());
    } finally {
      await housekeeping.stop();
    }
  });

  it("moves the raw results' unique key to due time first after the partitions, and stopping cancels a build in progress", async () => {
    // As migration 20261127140000 leaves a database whose days were all too big to key at once.
    await db.sql`drop index check_results_due_job_key`;
    await db.sql`alter table check_results add constraint check_results_job_key unique (job_id, scheduled_at)`;
    await db.sql`create unique index check_results_due_job_key on only check_results (scheduled_at, job_id)`;
    const options = { heartbeatSweepMs: 60_000, runnerSweepMs: 60_000, regionSweepMs: 60_000, storageMs: 3_600_000, rollupCloseMs: 60_000 };

    // A writer's open transaction keeps the first concurrent build waiting: stop() must not wait for it.
    const other = createSql(db.url, { max: 1 });
    const writer = await other.reserve();
    try {
      await writer`begin`;
      await writer`lock table check_results in row exclusive mode`;
      const first = startHousekeeping(db.sql, bus, silentLogger, options);
      await until(async () => {
        const [row] = await db.sql`select count(*)::int as n from pg_stat_activity where query ilike 'create unique index concurrently%' and wait_event_type = 'Lock'`;
        return row!.n > 0;
      });
      const stopping = performance.now();
      await first.stop();
      expect(performance.now() - stopping).toBeLessThan(5_000);
      await writer`commit`;
    } finally {
      writer.release();
      await other.end();
    }
    expect(await resultKeyState(db.sql)).toEqual({ valid: false, oldKey: true });

    const second = startHousekeeping(db.sql, bus, silentLogger, options);
    try {
      await until(async () => (await resultKeyState(db.sql)).oldKey === false, 30_000);
      expect(await resultKeyState(db.sql)).toEqual({ valid: true, oldKey: false });
    } finally {
      await second.stop();
    }
  }, 60_000);
});
