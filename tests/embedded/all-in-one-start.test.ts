import { afterAll, describe, expect, it } from "bun:test";
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../support/free-port.ts";

const root = join(import.meta.dir, "..", "..");
const dataDir = mkdtempSync(join(tmpdir(), "wp-embedded-"));
// Run as root, the embedded server runs as a separate postgres user that must reach the folder.
chmodSync(dataDir, 0o755);
// Below the kernel's ephemeral range (tests/support/free-port.ts): a random port in it was once the local end of some
// outgoing connection, and the embedded PostgreSQL could not bind it.
const port = freePort();
const pgPort = freePort();
const env = {
  ...process.env,
  DATABASE_URL: "",
  NATS_URL: "",
  DATA_DIR: dataDir,
  PORT: String(port),
  EMBEDDED_PG_PORT: String(pgPort),
  BILLING_SIM_PORT: "0",
  LOG_LEVEL: "warn",
  // Self-hosted, sign-up would be closed after the first account; these tests sign up several (start and stop is their subject).
  SIGNUP_OPEN: "true",
};

async function startServer() {
  const proc = Bun.spawn(["bun", "scripts/start.ts"], { cwd: root, env, stdout: "pipe", stderr: "pipe" });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status === 200).catch(() => false);
    if (ready) return proc;
    if (proc.exitCode !== null) throw new Error(`server exited: ${await new Response(proc.stderr).text()}`);
    await Bun.sleep(200);
  }
  proc.kill();
  throw new Error("server did not become ready");
}

/** An org:admin key for the session a sign-up response opened. */
async function signupKey(signup: Response): Promise<{ api_key: string }> {
  const cookies = signup.headers.getSetCookie().map((c) => c.split(";")[0]!);
  const csrf = cookies.find((c) => c.startsWith("wp_csrf="))?.split("=")[1] ?? "";
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/api-keys`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie: cookies.join("; "), "x-csrf-token": csrf },
    body: JSON.stringify({ name: "stream", scopes: ["monitors:read"] }),
  });
  if (res.status !== 201) throw new Error(`key creation: ${res.status} ${await res.text()}`);
  return { api_key: ((await res.json()) as { key: string }).key };
}

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe("all-in-one start on the embedded database", () => {
  it("starts with no configuration, keeps data across a restart and stops cleanly on SIGTERM", async () => {
    const first = await startServer();
    const signup = await fetch(`http://127.0.0.1:${port}/api/v1/auth/signup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "embedded@example.test", password: "a long password", name: "Embedded" }),
    });
    expect(signup.status).toBe(201);
    const { api_key } = await signupKey(signup);

    // A live stream stays open until shutdown; it must not hold the shutdown up.
    const stream = await fetch(`http://127.0.0.1:${port}/api/v1/events`, { headers: { authorization: `Bearer ${api_key}`, accept: "text/event-stream" } });
    expect(stream.status).toBe(200);
    const streamText = new Response(stream.body).text();

    // A sign-up whose body is still arriving when SIGTERM comes: it is in flight and must finish.
    let sendRest = () => {};
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        const json = JSON.stringify({ email: "late@example.test", password: "a long password", name: "Late" });
        controller.enqueue(new TextEncoder().encode(json.slice(0, 10)));
        sendRest = () => {
          controller.enqueue(new TextEncoder().encode(json.slice(10)));
          controller.close();
        };
      },
    });
    const late = fetch(`http://127.0.0.1:${port}/api/v1/auth/signup`, { method: "POST", headers: { "content-type": "application/json" }, body });
    await Bun.sleep(300);
    const signalledAt = Date.now();
    first.kill("SIGTERM");
    await Bun.sleep(300);
    sendRest();
    expect((await late).status).toBe(201);
    expect(await streamText).toContain(": connected");
    expect(await first.exited).toBe(0);
    expect(Date.now() - signalledAt).toBeLessThan(5000);
    // The embedded PostgreSQL stopped with it.
    expect(existsSync(join(dataDir, "postgres", "postmaster.pid"))).toBe(false);

    const second = await startServer();
    const signin = await fetch(`http://127.0.0.1:${port}/api/v1/auth/signin`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "embedded@example.test", password: "a long password" }),
    });
    expect(signin.status).toBe(200);
    const lateSignin = await fetch(`http://127.0.0.1:${port}/api/v1/auth/signin`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "late@example.test", password: "a long password" }),
    });
    expect(lateSignin.status).toBe(200);
    second.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  }, 120_000);

  it("stops cleanly when a terminal's Ctrl-C reaches its whole process group, the embedded PostgreSQL included", async () => {
    // `npm start` in a terminal: Ctrl-C sends SIGINT to every process of the foreground group. The
    // embedded PostgreSQL must not take it (it would shut down under the roles still storing results).
    const proc = spawn("bun", ["scripts/start.ts"], { cwd: root, env: { ...env, LOG_LEVEL: "info" }, detached: true, stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    proc.stdout!.on("data", (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
    const deadline = Date.now() + 60_000;
    while (!(await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status === 200).catch(() => false))) {
      if (Date.now() > deadline) throw new Error(`server did not become ready: ${out}`);
      await Bun.sleep(200);
    }
    const signalledAt = Date.now();
    process.kill(-proc.pid!, "SIGINT");
    expect(await exited).toBe(0);
    expect(Date.now() - signalledAt).toBeLessThan(5000);
    expect(out).toContain('"msg":"stopped"');
    expect(out).not.toContain("shutdown step failed");
    expect(existsSync(join(dataDir, "postgres", "postmaster.pid"))).toBe(false);
  }, 90_000);

  it("exits naming PORT when the API port is taken, and stops the embedded PostgreSQL it started", async () => {
    const squatter = Bun.listen({ hostname: "127.0.0.1", port, socket: { data() {} } });
    try {
      const proc = Bun.spawn(["bun", "scripts/start.ts"], { cwd: root, env, stdout: "pipe", stderr: "pipe" });
      expect(await proc.exited).toBe(78);
      expect(await new Response(proc.stderr).text()).toContain(`PORT=${port} is taken by another process`);
      expect(existsSync(join(dataDir, "postgres", "postmaster.pid"))).toBe(false);
    } finally {
      squatter.stop(true);
    }
  }, 60_000);
});
