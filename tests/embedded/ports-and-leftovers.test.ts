import { afterAll, describe, expect, it } from "bun:test";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../support/free-port.ts";
import { alive, gone } from "../support/processes.ts";

// Issue 20, item 1: a second instance on the machine must not need EMBEDDED_PG_PORT and BILLING_SIM_PORT
// changed by hand, and an embedded PostgreSQL left behind (its server killed) must not outlive the next one.
const root = join(import.meta.dir, "..", "..");
const dataDir = mkdtempSync(join(tmpdir(), "wp-ports-"));
chmodSync(dataDir, 0o700);
const servers: ReturnType<typeof Bun.spawn>[] = [];
afterAll(async () => {
  // A failed expectation must not leave a server (and its database) running.
  for (const proc of servers) proc.kill("SIGTERM");
  await Promise.all(servers.map((proc) => proc.exited));
  rmSync(dataDir, { recursive: true, force: true });
});

const port = freePort();
// EMBEDDED_PG_PORT and BILLING_SIM_PORT unset: the all-in-one chooses (as a new user runs it).
const { EMBEDDED_PG_PORT: _pg, BILLING_SIM_PORT: _sim, ...parent } = process.env;
// BILLING=simulator: the hosted demo setup, whose payment simulator needs a port too.
const env = { ...parent, DATABASE_URL: "", NATS_URL: "", DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: "warn", BILLING: "simulator" };

async function start() {
  const proc = Bun.spawn(["bun", "scripts/start.ts"], { cwd: root, env, stdout: "pipe", stderr: "pipe" });
  servers.push(proc);
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status === 200, () => false)) return proc;
    if (proc.exitCode !== null) throw new Error(`exited ${proc.exitCode}: ${await new Response(proc.stderr).text()}`);
    await Bun.sleep(200);
  }
  proc.kill("SIGKILL");
  throw new Error("did not become ready in 60 s");
}

const remembered = () => JSON.parse(readFileSync(join(dataDir, "ports.json"), "utf8")) as { EMBEDDED_PG_PORT: number; BILLING_SIM_PORT: number };
const postmasterPid = () => Number(readFileSync(join(dataDir, "postgres", "postmaster.pid"), "utf8").split("\n")[0]);
describe("ports and left-behind databases of the all-in-one mode", () => {
  it("moves the embedded database and the billing simulator off taken ports, and remembers the new ones in DATA_DIR", async () => {
    const pgSquatter = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const simSquatter = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    // The ports this DATA_DIR used last time are now another instance's.
    writeFileSync(join(dataDir, "ports.json"), JSON.stringify({ EMBEDDED_PG_PORT: pgSquatter.port, BILLING_SIM_PORT: simSquatter.port }));
    try {
      const first = await start();
      const chosen = remembered();
      expect(chosen.EMBEDDED_PG_PORT).not.toBe(pgSquatter.port);
      expect(chosen.BILLING_SIM_PORT).not.toBe(simSquatter.port);
      expect(Number(readFileSync(join(dataDir, "postgres", "postmaster.pid"), "utf8").split("\n")[3])).toBe(chosen.EMBEDDED_PG_PORT);
      expect((await fetch(`http://127.0.0.1:${chosen.BILLING_SIM_PORT}/sim/state`)).status).toBe(200);
      first.kill("SIGTERM");
      expect(await first.exited).toBe(0);

      // The next start takes the same ones again.
      const second = await start();
      expect(remembered()).toEqual(chosen);
      second.kill("SIGTERM");
      expect(await second.exited).toBe(0);
    } finally {
      pgSquatter.stop(true);
      simSquatter.stop(true);
    }
  }, 120_000);

  it("adopts an embedded PostgreSQL left running by a killed start, and stops it on SIGTERM", async () => {
    const killed = await start();
    const orphan = postmasterPid();
    killed.kill("SIGKILL");
    await killed.exited;
    expect(alive(orphan)).toBe(true);

    const next = await start();
    next.kill("SIGTERM");
    expect(await next.exited).toBe(0);
    expect(await gone(orphan)).toBe(true);
    expect(existsSync(join(dataDir, "postgres", "postmaster.pid"))).toBe(false);
  }, 120_000);

  it("exits at once with one line naming PORT when the API port is taken", async () => {
    const squatter = Bun.listen({ hostname: "127.0.0.1", port, socket: { data() {} } });
    try {
      const proc = Bun.spawn(["bun", "scripts/start.ts"], { cwd: root, env, stdout: "pipe", stderr: "pipe" });
      expect(await proc.exited).not.toBe(0);
      const lines = (await new Response(proc.stderr).text()).trim().split("\n");
      expect(lines).toEqual([`watchpost: PORT=${port} is taken by another process: set PORT to a free port`]);
    } finally {
      squatter.stop(true);
    }
  }, 60_000);
});
