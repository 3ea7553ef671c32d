import { afterAll, describe, expect, it } from "bun:test";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { privateCheckout, REPO_ROOT } from "./private-checkout.ts";
import { freePort } from "../support/free-port.ts";

// Issue 20, item 1: `npm start` from a checkout in a 0700 folder (as under /root) and with a DATA_DIR from
// `mktemp -d` (0700). As root the embedded PostgreSQL runs as another user, which must reach both.
const root = REPO_ROOT;
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function privateRepo(): string {
  const { home, repo } = privateCheckout();
  made.push(home);
  return repo;
}

/** Starts `bun scripts/start.ts` in cwd; resolves once /readyz answers, or with the exit and output. */
async function start(cwd: string, extra: Record<string, string>) {
  const port = freePort();
  const env = { ...process.env, DATABASE_URL: "", NATS_URL: "", DATA_DIR: "", PORT: String(port), EMBEDDED_PG_PORT: String(freePort()), BILLING_SIM_PORT: "0", LOG_LEVEL: "warn", ...extra };
  const proc = Bun.spawn(["bun", "scripts/start.ts"], { cwd, env, stdout: "pipe", stderr: "pipe" });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status === 200, () => false)) return { proc, port };
    if (proc.exitCode !== null) throw new Error(`exited ${proc.exitCode}: ${await new Response(proc.stderr).text()}`);
    await Bun.sleep(200);
  }
  proc.kill("SIGKILL");
  throw new Error("did not become ready in 60 s");
}

describe("npm start anywhere", () => {
  it("serves from a checkout inside a 0700 folder, with the default DATA_DIR, and stops on SIGTERM", async () => {
    const repo = privateRepo();
    const { proc } = await start(repo, {});
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
  }, 120_000);

  it("serves with a DATA_DIR made by mktemp -d (0700)", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "wp-data-"));
    made.push(dataDir);
    chmodSync(dataDir, 0o700);
    const { proc } = await start(root, { DATA_DIR: dataDir });
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
  }, 120_000);

  it("exits non-zero at once, with the reason, when the embedded database cannot be set up", async () => {
    const dir = mkdtempSync(join(tmpdir(), "wp-file-"));
    made.push(dir);
    writeFileSync(join(dir, "not-a-folder"), "");
    const startedAt = Date.now();
    const err = await start(root, { DATA_DIR: join(dir, "not-a-folder", "data") }).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toMatch(/^exited [1-9]/);
    expect(err?.message).toContain("not-a-folder");
    expect(Date.now() - startedAt).toBeLessThan(15_000);
  }, 60_000);
});
