import { afterAll, expect, it } from "bun:test";
import { createServer, type Socket, connect } from "node:net";
import { TEST_ADMIN_URL } from "../tests/support/db.ts";
import { createSql, isDatabaseUnavailable } from "./client.ts";

/** A loopback TCP proxy to the test database that can reset every connection (an RST, as when the server goes away). */
function resettingProxy() {
  const target = new URL(TEST_ADMIN_URL);
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("error", () => {});
      s.on("close", () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  const listening = new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port)));
  return {
    async url() {
      const u = new URL(TEST_ADMIN_URL);
      u.port = String(await listening);
      return u.toString();
    },
    resetAll: () => {
      for (const s of sockets) s.resetAndDestroy();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const proxy = resettingProxy();
afterAll(() => proxy.close());

it("counts a connection reset in the middle of a query as the database being unavailable (the API answers 503, not 500)", async () => {
  const sql = createSql(await proxy.url(), { max: 1 });
  try {
    const running = sql`select pg_sleep(5)`.then(
      () => null,
      (err: unknown) => err,
    );
    await Bun.sleep(300);
    proxy.resetAll();
    const err = await running;
    expect((err as { code?: string }).code).toBe("ECONNRESET");
    expect(isDatabaseUnavailable(err)).toBe(true);
  } finally {
    await sql.end({ timeout: 1 });
  }
});
