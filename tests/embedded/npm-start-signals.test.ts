import { afterAll, describe, expect, it } from "bun:test";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../support/free-port.ts";
import { gone } from "../support/processes.ts";

// Issue 20, item 1: SIGTERM to the `npm start` process (what `kill PID` does) and SIGINT to its whole
// process group (Ctrl-C in a terminal) stop the server and its embedded PostgreSQL, not only npm.
const root = join(import.meta.dir, "..", "..");
const dirs: string[] = [];
const serverPids: number[] = [];
afterAll(async () => {
  // A failed expectation must not leave a server (and its database) running.
  for (const pid of serverPids) {
    try {
      process.kill(pid, "SIGTERM");
    } catch {}
  }
  await Bun.sleep(3000);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** `npm start` in a process group of its own, as a terminal or systemd runs it; resolves once serving. */
async function npmStart() {
  const dataDir = mkdtempSync(join(tmpdir(), "wp-npm-"));
  dirs.push(dataDir);
  const port = freePort();
  const env = { ...process.env, DATABASE_URL: "", NATS_URL: "", DATA_DIR: dataDir, PORT: String(port), EMBEDDED_PG_PORT: String(freePort()), BILLING_SIM_PORT: "0", LOG_LEVEL: "info", LOG_FORMAT: "json" };
  const npm = spawn("npm", ["start"], { cwd: root, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  npm.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  npm.stderr!.on("data", (c: Buffer) => (out += c.toString()));
  const exited = new Promise<void>((resolve) => npm.once("exit", () => resolve()));
  const deadline = Date.now() + 90_000;
  while (!(await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status === 200, () => false))) {
    if (Date.now() > deadline || npm.exitCode !== null) throw new Error(`npm start did not serve: ${out}`);
    await Bun.sleep(200);
  }
  const serverPid = Number(/"pid":(\d+)/.exec(out)?.[1]);
  serverPids.push(serverPid);
  const postmaster = Number(readFileSync(join(dataDir, "postgres", "postmaster.pid"), "utf8").split("\n")[0]);
  return { npm, exited, port, dataDir, serverPid, postmaster, output: () => out };
}

describe("signals to npm start", () => {
  it.each(["SIGTERM", "SIGINT"] as const)("%s to the npm start process alone stops the server and its embedded PostgreSQL", async (signal) => {
    const s = await npmStart();
    s.npm.kill(signal);
    await s.exited;
    expect(await gone(s.serverPid, 10_000)).toBe(true);
    expect(await gone(s.postmaster, 5_000)).toBe(true);
    expect(existsSync(join(s.dataDir, "postgres", "postmaster.pid"))).toBe(false);
    expect(s.output()).toContain('"msg":"stopped"');
  }, 150_000);

  it.each(["SIGINT", "SIGTERM"] as const)("%s to the whole process group (Ctrl-C, systemd) stops everything gracefully, the embedded PostgreSQL included", async (signal) => {
    const s = await npmStart();
    process.kill(-s.npm.pid!, signal);
    await s.exited;
    expect(await gone(s.serverPid, 10_000)).toBe(true);
    expect(await gone(s.postmaster, 5_000)).toBe(true);
    expect(existsSync(join(s.dataDir, "postgres", "postmaster.pid"))).toBe(false);
    expect(s.output()).toContain('"msg":"stopped"');
    expect(s.output()).not.toContain("shutdown step failed");
  }, 150_000);
});
