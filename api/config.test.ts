import { describe, expect, it } from "bun:test";
import { join } from "node:path";
import { Type } from "@sinclair/typebox";
import { loadApiConfig } from "./config.ts";
import { commonEnv } from "../core/config/common.ts";
import { ConfigError, EnvBool, parseEnv } from "../core/config/parse-env.ts";

const root = join(import.meta.dir, "..");

function failure(env: Record<string, string>): string {
  try {
    loadApiConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error(`no error for ${JSON.stringify(env)}`);
}

describe("parseEnv", () => {
  it("names the variable, its value and its rule when a number is not a number", () => {
    expect(failure({ PORT: "abc" })).toBe('Invalid environment variable PORT="abc": Expected integer (API listen port, 0-65535)');
    expect(failure({ PORT: "70000" })).toContain("PORT=");
    expect(failure({ PORT: "70000" })).toContain("0-65535");
  });

  it("lists the allowed values of LOG_LEVEL", () => {
    const message = failure({ LOG_LEVEL: "loud" });
    expect(message).toStartWith('Invalid environment variable LOG_LEVEL="loud"');
    expect(message).toContain("one of fatal, error, warn, info, debug, trace, silent");
  });

  it("refuses a DATABASE_URL that is not PostgreSQL, without echoing its password", () => {
    const message = failure({ DATABASE_URL: "mysql://app:hunter2secret@db.internal/app" });
    expect(message).toStartWith("Invalid environment variable DATABASE_URL=");
    expect(message).toContain("PostgreSQL URL");
    expect(message).toContain("mysql://app:[redacted]@db.internal/app");
    expect(message).not.toContain("hunter2secret");
  });

  it("never echoes a rejected secret", () => {
    const message = failure({ SECRET_KEY: "too-short-but-still-secret" });
    expect(message).toStartWith("Invalid environment variable SECRET_KEY=[redacted]");
    expect(message).toContain("at least 32 characters");
    expect(message).not.toContain("too-short-but-still-secret");
  });

  it("applies defaults and converts numbers", () => {
    const config = loadApiConfig({ PORT: "8080" });
    expect(config.PORT).toBe(8080);
    expect(config.RATE_LIMIT_PER_ORG).toBe(300);
    expect(config.RATE_LIMIT_PER_IP).toBe(10);
    expect(config.HOST).toBe("127.0.0.1");
  });

  it("reads booleans as true/false, 1/0, yes/no and on/off, and refuses anything else by name", () => {
    const schema = Type.Object({ FLAG: EnvBool(false, "a switch") });
    for (const [raw, value] of [["true", true], ["TRUE", true], ["1", true], ["yes", true], ["On", true], ["false", false], ["0", false], ["no", false], ["off", false]] as const) {
      expect(parseEnv(schema, { FLAG: raw }).FLAG).toBe(value);
    }
    expect(parseEnv(schema, {}).FLAG).toBe(false);
    expect(() => parseEnv(schema, { FLAG: "maybe" })).toThrow('Invalid environment variable FLAG="maybe"');
  });
});

describe("NATS_URL and NATS_REPLICAS", () => {
  const schema = Type.Object(commonEnv);
  it("takes one server or the servers of a cluster comma-separated, with a replica count of 1 to 5", () => {
    expect(parseEnv(schema, { NATS_URL: "nats://127.0.0.1:4222" })).toMatchObject({ NATS_URL: "nats://127.0.0.1:4222", NATS_REPLICAS: 1 });
    expect(parseEnv(schema, { NATS_URL: "nats://n1:4222,tls://n2:4222,nats://n3:4222", NATS_REPLICAS: "3" })).toMatchObject({ NATS_REPLICAS: 3 });
    for (const bad of ["nats://n1:4222,", "nats://n1:4222, nats://n2:4222", "nats://n1:4222,http://n2", "n1:4222"]) {
      expect(() => parseEnv(schema, { NATS_URL: bad })).toThrow("Invalid environment variable NATS_URL");
    }
    expect(() => parseEnv(schema, { NATS_REPLICAS: "7" })).toThrow("Invalid environment variable NATS_REPLICAS");
  });
});

describe("bun api/main.ts", () => {
  it("exits non-zero with a message naming PORT when PORT=abc", async () => {
    const proc = Bun.spawn(["bun", "api/main.ts"], {
      cwd: root,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", PORT: "abc", DATABASE_URL: "postgres://127.0.0.1:1/never" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    expect(code).not.toBe(0);
    expect(stderr).toContain('Invalid environment variable PORT="abc"');
    expect(stderr).not.toContain("    at ");
  });
});
