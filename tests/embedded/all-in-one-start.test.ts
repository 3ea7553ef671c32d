import { afterAll, describe, expect, it } from "bun:test";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dir, "..", "..");
const dataDir = mkdtempSync(join(tmpdir(), "wp-embedded-"));
// Run as root, the embedded server runs as a separate postgres user that must reach the folder.
chmodSync(dataDir, 0o755);
const port = 20000 + Math.floor(Math.random() * 20000);
const pgPort = port + 1;
const env = { ...process.env, DATABASE_URL: "", NATS_URL: "", DATA_DIR: dataDir, PORT: String(port), EMBEDDED_PG_PORT: String(pgPort), LOG_LEVEL: "warn" };

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
    first.kill("SIGTERM");
    expect(await first.exited).toBe(0);

    const second = await startServer();
    const signin = await fetch(`http://127.0.0.1:${port}/api/v1/auth/signin`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "embedded@example.test", password: "a long password" }),
    });
    expect(signin.status).toBe(200);
    second.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  }, 120_000);
});
