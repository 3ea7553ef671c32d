import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { randomBytes } from "node:crypto";
import { newId } from "../../core/ids.ts";
import { silentLogger } from "../../core/log.ts";
import { makeOrg } from "../../tests/support/api.ts";
import { createTestDatabase, type TestDatabase } from "../../tests/support/db.ts";
import { BEFORE_ANYTHING, BlindTime } from "../../core/process/blind-time.ts";
import { startRunnerWatch, sweepRunnerLiveness } from "./runner-watch.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
}, 60_000);
afterAll(async () => {
  await db.drop();
}, 60_000);

async function runner(orgId: string, name: string, o: { seenSecondsAgo: number | null; intervalMs?: number; suspended?: boolean; revoked?: boolean }) {
  const id = newId("run");
  await db.sql`
    insert into runners (id, org_id, name, token_hash, heartbeat_interval_ms, last_seen_at, suspended, revoked_at)
    values (${id}, ${orgId}, ${name}, ${randomBytes(32)}, ${o.intervalMs ?? 30_000},
            ${o.seenSecondsAgo === null ? null : db.sql`now() - make_interval(secs => ${o.seenSecondsAgo})`},
            ${o.suspended ?? false}, ${o.revoked ? db.sql`now()` : null})`;
  return id;
}
const feed = async (orgId: string) =>
  (await db.sql`select type, title, data from notifications where org_id = ${orgId} order by created_at, id`).map((n) => `${n.type} ${n.data.runner_id}`);

