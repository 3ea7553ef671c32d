import { execFileSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, symlinkSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { freePort } from "../support/free-port.ts";

export const REPO_ROOT = join(import.meta.dir, "..", "..");

/**
 * A private (0700) folder, as a home under /root is, holding a fresh copy of the checkout (its files as
 * git sees them: committed, and new ones not ignored) at `<home>/watchpost`. node_modules is a symlink to
 * this checkout's, made to look installed to scripts/ensure-deps.sh (package.json and bun.lock older than
 * it), so that `npm start` in the copy installs nothing. The caller removes `home` when done.
 */
export function privateCheckout(): { home: string; repo: string } {
  const home = mkdtempSync(join(tmpdir(), "wp-home-"));
  chmodSync(home, 0o700);
  const repo = join(home, "watchpost");
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: REPO_ROOT, encoding: "utf8" })
    .split("\0")
    .filter((file) => file && existsSync(join(REPO_ROOT, file)));
  for (const file of files) {
    mkdirSync(dirname(join(repo, file)), { recursive: true });
    cpSync(join(REPO_ROOT, file), join(repo, file));
  }
  symlinkSync(join(REPO_ROOT, "node_modules"), join(repo, "node_modules"));
  const installedLongAgo = new Date("2000-01-01T00:00:00Z");
  for (const file of ["package.json", "bun.lock"]) utimesSync(join(repo, file), installedLongAgo, installedLongAgo);
  return { home, repo };
}

