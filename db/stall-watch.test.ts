import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { startTcpProxy, type TcpProxy } from "../tests/support/tcp-proxy.ts";
import { TEST_ADMIN_URL } from "../tests/support/db.ts";
import { createSql, isDatabaseUnavailable, type Sql } from "./client.ts";
import { type Stall, stallsToDestroy } from "./stall-watch.ts";

// Short, so each case takes seconds; the defaults (10 s quiet, a look every 5 s, 5 s to probe) are the same rule slower.
const STALL = { afterMs: 1500, everyMs: 250, probeTimeoutMs: 1500 };

/** How a query ended and when: a hang shows as `pending` rather than as the test's timeout. */
async function outcome(query: Promise<unknown>, ms: number): Promise<{ ok: boolean; code?: string; ms: number } | "pending"> {
  const started = performance.now();
  const settled = query.then(
    () => ({ ok: true, ms: performance.now() - started }),
    (err: { code?: string }) => ({ ok: false, code: err?.code, ms: performance.now() - started, unavailable: isDatabaseUnavailable(err) }),
  );
  return Promise.race([settled, Bun.sleep(ms).then(() => "pending" as const)]);
}

describe("a path to PostgreSQL that drops packets silently", () => {
  let proxy: TcpProxy;
  let url: string;
  beforeAll(async () => {
    const target = new URL(TEST_ADMIN_URL);
    proxy = await startTcpProxy(Number(target.port || 5432), target.hostname);
    const via = new URL(TEST_ADMIN_URL);
    via.port = String(proxy.port);
    url = via.toString();
  });
  afterAll(() => proxy.stop());

  async function withSql(fn: (sql: Sql) => Promise<void>, stall: typeof STALL | false = STALL) {
    const sql = createSql(url, { max: 2, stall });
    try {
      await fn(sql);
    } finally {
      await proxy.restore();
      await sql.end({ timeout: 0 });
    }
  }

  it("fails a query sent into a blackhole within seconds, CONNECTION_STALLED (a 503), and works again once the network is back", async () => {
    await withSql(async (sql) => {
      await sql`select 1`;
      await proxy.cut("blackhole");
      const stalled = await outcome(sql`select 1`, 15_000);
      expect(stalled).toMatchObject({ ok: false, code: "CONNECTION_STALLED", unavailable: true });
      // Quiet for 1.5 s, then a probe that cannot connect in 1.5 s.
      expect((stalled as { ms: number }).ms).toBeLessThan(6000);
      await proxy.restore();
      expect(await outcome(sql`select 2 as n`, 10_000)).toMatchObject({ ok: true });
    });
  }, 40_000);

  it("fails a query whose flow a firewall forgot while new connections pass, and the next query runs on a new connection", async () => {
    await withSql(async (sql) => {
      const [before] = await sql<{ pid: number }[]>`select pg_backend_pid() as pid`;
      await proxy.cut("forget");
      // The probe reaches the server, which says the backend is idle: the query never arrived.
      expect(await outcome(sql`select 1`, 15_000)).toMatchObject({ ok: false, code: "CONNECTION_STALLED" });
      const [after] = await sql<{ pid: number }[]>`select pg_backend_pid() as pid`;
      expect(after!.pid).not.toBe(before!.pid);
    });
  }, 40_000);

  it("fails a long statement whose answer is lost, once the server has finished it", async () => {
    await withSql(async (sql) => {
      await sql`select 1`;
      // Sent now (a postgres.js query is sent when awaited or executed); its answer comes after the cut.
      const running = sql`select pg_sleep(1)`.execute();
      await Bun.sleep(200);
      await proxy.cut("forget");
      expect(await outcome(running, 15_000)).toMatchObject({ ok: false, code: "CONNECTION_STALLED" });
    });
  }, 40_000);

  it("ends the backend of a connection given up, so that a transaction it held open lets go of its locks", async () => {
    const direct = createSql(TEST_ADMIN_URL, { max: 1, stall: false });
    try {
      await withSql(async (sql) => {
        const key = Math.floor(Math.random() * 1e9);
        let held = 0;
        const failed = await sql
          .begin(async (tx) => {
            [{ pid: held }] = await tx<{ pid: number }[]>`select pg_backend_pid() as pid, pg_advisory_xact_lock(${key})::text`;
            await proxy.cut("forget");
            await tx`select 1`;
          })
          .catch((err: { code?: string }) => err);
        expect(isDatabaseUnavailable(failed)).toBe(true);
        // Not left idle in its transaction until the server's keepalive gives up (the proxy keeps its side open, as a
        // server whose client's flow was forgotten does).
        const gone = async () => (await direct`select 1 from pg_stat_activity where pid = ${held}`).length === 0;
        for (let i = 0; i < 30 && !(await gone()); i++) await Bun.sleep(100);
        expect(await gone()).toBe(true);
        expect((await direct<{ ok: boolean }[]>`select pg_try_advisory_lock(${key}) as ok`)[0]!.ok).toBe(true);
        await direct`select pg_advisory_unlock(${key})`;
      });
    } finally {
      await direct.end({ timeout: 0 });
    }
  }, 40_000);

  it("leaves a long statement alone while the server runs it", async () => {
    await withSql(async (sql) => {
      // Quiet for 4 s, looked at about ten times, the server saying each time that it runs.
      expect(await outcome(sql`select pg_sleep(4)`, 15_000)).toMatchObject({ ok: true });
    });
  }, 40_000);

  it("without the watch, a query sent into a blackhole is still waiting after 10 s (postgres.js alone)", async () => {
    await withSql(async (sql) => {
      await sql`select 1`;
      await proxy.cut("blackhole");
      expect(await outcome(sql`select 1`, 10_000)).toBe("pending");
    }, false);
  }, 40_000);
});

describe("stallsToDestroy", () => {
  const stall = (pid: number | null): Stall => ({ pid, waiting: true, quietMs: 20_000, destroy: () => {} });
  const backends = (entries: [number, string | null, string | null][]) => new Map(entries.map(([pid, state, waitEvent]) => [pid, { state, waitEvent }]));

  it("gives up every stalled connection when the server cannot be reached", () => {
    const all = [stall(1), stall(null)];
    expect(stallsToDestroy(all, { reached: false })).toEqual(all);
  });

  it("keeps a backend that runs its statement, gives up one idle, idle in a transaction, stuck sending, or gone", () => {
    const answer = {
      reached: true as const,
      pidsAreTheServers: true,
      backends: backends([
        [1, "active", null],
        [2, "idle", "ClientRead"],
        [3, "idle in transaction", "ClientRead"],
        [4, "active", "ClientWrite"],
        [6, "active", "DataFileRead"],
      ]),
    };
    expect(stallsToDestroy([1, 2, 3, 4, 5, 6].map(stall), answer).map((s) => s.pid)).toEqual([2, 3, 4, 5]);
  });

  it("gives up nothing the server could answer for when the backend ids are not the server's (a pooler between)", () => {
    expect(stallsToDestroy([stall(2), stall(5)], { reached: true, pidsAreTheServers: false, backends: backends([[2, "idle", null]]) })).toEqual([]);
  });
});
