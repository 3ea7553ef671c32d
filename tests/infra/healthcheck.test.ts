/**
 * The container images' HEALTHCHECK: the service image asks the role's /healthz — on METRICS_PORT for the
 * roles that serve one (core/process/metrics-server.ts), else the API's own on PORT — through
 * scripts/healthcheck.ts, run here as the image runs it against real listeners on loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Registry } from "prom-client";
import { startMetricsServer } from "../../core/process/metrics-server.ts";
import { startTestApi, type TestApi } from "../support/api.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { freePort } from "../support/free-port.ts";

const root = join(import.meta.dir, "..", "..");
const dockerfile = (path: string) => readFileSync(join(root, path), "utf8");

/** Runs the image's HEALTHCHECK command with only the given environment (asynchronously: the servers it asks live in this process). */
async function healthcheck(env: Record<string, string>): Promise<{ code: number; ms: number }> {
  const started = performance.now();
  const proc = Bun.spawn(["bun", "scripts/healthcheck.ts"], { cwd: root, env: { PATH: process.env.PATH ?? "", ...env }, stdout: "ignore", stderr: "ignore" });
  return { code: await proc.exited, ms: performance.now() - started };
}

describe("service image HEALTHCHECK (scripts/healthcheck.ts)", () => {
  let db: TestDatabase;
  let api: TestApi;
  beforeAll(async () => {
    db = await createTestDatabase();
    api = await startTestApi({}, db);
  }, 60_000);
  afterAll(async () => {
    await api?.stop();
    await db?.drop();
  }, 30_000);

  it("is healthy when the role's /healthz on METRICS_PORT answers 200, unhealthy when it answers 503", async () => {
    let healthy = true;
    const server = startMetricsServer({ host: "127.0.0.1", port: freePort(), registry: new Registry(), healthy: () => healthy });
    try {
      expect((await healthcheck({ METRICS_PORT: String(server.port) })).code).toBe(0);
      healthy = false;
      expect((await healthcheck({ METRICS_PORT: String(server.port) })).code).not.toBe(0);
    } finally {
      server.stop();
    }
  });

  it("asks the API's /healthz on PORT when no METRICS_PORT is set", async () => {
    const port = new URL(api.url).port;
    expect((await healthcheck({ PORT: port })).code).toBe(0);
    // METRICS_PORT=0 is a random port: nothing to ask there, so PORT is asked.
    expect((await healthcheck({ PORT: port, METRICS_PORT: "0" })).code).toBe(0);
  });

  it("is unhealthy, within its timeout, when nothing listens", async () => {
    const r = await healthcheck({ METRICS_PORT: String(freePort()) });
    expect(r.code).not.toBe(0);
    expect(r.ms).toBeLessThan(10_000);
  });

  it("is the HEALTHCHECK of the service image, which runs as a non-root user", () => {
    const text = dockerfile("infra/service/Dockerfile");
    expect(text).toMatch(/^HEALTHCHECK .*CMD \["bun", "scripts\/healthcheck\.ts"\]$/m);
    // Every role gets a /healthz: the image's default METRICS_PORT is the one the probes and compose use.
    expect(text).toMatch(/^ENV .*METRICS_PORT=9464/m);
    const users = [...text.matchAll(/^USER (\S+)$/gm)].map((m) => m[1]);
    expect(users.at(-1)).toBe("10001:10001");
  });

  it("the runner image runs as a non-root user and says why it has no HEALTHCHECK (no listener: its heartbeat is its liveness)", () => {
    const text = dockerfile("infra/runner/Dockerfile");
    expect([...text.matchAll(/^USER (\S+)$/gm)].map((m) => m[1]).at(-1)).toBe("10001:10001");
    expect(text).toMatch(/^HEALTHCHECK NONE$/m);
  });
});
