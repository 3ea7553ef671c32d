import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The processes using one embedded PostgreSQL: the server of `npm start` and any CLI command run on the
 * same DATA_DIR meanwhile, whichever started it. Each writes a file named for its pid in the cluster's
 * folder; the last one to leave stops the database, so that none stops it under another.
 */
const USERS = "watchpost.users";

export function joinUsers(databaseDir: string): void {
  const dir = join(databaseDir, USERS);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, String(process.pid)), `${startTime(process.pid) ?? ""}\n`);
}

/** Leaves the users; true when no other live process uses the database (the caller then stops it). */
export function leaveUsers(databaseDir: string): boolean {
  rmSync(join(databaseDir, USERS, String(process.pid)), { force: true });
  return otherUsers(databaseDir).length === 0;
}

/** Live processes other than this one that use the database; entries of processes that are gone are removed. */
export function otherUsers(databaseDir: string): number[] {
  const dir = join(databaseDir, USERS);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const live: number[] = [];
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) continue;
    if (isSameProcess(pid, readText(join(dir, name)).trim())) live.push(pid);
    else rmSync(join(dir, name), { force: true });
  }
  return live;
}

/** Alive, and (where /proc tells) started when it registered: a reused pid is not the process that joined. */
function isSameProcess(pid: number, registeredStart: string): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as { code?: string }).code !== "EPERM") return false;
  }
  const now = startTime(pid);
  return !registeredStart || now === undefined || now === registeredStart;
}

/** The process's start time in clock ticks since boot (field 22 of /proc/<pid>/stat); undefined without /proc. */
function startTime(pid: number): string | undefined {
  const stat = readText(`/proc/${pid}/stat`);
  // Fields after the command name, which is in parentheses and may hold spaces: state is field 3.
  return stat ? stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] : undefined;
}

function readText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}
