import { afterAll, expect, it } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { joinUsers, leaveUsers, otherUsers } from "./embedded-users.ts";

const databaseDir = mkdtempSync(join(tmpdir(), "wp-users-"));
const users = join(databaseDir, "watchpost.users");
const sleeper = Bun.spawn(["sleep", "60"]);
afterAll(() => {
  sleeper.kill();
  rmSync(databaseDir, { recursive: true, force: true });
});

/** Field 22 of /proc/<pid>/stat: when the process started. */
const startOf = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]!;
};

it("counts live other processes, never itself, and forgets the gone and the pids reused by another process", () => {
  joinUsers(databaseDir);
  expect(existsSync(join(users, String(process.pid)))).toBe(true);
  expect(otherUsers(databaseDir)).toEqual([]);

  writeFileSync(join(users, String(sleeper.pid)), `${startOf(sleeper.pid)}\n`);
  expect(otherUsers(databaseDir)).toEqual([sleeper.pid]);

  // A user that is gone, and a pid now held by a process that started after the user registered.
  writeFileSync(join(users, "2147483646"), "1\n");
  rmSync(join(users, String(sleeper.pid)));
  writeFileSync(join(users, String(sleeper.pid)), "1\n");
  expect(otherUsers(databaseDir)).toEqual([]);
  expect(existsSync(join(users, "2147483646"))).toBe(false);
  expect(existsSync(join(users, String(sleeper.pid)))).toBe(false);
});

it("says the last one to leave is the one to stop the database", () => {
  joinUsers(databaseDir);
  writeFileSync(join(users, String(sleeper.pid)), `${startOf(sleeper.pid)}\n`);
  expect(leaveUsers(databaseDir)).toBe(false);
  expect(existsSync(join(users, String(process.pid)))).toBe(false);
  rmSync(join(users, String(sleeper.pid)));
  joinUsers(databaseDir);
  expect(leaveUsers(databaseDir)).toBe(true);
});
