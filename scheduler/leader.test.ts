import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { silentLogger } from "../core/log.ts";
import { createTestDatabase, type TestDatabase } from "../tests/support/db.ts";
import { until } from "../tests/support/scheduling.ts";
import { type LeaderHandle, startLeaderElection } from "./leader.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
}, 30_000);
afterAll(async () => {
  await db.drop();
}, 30_000);

function instance(name: string, events: string[]): LeaderHandle {
  return startLeaderElection({
    databaseUrl: db.url,
    log: silentLogger,
    retryMs: 200,
    checkMs: 200,
    async onElected() {
      events.push(`${name} elected`);
    },
    onDeposed(reason) {
      events.push(`${name} deposed: ${reason}`);
    },
  });
}

describe("leader election", () => {
  it("elects exactly one of two instances and hands over when the leader stops", async () => {
    const events: string[] = [];
    const a = instance("a", events);
    await until(() => a.isLeader());
    const b = instance("b", events);
    await Bun.sleep(600);
    expect(b.isLeader()).toBe(false);
    await a.stop();
    await until(() => b.isLeader(), 3000, "takeover");
    expect(events).toEqual(["a elected", "a deposed: stopping", "b elected"]);
    await b.stop();
  });

  it("steps down at once when its database session is killed, and the standby takes over", async () => {
    const events: string[] = [];
    const a = instance("a", events);
    await until(() => a.isLeader());
    const b = instance("b", events);
    await Bun.sleep(300);
    const killed = await db.sql<{ ok: boolean }[]>`
      select pg_terminate_backend(l.pid) as ok from pg_locks l
      where l.locktype = 'advisory' and l.objid = 727100 and l.granted and l.database = (select oid from pg_database where datname = current_database())`;
    expect(killed.map((r) => r.ok)).toEqual([true]);
    await until(() => !a.isLeader(), 3000, "step down").catch((err) => {
      throw new Error(`${err.message}; events: ${events.join(", ")}`);
    });
    await until(() => b.isLeader(), 3000, "takeover");
    // postgres.js may reconnect before the check: a new session without the lock counts as lost too.
    // The standby may win the freed lock a moment before the old leader's next check notices.
    expect(events[0]).toBe("a elected");
    expect(events.length).toBe(3);
    expect(events).toContain("b elected");
    expect(events.filter((e) => /^a deposed: (connection|lock) lost$/.test(e)).length).toBe(1);
    await Promise.all([a.stop(), b.stop()]);
  });

  it("keeps its lock session for good: postgres.js's connection lifetime (30-60 min by default) does not end its term", async () => {
    // postgres.js closes a connection once its max_lifetime has passed (PGMAX_LIFETIME overrides the default) and
    // opens a new one on the next query: the session advisory lock went with the old one, so the leader stepped down
    // and the schedule stopped for a few seconds every half hour to an hour (seen in a 40-minute bench/scale.ts run).
    const events: string[] = [];
    const before = process.env.PGMAX_LIFETIME;
    process.env.PGMAX_LIFETIME = "1";
    let a: LeaderHandle;
    try {
      a = instance("a", events); // the lock's connection is opened synchronously, reading the variable
    } finally {
      if (before === undefined) delete process.env.PGMAX_LIFETIME;
      else process.env.PGMAX_LIFETIME = before;
    }
    await until(() => a.isLeader());
    const started = Date.now();
    while (Date.now() - started < 3_000) {
      expect(a.isLeader()).toBe(true);
      await Bun.sleep(100);
    }
    expect(events).toEqual(["a elected"]);
    await a.stop();
  });
});
