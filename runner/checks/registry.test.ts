import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { checks, runCheck } from "./registry.ts";
import { startSilentServer, type Stoppable } from "./test-support/loopback-servers.ts";
import { CheckAbortedError, EXECUTABLE_CHECK_TYPES, InvalidCheckJobError, type CheckJob } from "./types.ts";

let listener: Stoppable;
beforeAll(async () => {
  listener = await startSilentServer();
});
afterAll(() => listener.stop());

const job = (overrides: Partial<CheckJob> = {}): CheckJob => ({
  type: "tcp",
  config: { host: "127.0.0.1", port: listener.port },
  timeoutMs: 2000,
  allowPrivate: true,
  ipv6: false,
  ...overrides,
});

describe("check registry", () => {
  it("has one entry per executable check type, each under its own type name", () => {
    expect(Object.keys(checks).sort()).toEqual([...EXECUTABLE_CHECK_TYPES].sort());
    for (const [type, check] of Object.entries(checks)) expect(check.type).toBe(type as never);
  });

  it("has a test beside every check type it registers", () => {
    for (const type of Object.keys(checks)) expect(existsSync(join(import.meta.dir, type, `${type}.test.ts`))).toBe(true);
  });
});

describe("runCheck", () => {
  it("runs the job through the check type it names", async () => {
    const result = await runCheck(job());
    expect(result.status).toBe("up");
    expect(result.data.ip).toBe("127.0.0.1");
  });

  it("applies the job's allowPrivate to the guard", async () => {
    const result = await runCheck(job({ allowPrivate: false }));
    expect(result.status).toBe("down");
    expect(result.error).toContain("refused to contact 127.0.0.1: loopback address");
  });

  it("rejects a config that does not match the type's schema, listing the issues", async () => {
    const err = await runCheck(job({ config: { host: "127.0.0.1", port: "eighty" } })).catch((e) => e);
    expect(err).toBeInstanceOf(InvalidCheckJobError);
    expect(err.permanent).toBe(true);
    expect(err.issues.join("\n")).toContain("/port");
  });

  it("rejects a config with fields the schema does not know", async () => {
    await expect(runCheck(job({ config: { host: "127.0.0.1", port: 80, extra: true } }))).rejects.toBeInstanceOf(InvalidCheckJobError);
  });

  it("rejects a type that does not run on the engine", async () => {
    const err = await runCheck(job({ type: "heartbeat" as never, config: { period_seconds: 60 } })).catch((e) => e);
    expect(err).toBeInstanceOf(InvalidCheckJobError);
    expect(err.message).toBe("check type heartbeat does not run on this engine");
  });

  it("rejects a timeout outside 1 ms to 120 s", async () => {
    await expect(runCheck(job({ timeoutMs: 0 }))).rejects.toBeInstanceOf(InvalidCheckJobError);
    await expect(runCheck(job({ timeoutMs: 600_000 }))).rejects.toBeInstanceOf(InvalidCheckJobError);
  });

  it("passes the caller's signal to the check", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(runCheck(job(), { signal: controller.signal })).rejects.toBeInstanceOf(CheckAbortedError);
  });

  it("passes an injected resolver to the guard", async () => {
    const result = await runCheck(job({ config: { host: "db.test", port: listener.port } }), {
      resolver: async () => [{ address: "127.0.0.1", family: 4 }],
    });
    expect(result.status).toBe("up");
  });
});
