/**
 * Issue 20: the CLI (`bun run cli ...`, `bun run migrate`) on the DATA_DIR of a running `npm start`
 * shares its embedded PostgreSQL. Whichever of them started the database, none stops it while another
 * still uses it, and the last one to leave stops it.
 */
import { afterAll, describe, expect, it } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../support/free-port.ts";
import { alive, gone } from "../support/processes.ts";

const root = join(import.meta.dir, "..", "..");
const dirs: string[] = [];
const procs: { kill(signal?: NodeJS.Signals | number): void; exited: Promise<number> }[] = [];
afterAll(async () => {
  // A failed expectation must not leave a server, a holder or their database running.
  for (const proc of procs) proc.kill("SIGTERM");
  await Promise.all(procs.map((p) => p.exited));
  await Bun.sleep(1000);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}, 60_000);

/** One DATA_DIR, as a new user has it: EMBEDDED_PG_PORT and BILLING_SIM_PORT unset. */
function installation() {
  const dataDir = mkdtempSync(join(tmpdir(), "wp-share-"));
  dirs.push(dataDir);
  const port = freePort();
  const { EMBEDDED_PG_PORT: _pg, BILLING_SIM_PORT: _sim, DATABASE_URL: _db, ...parent } = process.env;
  const env = { ...parent, NATS_URL: "", DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: "warn", LOG_FORMAT: "json" };
  const postmaster = () => Number(readFileSync(join(dataDir, "postgres", "postmaster.pid"), "utf8").split("\n")[0]);
  const ready = () => fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status === 200, () => false);

  async function server() {
    const proc = Bun.spawn(["bun", "scripts/start.ts"], { cwd: root, env, stdout: "pipe", stderr: "pipe" });
    procs.push(proc);
    const deadline = Date.now() + 90_000;
    while (!(await ready())) {
      if (proc.exitCode !== null) throw new Error(`server exited ${proc.exitCode}: ${await new Response(proc.stderr).text()}`);
      if (Date.now() > deadline) throw new Error("server did not become ready in 90 s");
      await Bun.sleep(200);
    }
    return proc;
  }

  /** A CLI command that holds the database until told to leave (tests/cli/hold-embedded-db.ts). */
  async function holder() {
    const proc = Bun.spawn(["bun", "tests/cli/hold-embedded-db.ts"], { cwd: root, env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    procs.push(proc);
    const reader = proc.stdout.getReader();
    let buffered = "";
    const nextLine = async (): Promise<string> => {
      while (!buffered.includes("\n")) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`holder exited: ${await new Response(proc.stderr).text()}`);
        buffered += new TextDecoder().decode(value);
      }
      const [line, ...rest] = buffered.split("\n");
      buffered = rest.join("\n");
      return line!;
    };
    expect(await nextLine()).toBe("ready");
    const send = (line: string) => {
      proc.stdin.write(`${line}\n`);
      proc.stdin.flush();
    };
    return {
      proc,
      async query(): Promise<string> {
        send("query");
        return nextLine();
      },
      async leave(): Promise<number> {
        send("exit");
        return proc.exited;
      },
    };
  }

  async function cli(...args: string[]) {
    const proc = Bun.spawn(["bun", "run", "cli", ...args], { cwd: root, env, stdout: "pipe", stderr: "pipe" });
    const [code, stdout, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
    return { code, stdout, stderr };
  }

  return { dataDir, port, postmaster, ready, server, holder, cli };
}

describe("the CLI and a running server on one DATA_DIR", () => {
  it("a CLI command run while the server runs leaves the server's database running, and the server stops it", async () => {
    const i = installation();
    const server = await i.server();
    const pid = i.postmaster();
    const res = await i.cli("org:create", "--name", "Acme", "--email", "ops@acme.test", "--password", "a long cli password");
    expect(res.code).toBe(0);
    // Exactly one line on stdout: the result (log lines go to stderr).
    expect(res.stdout.trim().split("\n")).toHaveLength(1);
    expect(JSON.parse(res.stdout).api_key).toMatch(/^wp_live_/);
    expect(alive(pid)).toBe(true);
    expect(await i.ready()).toBe(true);
    const signin = await fetch(`http://127.0.0.1:${i.port}/api/v1/auth/signin`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "ops@acme.test", password: "a long cli password" }),
    });
    expect(signin.status).toBe(200);

    server.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    expect(await gone(pid)).toBe(true);
    expect(existsSync(join(i.dataDir, "postgres", "postmaster.pid"))).toBe(false);
  }, 180_000);

  it("a server started while a CLI command holds the database it started keeps that database when the command exits", async () => {
    const i = installation();
    const cli = await i.holder();
    const pid = i.postmaster();
    const server = await i.server();
    expect(i.postmaster()).toBe(pid);

    expect(await cli.leave()).toBe(0);
    await Bun.sleep(1000);
    expect(alive(pid)).toBe(true);
    expect(await i.ready()).toBe(true);

    // The server, now its only user, stops it when it stops.
    server.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    expect(await gone(pid)).toBe(true);
    expect(existsSync(join(i.dataDir, "postgres", "postmaster.pid"))).toBe(false);
  }, 180_000);

  it("a server that stops while a CLI command still uses its database leaves it to the command, which stops it on exit", async () => {
    const i = installation();
    const server = await i.server();
    const pid = i.postmaster();
    const cli = await i.holder();

    server.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    expect(alive(pid)).toBe(true);
    expect(await cli.query()).toBe("ok 0");

    expect(await cli.leave()).toBe(0);
    expect(await gone(pid)).toBe(true);
    expect(existsSync(join(i.dataDir, "postgres", "postmaster.pid"))).toBe(false);
  }, 180_000);
});
