import { afterAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../support/free-port.ts";

// Issue 20, item 1: pretty logs when stdout is a terminal, JSON otherwise; LOG_FORMAT still decides when set.
// Each start logs the embedded database starting, then exits on the taken PORT (nothing to stop).
const root = join(import.meta.dir, "..", "..");
const dataDir = mkdtempSync(join(tmpdir(), "wp-logs-"));
const squatter = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
afterAll(() => {
  squatter.stop(true);
  rmSync(dataDir, { recursive: true, force: true });
});

const pgPort = freePort();

/** The log line of the embedded database starting, from `bun scripts/start.ts` on a pipe or a terminal (util-linux `script`). */
async function startedLine(terminal: boolean, extra: Record<string, string> = {}): Promise<string> {
  const { LOG_FORMAT: _format, ...parent } = process.env;
  const env = { ...parent, DATABASE_URL: "", NATS_URL: "", DATA_DIR: dataDir, PORT: String(squatter.port), EMBEDDED_PG_PORT: String(pgPort), BILLING_SIM_PORT: "0", LOG_LEVEL: "info", ...extra };
  const cmd = terminal ? ["script", "-qefc", "bun scripts/start.ts", "/dev/null"] : ["bun", "scripts/start.ts"];
  const proc = Bun.spawn(cmd, { cwd: root, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const out = await new Response(proc.stdout).text();
  expect(await proc.exited).not.toBe(0);
  const line = out.split(/\r?\n/).find((l) => l.includes("embedded PostgreSQL started"));
  if (!line) throw new Error(`no start line in: ${out}`);
  return line;
}

describe("log format", () => {
  it("writes JSON lines when stdout is not a terminal", async () => {
    expect(JSON.parse(await startedLine(false)).msg).toBe("embedded PostgreSQL started");
  }, 60_000);

  it("writes pretty lines when stdout is a terminal", async () => {
    const line = await startedLine(true);
    expect(line.trimStart().startsWith("{")).toBe(false);
    expect(line).toContain("INFO");
  }, 60_000);

  it("writes JSON to a terminal when LOG_FORMAT=json says so", async () => {
    expect(JSON.parse(await startedLine(true, { LOG_FORMAT: "json" })).msg).toBe("embedded PostgreSQL started");
  }, 60_000);
});
