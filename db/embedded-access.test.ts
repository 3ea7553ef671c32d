import { afterAll, expect, it } from "bun:test";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { letThrough, postgresUser } from "./embedded-access.ts";

// As root, the embedded PostgreSQL runs as "postgres": its binaries in a checkout under /root (0700) and a
// DATA_DIR from `mktemp -d` (0700) must be reachable by that user. Meaningful as root only.
const asRoot = process.getuid?.() === 0;
const home = mkdtempSync(join(tmpdir(), "wp-access-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

it.skipIf(!asRoot)("lets the postgres user through 0700 folders to a path, without letting it list them", () => {
  const user = postgresUser()!;
  const target = join(home, "checkout", "node_modules", "bin");
  mkdirSync(target, { recursive: true });
  chmodSync(home, 0o700);
  chmodSync(join(home, "checkout"), 0o700);
  const asPostgres = (args: string[]) => spawnSync("test", args, { uid: user.uid, gid: user.gid }).status;
  expect(asPostgres(["-x", target])).not.toBe(0);

  const opened = letThrough(target, user);
  expect(opened).toEqual([home, join(home, "checkout")]);
  expect(asPostgres(["-x", target])).toBe(0);
  expect(asPostgres(["-r", home])).not.toBe(0);
  expect(statSync(home).mode & 0o777).toBe(0o701);
  // Done once: a second start changes nothing.
  expect(letThrough(target, user)).toEqual([]);
});
