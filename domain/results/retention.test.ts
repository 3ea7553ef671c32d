import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createTestDatabase, type TestDatabase } from "../../tests/support/db.ts";
import { storeResults } from "./ingest.ts";
import { enforceRetention, getRetention, maintainPartitions, oldestKept } from "./retention.ts";
import { closeRollups } from "./rollup-closer.ts";
import { createOrgWithMonitors, makeResult } from "./test-fixtures.ts";
import { uptime } from "./uptime.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
}, 60_000);
afterAll(async () => {
  await db.drop();
}, 30_000);

const d = (s: string) => new Date(s);
/** The scheduler's closer having kept up until `now` (years at a time: these tests live in the 2030s). */
const closeThrough = async (now: Date) => {
  await closeRollups(db.sql, now, { stepMs: 30 * 86_400_000, graceMs: 0, maxSteps: 1000 });
  await closeRollups(db.sql, now, { stepMs: 3_600_000, graceMs: 0, maxSteps: 1000 });
};
const partitionOf = async (jobId: string) => {
  const [row] = await db.sql`select tableoid::regclass::text as part from check_results where job_id = ${jobId}`;
  return row?.part as string | undefined;
};
const partitions = async () =>
  (await db.sql`select c.relname from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'check_results'::regclass order by 1`).map(
    (r) => r.relname as string,
  );

describe("maintainPartitions", () => {
  it("creates daily partitions ahead, rehouses rows from the default partition and drops old ones", async () => {
    const { orgId, monitorIds: [mon] } = await createOrgWithMonitors(db.sql);
    const stray = makeResult(orgId, mon!, "2031-03-20T10:00:00Z", "up");
    await storeResults(db.sql, [stray]);
    expect(await partitionOf(stray.job_id)).toBe("check_results_default");

    await closeThrough(d("2031-03-10T05:00:00Z"));
    const first = await maintainPartitions(db.sql, d("2031-03-10T05:00:00Z"), { aheadDays: 3, maxRetentionDays: 30 });
    expect(first.created).toEqual(["check_results_p20310309", "check_results_p20310310", "check_results_p20310311", "check_results_p20310312", "check_results_p20310313", "check_results_p20310320"]);
    // Everything that ends on or before 2031-02-08 (the migration made partitions around its own date).
    expect(first.dropped.length).toBeGreaterThan(0);
    expect(first.dropped.every((p) => p < "check_results_p20310208")).toBe(true);
    expect(await partitionOf(stray.job_id)).toBe("check_results_p20310320");
    expect(await partitions()).toEqual([...first.created, "check_results_default"].sort());

    const again = await maintainPartitions(db.sql, d("2031-03-10T06:00:00Z"), { aheadDays: 3, maxRetentionDays: 30 });
    expect(again).toEqual({ created: [], dropped: [] });

    await closeThrough(d("2031-04-15T00:00:00Z"));
    const later = await maintainPartitions(db.sql, d("2031-04-15T00:00:00Z"), { aheadDays: 1, maxRetentionDays: 30 });
    expect(later.dropped).toEqual(["check_results_p20310309", "check_results_p20310310", "check_results_p20310311", "check_results_p20310312", "check_results_p20310313"]);
    expect(await partitionOf(stray.job_id)).toBe("check_results_p20310320");
    const rollups = async () => (await db.sql`select count(*)::int as n from check_results_hourly where monitor_id = ${mon!}`)[0]!.n;
    expect(await rollups()).toBe(1);

    // Past the longest retention the rollups go with the partitions.
    await closeThrough(d("2031-04-21T00:00:00Z"));
    const gone = await maintainPartitions(db.sql, d("2031-04-21T00:00:00Z"), { aheadDays: 0, maxRetentionDays: 30 });
    expect(gone.dropped).toContain("check_results_p20310320");
    expect(await partitionOf(stray.job_id)).toBeUndefined();
    expect(await rollups()).toBe(0);
  });

  it("takes the longest retention of the organisations' plans when none is given", async () => {
    await createOrgWithMonitors(db.sql, { planId: "business" });
    const r = await maintainPartitions(db.sql, d("2031-04-20T00:00:00Z"), { aheadDays: 0 });
    expect(r.dropped).toEqual([]);
  });
});

