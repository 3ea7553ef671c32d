import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { allSchedulable, reconcileBucketOf, schedulableDigests, versionResidue } from "../db/queries/scheduler.ts";
import { createTestDatabase, type TestDatabase } from "../tests/support/db.ts";
import { insertMonitors, insertOrg, syncedScheduler, unnoticed } from "../tests/support/scheduling.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
}, 30_000);
afterAll(async () => {
  await db.drop();
}, 30_000);

describe("the scheduler's reconcile", () => {
  it("computes the same digest per bucket of ids from the versions it holds as the database does from updated_at", async () => {
    const org = await insertOrg(db.sql);
    await insertMonitors(db.sql, org, Array.from({ length: 2000 }, () => ({})));
    // Every microsecond fraction, years apart: the residue must survive the float8 round trip of each.
    await db.sql`update monitors set updated_at = now() - (random() * interval '20 years') where org_id = ${org}`;
    const held = new Map<number, { count: number; sum: number }>();
    for await (const page of allSchedulable(db.sql)) {
      for (const row of page) {
        const d = held.get(reconcileBucketOf(row.id)) ?? { count: 0, sum: 0 };
        d.count++;
        d.sum += versionResidue(row.version);
        held.set(reconcileBucketOf(row.id), d);
      }
    }
    const stored = await schedulableDigests(db.sql);
    expect(stored.size).toBeGreaterThan(200);
    expect(stored).toEqual(held);
  });

  it("repairs the edits, creations and deletions the notifications missed, and keeps the rest", async () => {
    const org = await insertOrg(db.sql);
    const ids = await insertMonitors(db.sql, org, Array.from({ length: 600 }, () => ({ interval_seconds: 30 })));
    // Versions with microseconds, as updated_at = now() writes them.
    await db.sql`update monitors set updated_at = now() - (random() * interval '5 days') where org_id = ${org}`;
    const { scheduler, sync } = await syncedScheduler(db.sql);
    try {
      expect(ids.every((id) => scheduler.has(id))).toBe(true);
      const before = new Map(ids.map((id) => [id, scheduler.versionOf(id)]));

      await sync.reconcile();
      expect(ids.every((id) => scheduler.versionOf(id) === before.get(id))).toBe(true);

      const [edited, deleted, paused] = ids;
      let created = "";
      await unnoticed(db.sql, async (tx) => {
        await tx`update monitors set interval_seconds = 60, updated_at = updated_at + interval '1 microsecond' where id = ${edited!}`;
        await tx`delete from monitors where id = ${deleted!}`;
        await tx`update monitors set paused = true where id = ${paused!}`;
      });
      // Created unnoticed: inserted, then its notification is lost the same way.
      await unnoticed(db.sql, async (tx) => {
        [created] = await insertMonitors(tx, org, [{ interval_seconds: 30 }]);
      });
      expect(scheduler.versionOf(edited!)).toBe(before.get(edited!)!);
      expect(scheduler.has(deleted!)).toBe(true);
      expect(scheduler.has(created)).toBe(false);

      await sync.reconcile();
      expect(scheduler.versionOf(edited!)).not.toBe(before.get(edited!)!);
      const [row] = await db.sql<{ version: number }[]>`select (extract(epoch from updated_at) * 1000)::float8 as version from monitors where id = ${edited!}`;
      expect(scheduler.versionOf(edited!)).toBe(row!.version);
      expect(scheduler.has(deleted!)).toBe(false);
      expect(scheduler.has(paused!)).toBe(false);
      expect(scheduler.has(created)).toBe(true);
      for (const id of ids.slice(3)) expect(scheduler.versionOf(id)).toBe(before.get(id)!);
    } finally {
      await sync.stop();
    }
  });
});
