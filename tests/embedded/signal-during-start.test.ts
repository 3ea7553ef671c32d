import { afterAll, describe, expect, it } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../support/free-port.ts";

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

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** `bun scripts/start.ts` on a new DATA_DIR, signalled as soon as it logs `message`. */
async function signalledAt(message: string, signal: "SIGTERM" | "SIGINT") {
  const dataDir = mkdtempSync(join(tmpdir(), "wp-early-signal-"));
  dirs.push(dataDir);
  const env = { ...process.env, DATABASE_URL: "", NATS_URL: "", DATA_DIR: dataDir, PORT: String(freePort()), EMBEDDED_PG_PORT: String(freePort()), BILLING_SIM_PORT: "0", LOG_LEVEL: "info", LOG_FORMAT: "json" };
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

describe("a signal while the all-in-one starts", () => {
  it.each([
    ["embedded PostgreSQL started", "SIGTERM"],
    ["API listening", "SIGINT"],
  ] as const)("after %j, %s stops it in order and stops the embedded PostgreSQL", async (message, signal) => {
    const s = await signalledAt(message, signal);
    expect(s.signalled).toBe(true);
    expect({ code: s.code, err: s.err }).toEqual({ code: 0, err: "" });
    expect(s.out).toContain('"msg":"stopped"');
    expect(s.out).not.toContain("shutdown step failed");
    const deadline = Date.now() + 5000;
    while (alive(s.postmaster) && Date.now() < deadline) await Bun.sleep(100);
    expect(alive(s.postmaster)).toBe(false);
    expect(existsSync(join(s.dataDir, "postgres", "postmaster.pid"))).toBe(false);
  }, 90_000);
});