describe("enforceRetention", () => {
  it("deletes each organisation's results and rollups older than its plan keeps, in batches", async () => {
    const free = await createOrgWithMonitors(db.sql, { planId: "free" });
    const pro = await createOrgWithMonitors(db.sql, { planId: "pro" });
    const now = d("2033-06-15T12:00:00Z");
    const f = (at: string) => makeResult(free.orgId, free.monitorIds[0]!, at, "up");
    const p = (at: string) => makeResult(pro.orgId, pro.monitorIds[0]!, at, "down");
    await storeResults(db.sql, [
      f("2033-05-15T23:59:00Z"), f("2033-05-15T23:00:00Z"), f("2033-05-14T01:00:00Z"),
      f("2033-05-16T00:00:00Z"), f("2033-06-01T00:00:00Z"),
      p("2033-05-15T23:59:00Z"), p("2032-06-14T10:00:00Z"), p("2032-06-15T00:00:00Z"),
    ]);

    await closeThrough(now);
    const out = await enforceRetention(db.sql, now, { batchSize: 2 });
    expect(out.deletedResults).toBeGreaterThanOrEqual(4);

    const left = await db.sql`select org_id, scheduled_at from check_results where org_id in ${db.sql([free.orgId, pro.orgId])} order by org_id = ${free.orgId} desc, scheduled_at`;
    expect(left.map((r) => [r.org_id === free.orgId ? "free" : "pro", r.scheduled_at.toISOString()])).toEqual([
      ["free", "2033-05-16T00:00:00.000Z"],
      ["free", "2033-06-01T00:00:00.000Z"],
      ["pro", "2032-06-15T00:00:00.000Z"],
      ["pro", "2033-05-15T23:59:00.000Z"],
    ]);
    // free keeps the hour and day of 05-16 and 06-01; pro the hour and day of 2032-06-15 and 2033-05-15.
    const rollups = await db.sql`
      select (select count(*)::int from check_results_hourly where org_id = o) as hours, (select count(*)::int from check_results_daily where org_id = o) as days
      from unnest(${db.sql.array([free.orgId, pro.orgId])}::text[]) o`;
    expect(rollups.map((r) => [r.hours, r.days])).toEqual([[2, 2], [2, 2]]);
    const all = { from: d("2030-01-01T00:00:00Z"), to: now };
    expect((await uptime(db.sql, free.orgId, free.monitorIds[0]!, all)).total).toBe(2);
    expect((await uptime(db.sql, pro.orgId, pro.monitorIds[0]!, all)).total).toBe(2);
    expect(await enforceRetention(db.sql, now)).toEqual({ deletedResults: 0, deletedRollups: 0 });
  });
});

describe("retention and the rollup watermark", () => {
  it("never deletes raw results due at or after the watermark, which the rollups do not hold yet", async () => {
    const free = await createOrgWithMonitors(db.sql, { planId: "free" });
    const mon = free.monitorIds[0]!;
    await closeThrough(d("2034-01-01T00:00:00Z"));
    await storeResults(db.sql, [makeResult(free.orgId, mon, "2033-12-20T10:00:00Z", "up"), makeResult(free.orgId, mon, "2034-01-01T01:00:00Z", "down")]);
    const raw = async () => (await db.sql`select scheduled_at from check_results where monitor_id = ${mon} order by 1`).map((r) => r.scheduled_at.toISOString());
    const hours = async () => (await db.sql`select bucket from check_results_hourly where monitor_id = ${mon} order by 1`).map((r) => r.bucket.toISOString());

    // The closer stopped at 2034-01-01; 30 days' retention on 2034-03-01 would cut at 2034-01-30.
    await enforceRetention(db.sql, d("2034-03-01T00:00:00Z"));
    await maintainPartitions(db.sql, d("2034-03-01T00:00:00Z"), { aheadDays: 0, maxRetentionDays: 30 });
    expect(await raw()).toEqual(["2034-01-01T01:00:00.000Z"]);
    expect(await hours()).toEqual([]);

    await closeThrough(d("2034-03-01T00:00:00Z"));
    expect(await hours()).toEqual(["2034-01-01T01:00:00.000Z"]);
    await enforceRetention(db.sql, d("2034-03-01T00:00:00Z"));
    expect(await raw()).toEqual([]);
    expect(await hours()).toEqual([]);
  });
});

describe("getRetention", () => {
  it("gives the plan's retention and the first instant kept, a UTC day start", async () => {
    const { orgId } = await createOrgWithMonitors(db.sql, { planId: "starter" });
    expect(await getRetention(db.sql, orgId, d("2026-11-22T15:30:00Z"))).toEqual({ retention_days: 90, oldest_kept: d("2026-08-24T00:00:00Z") });
    expect(await getRetention(db.sql, "org_missing")).toBeNull();
    expect(oldestKept(d("2026-11-22T00:00:00Z"), 1)).toEqual(d("2026-11-21T00:00:00Z"));
  });
});
