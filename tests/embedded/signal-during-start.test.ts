import { afterAll, describe, expect, it } from "bun:test";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../support/free-port.ts";
import { gone } from "../support/processes.ts";

// SIGTERM or Ctrl-C while the all-in-one is still starting (a service manager's stop, an impatient user) stops it in
// order like a signal later on: exit 0, "stopped" logged, the embedded PostgreSQL stopped with it, not left running.
const root = join(import.meta.dir, "..", "..");
const dirs: string[] = [];
const postmasters: number[] = [];
afterAll(async () => {
  for (const pid of postmasters) {
    try {
      process.kill(pid, "SIGTERM");
    } catch {}
  }
  await Bun.sleep(1000);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A new user's start: the embedded defaults on a new DATA_DIR, JSON logs at info. */
function newStart() {
  const dataDir = mkdtempSync(join(tmpdir(), "wp-early-signal-"));
  dirs.push(dataDir);
  const env = { ...process.env, DATABASE_URL: "", NATS_URL: "", DATA_DIR: dataDir, PORT: String(freePort()), EMBEDDED_PG_PORT: String(freePort()), BILLING_SIM_PORT: "0", LOG_LEVEL: "info", LOG_FORMAT: "json" };
  return { dataDir, env };
}

/** `bun scripts/start.ts` on a new DATA_DIR, signalled as soon as it logs `message`. */
async function signalledAt(message: string, signal: "SIGTERM" | "SIGINT") {
  const { dataDir, env } = newStart();
  const proc = Bun.spawn(["bun", "scripts/start.ts"], { cwd: root, env, stdout: "pipe", stderr: "pipe" });
  const stderr = new Response(proc.stderr).text();
  let out = "";
  let signalled = false;
  const decoder = new TextDecoder();
  for await (const chunk of proc.stdout) {
    out += decoder.decode(chunk, { stream: true });
    if (!signalled && out.includes(`"msg":"${message}"`)) {
      signalled = true;
      postmasters.push(Number(readFileSync(join(dataDir, "postgres", "postmaster.pid"), "utf8").split("\n")[0]));
      proc.kill(signal);
    }
  }
  return { code: await proc.exited, out, err: await stderr, dataDir, postmaster: postmasters.at(-1)!, signalled };
}

/** `bun scripts/start.ts` in a process group of its own (a terminal's); Ctrl-C to the group while its initdb runs. */
async function ctrlCDuringInitdb() {
  const { dataDir, env } = newStart();
  const proc = spawn("bun", ["scripts/start.ts"], { cwd: root, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  proc.stderr!.on("data", (c: Buffer) => (err += c.toString()));
  let out = "";
  proc.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  const closed = new Promise<number | null>((resolve) => proc.once("close", (c) => resolve(c)));
  let signalled = false;
  const deadline = Date.now() + 30_000;
  while (!signalled && proc.exitCode === null && Date.now() < deadline) {
    const group = Bun.spawnSync(["ps", "-o", "comm=", "-g", String(proc.pid)]).stdout.toString();
    if (/^initdb$/m.test(group)) {
      process.kill(-proc.pid!, "SIGINT");
      signalled = true;
    } else await Bun.sleep(10);
  }
  return { code: await closed, err, out, dataDir, signalled, env };
}

describe("a signal while the all-in-one starts", () => {
  it("Ctrl-C while it initialises the embedded database (initdb gets it too) exits 0 without \"could not start\" and leaves nothing running", async () => {
    const s = await ctrlCDuringInitdb();
    expect(s.signalled).toBe(true);
    expect(s.code).toBe(0);
    // Mostly initdb dies of the signal and the start fails for it; when initdb had just finished, the start goes on
    // and stops in order. Either way no "could not start".
    if (s.err) expect(s.err).toBe("watchpost: stopped by SIGINT while starting\n");
    else expect(s.out).toContain('"msg":"stopped"');
    expect(existsSync(join(s.dataDir, "postgres", "postmaster.pid"))).toBe(false);
    // What initdb left half done does not stand in the way of the next start.
    const next = Bun.spawn(["bun", "scripts/start.ts"], { cwd: root, env: s.env, stdout: "ignore", stderr: "pipe" });
    const until = Date.now() + 60_000;
    while (!(await fetch(`http://127.0.0.1:${s.env.PORT}/readyz`).then((r) => r.status === 200, () => false))) {
      if (next.exitCode !== null || Date.now() > until) throw new Error(`the next start did not serve: ${await new Response(next.stderr).text()}`);
      await Bun.sleep(200);
    }
    next.kill("SIGTERM");
    expect(await next.exited).toBe(0);
    expect(existsSync(join(s.dataDir, "postgres", "postmaster.pid"))).toBe(false);
  }, 90_000);

  it.each([
    ["embedded PostgreSQL started", "SIGTERM"],
    ["API listening", "SIGINT"],
  ] as const)("after %j, %s stops it in order and stops the embedded PostgreSQL", async (message, signal) => {
    const s = await signalledAt(message, signal);
    expect(s.signalled).toBe(true);
    expect({ code: s.code, err: s.err }).toEqual({ code: 0, err: "" });
    expect(s.out).toContain('"msg":"stopped"');
    expect(s.out).not.toContain("shutdown step failed");
    expect(await gone(s.postmaster, 5000)).toBe(true);
    expect(existsSync(join(s.dataDir, "postgres", "postmaster.pid"))).toBe(false);
  }, 90_000);
});