describe("runner liveness notices", () => {
  it("announces a runner that missed three heartbeats once, however many processes sweep", async () => {
    const org = await makeOrg(db.sql, "business");
    const quiet = await runner(org.org_id, "basement", { seenSecondsAgo: 91 });
    await runner(org.org_id, "fresh", { seenSecondsAgo: 80 });
    await Promise.all([sweepRunnerLiveness(db.sql, silentLogger), sweepRunnerLiveness(db.sql, silentLogger), sweepRunnerLiveness(db.sql, silentLogger)]);
    await sweepRunnerLiveness(db.sql, silentLogger);
    expect(await feed(org.org_id)).toEqual([`runner.offline ${quiet}`]);
    const [n] = await db.sql`select title, body from notifications where org_id = ${org.org_id}`;
    expect(n!.title).toBe("Runner offline: basement");
    expect(n!.body).toContain("No heartbeat from basement since");
  });

  it("announces a runner that stopped on purpose at once, saying it stopped, and back online once it connects again", async () => {
    const org = await makeOrg(db.sql, "business");
    const id = await runner(org.org_id, "closet", { seenSecondsAgo: 2 });
    await db.sql`update runners set stopped_at = now() where id = ${id}`;
    await sweepRunnerLiveness(db.sql, silentLogger);
    expect(await feed(org.org_id)).toEqual([`runner.offline ${id}`]);
    const [n] = await db.sql`select body, data from notifications where org_id = ${org.org_id}`;
    expect(n!.body).toContain("closet stopped at");
    expect(n!.data.stopped_at).toBeString();
    // A new session clears stopped_at (db/queries/runners.ts recordRunnerBeat).
    await db.sql`update runners set stopped_at = null, last_seen_at = now() where id = ${id}`;
    await sweepRunnerLiveness(db.sql, silentLogger);
    expect(await feed(org.org_id)).toEqual([`runner.offline ${id}`, `runner.online ${id}`]);
  });

  it("uses each runner's own heartbeat interval", async () => {
    const org = await makeOrg(db.sql, "business");
    await runner(org.org_id, "slow", { seenSecondsAgo: 100, intervalMs: 60_000 });
    const fast = await runner(org.org_id, "fast", { seenSecondsAgo: 20, intervalMs: 5_000 });
    await sweepRunnerLiveness(db.sql, silentLogger);
    expect(await feed(org.org_id)).toEqual([`runner.offline ${fast}`]);
  });

  it("announces the runner back online once when heartbeats resume, and offline again next time", async () => {
    const org = await makeOrg(db.sql, "business");
    const id = await runner(org.org_id, "edge", { seenSecondsAgo: 300 });
    await sweepRunnerLiveness(db.sql, silentLogger);
    await db.sql`update runners set last_seen_at = now() where id = ${id}`;
    await Promise.all([sweepRunnerLiveness(db.sql, silentLogger), sweepRunnerLiveness(db.sql, silentLogger)]);
    await sweepRunnerLiveness(db.sql, silentLogger);
    expect(await feed(org.org_id)).toEqual([`runner.offline ${id}`, `runner.online ${id}`]);
    await db.sql`update runners set last_seen_at = now() - interval '5 minutes' where id = ${id}`;
    await sweepRunnerLiveness(db.sql, silentLogger);
    expect(await feed(org.org_id)).toEqual([`runner.offline ${id}`, `runner.online ${id}`, `runner.offline ${id}`]);
  });

  it("says nothing about runners that never connected, were revoked or are suspended", async () => {
    const org = await makeOrg(db.sql, "business");
    await runner(org.org_id, "new", { seenSecondsAgo: null });
    await runner(org.org_id, "gone", { seenSecondsAgo: 600, revoked: true });
    await runner(org.org_id, "over quota", { seenSecondsAgo: 600, suspended: true });
    await sweepRunnerLiveness(db.sql, silentLogger);
    expect(await feed(org.org_id)).toEqual([]);
  });

  it("does not count what the sweeping process could not see: before its start, a stretch of failed sweeps", async () => {
    const org = await makeOrg(db.sql, "business");
    // Every runner's heartbeats stopped 120 s ago, together: the path (API, database) was down, not the runners.
    const stalled = await runner(org.org_id, "stalled", { seenSecondsAgo: 120 });
    // Silent since long before the outage: offline whatever the outage.
    const dead = await runner(org.org_id, "dead", { seenSecondsAgo: 400 });
    // The process started 10 s ago: it saw nothing before.
    await sweepRunnerLiveness(db.sql, silentLogger, { gaps: [{ fromAgoS: BEFORE_ANYTHING, toAgoS: 10 }] });
    expect(await feed(org.org_id)).toEqual([]);
    // Running for an hour, its sweeps failed from 115 s ago until 5 s ago: 120 − 110 = 10 s of silence seen.
    await sweepRunnerLiveness(db.sql, silentLogger, { gaps: [{ fromAgoS: 115, toAgoS: 5 }] });
    expect(await feed(org.org_id)).toEqual([`runner.offline ${dead}`]);
    // Once it has seen a whole window of silence after the outage, the runner is offline.
    await sweepRunnerLiveness(db.sql, silentLogger, { gaps: [{ fromAgoS: 115, toAgoS: 25 }] });
    expect(await feed(org.org_id)).toEqual([`runner.offline ${dead}`]);
    await sweepRunnerLiveness(db.sql, silentLogger, { gaps: [{ fromAgoS: 30, toAgoS: 29 }] });
    expect(await feed(org.org_id)).toEqual([`runner.offline ${dead}`, `runner.offline ${stalled}`]);
  });

  it("subtracts every stretch it could not see, not only the latest", async () => {
    const org = await makeOrg(db.sql, "business");
    // Silent for 150 s, 100 s of them in two outages: 50 s seen, within its 90 s window.
    const stalled = await runner(org.org_id, "stalled", { seenSecondsAgo: 150 });
    await sweepRunnerLiveness(db.sql, silentLogger, { gaps: [{ fromAgoS: 145, toAgoS: 95 }, { fromAgoS: 60, toAgoS: 10 }] });
    expect(await feed(org.org_id)).toEqual([]);
    // Without the older outage, 100 s were seen: offline.
    await sweepRunnerLiveness(db.sql, silentLogger, { gaps: [{ fromAgoS: 60, toAgoS: 10 }] });
    expect(await feed(org.org_id)).toEqual([`runner.offline ${stalled}`]);
  });

  it("a freshly started watch in the all-in-one waits a window before announcing runners silent since before its start", async () => {
    const org = await makeOrg(db.sql, "business");
    const stalled = await runner(org.org_id, "stalled", { seenSecondsAgo: 120, intervalMs: 1_000 });
    let now = 0;
    const watch = startRunnerWatch(db.sql, silentLogger, 50, new BlindTime({ clock: () => now, blindBeforeStart: true }));
    await Bun.sleep(300);
    expect(await feed(org.org_id)).toEqual([]);
    now += 3_100;
    const end = Date.now() + 5_000;
    while ((await feed(org.org_id)).length === 0 && Date.now() < end) await Bun.sleep(50);
    await watch.stop();
    expect(await feed(org.org_id)).toEqual([`runner.offline ${stalled}`]);
  });
});
