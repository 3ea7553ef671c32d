import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { createSql, explainTlsError } from "./client.ts";

const here = dirname(fileURLToPath(import.meta.url));
const dbmateBin = join(here, "..", "node_modules", ".bin", "dbmate");

async function dbmate(url: string, dir: string, table: string): Promise<void> {
  const proc = Bun.spawn(
    [dbmateBin, "--url", withSslMode(url), "--migrations-dir", dir, "--migrations-table", table, "--no-dump-schema", "--wait", "up"],
    // process.env as it is now (Bun's default is the environment at start), so DBMATE_* settings made since reach dbmate.
    { stdout: "pipe", stderr: "pipe", env: process.env },
  );
  const [code, out, err] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  if (code !== 0) throw new Error(`dbmate failed on ${dir} (exit ${code}): ${(err || out).trim().slice(0, 2000)}`);
}

/**
 * dbmate (Go's lib/pq) reads sslmode, sslrootcert, sslcert and sslkey from the URL itself, as the
 * server's client does (client.ts). Only a URL without sslmode is given sslmode=disable: lib/pq would
 * otherwise try TLS where postgres.js does not, and the two must agree.
 */
function withSslMode(url: string): string {
  const u = new URL(url);
  if (!u.searchParams.has("sslmode")) u.searchParams.set("sslmode", "disable");
  return u.toString();
}

/**
 * The advisory lock held while migrating (advisory locks are per database). The two-key form lives
 * apart from every single-key lock (the scheduler's leader lock, hashtext() locks of the services).
 */
const MIGRATE_LOCK = [727, 200] as const;

/**
 * Applies db/migrations, then db/timescale when the server offers TimescaleDB. Every role migrates
 * at start, so several processes may call this at once on a fresh database: dbmate itself takes no
 * lock (two at once fail on duplicate objects), so one advisory lock serialises them and the later
 * ones find everything applied. `lock: false` is for a server that takes one connection at a time
 * (the PGlite test target), where the lock's connection would keep dbmate waiting forever.
 */
export async function migrate(url: string, options: { lock?: boolean } = {}): Promise<{ timescale: boolean }> {
  const run = async (): Promise<{ timescale: boolean }> => {
    await dbmate(url, join(here, "migrations"), "schema_migrations");
    if (!(await timescaleAvailable(url))) return { timescale: false };
    await dbmate(url, join(here, "timescale"), "timescale_migrations");
    return { timescale: true };
  };
  if (options.lock === false) return run();
  const sql = createSql(url, { max: 1 });
  try {
    await waitForServer(sql).catch((err: unknown) => {
      throw explainTlsError(err, url);
    });
    await sql`select pg_advisory_lock(${MIGRATE_LOCK[0]}, ${MIGRATE_LOCK[1]})`;
    try {
      return await run();
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATE_LOCK[0]}, ${MIGRATE_LOCK[1]})`.catch(() => {});
    }
  } finally {
    await sql.end();
  }
}

/**
 * TimescaleDB is used when it is installed in the database already, or offered by the server *and* preloaded
 * (`shared_preload_libraries`; `create extension` on a server that has the files but does not preload them
 * kills the connection). PGlite loads it without preloading. Migration 20261122000301 asks the same.
 */
const TIMESCALE_USABLE = `exists (select 1 from pg_extension where extname = 'timescaledb')
  or (exists (select 1 from pg_available_extensions where name = 'timescaledb')
      and (current_setting('shared_preload_libraries') like '%timescaledb%' or version() like '%Emscripten%'))`;

async function timescaleAvailable(url: string): Promise<boolean> {
  const sql = createSql(url, { max: 1 });
  try {
    const [row] = await sql.unsafe<{ available: boolean }[]>(`select (${TIMESCALE_USABLE}) as available`);
    return Boolean(row?.available);
  } finally {
    await sql.end();
  }
}

/** Like dbmate's --wait: a server still starting (refusing connections) gets up to a minute. */
async function waitForServer(sql: ReturnType<typeof createSql>, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      await sql`select 1`;
      return;
    } catch (err) {
      const code = (err as { code?: string }).code;
      const starting = code === "ECONNREFUSED" || code === "57P03" || code === "CONNECTION_CLOSED" || code === "CONNECT_TIMEOUT";
      if (!starting || Date.now() > end) throw err;
      await Bun.sleep(1000);
    }
  }
}
