import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "../core/config/parse-env.ts";
import { createTestPki, type TestPki } from "./checks/test-support/test-pki.ts";
import { loadWorkerConfig } from "./cloud/config.ts";
import { loadRunnerConfig } from "./config.ts";

// NODE_EXTRA_CA_CERTS is read by the two roles that run checks; the runtime itself ignores a bad value silently.
const loaders: Record<string, (env: Record<string, string>) => { NODE_EXTRA_CA_CERTS?: string }> = {
  worker: (env) => loadWorkerConfig({ REGION: "eu-west", ...env }),
  runner: (env) => loadRunnerConfig({ SERVICE_API_URL: "https://api.example.test", SERVICE_TOKEN: "rt_abc", ...env }),
};

let dir: string;
let pki: TestPki;
const file = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "wp-extra-ca-config-"));
  mkdirSync(join(dir, "a-directory"));
  pki = createTestPki();
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  pki.cleanup();
});

describe("NODE_EXTRA_CA_CERTS in the worker and runner configuration", () => {
  it("refuses a path that is not a file of PEM certificates, naming the variable and what is wrong", () => {
    const bad: Array<[string, string]> = [
      [join(dir, "missing.pem"), "no such file"],
      [join(dir, "a-directory"), "a directory, not a file"],
      [file("empty.pem", ""), "the file holds no PEM certificate"],
      [file("key.pem", "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIA==\n-----END PRIVATE KEY-----\n"), "the file holds no PEM certificate"],
      [file("broken.pem", "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n"), "the file holds no PEM certificate"],
    ];
    for (const [role, load] of Object.entries(loaders)) {
      for (const [path, why] of bad) {
        let error: unknown;
        try {
          load({ NODE_EXTRA_CA_CERTS: path });
        } catch (err) {
          error = err;
        }
        expect({ role, path, error: error instanceof ConfigError }).toEqual({ role, path, error: true });
        expect((error as Error).message).toStartWith(`Invalid environment variable NODE_EXTRA_CA_CERTS=${JSON.stringify(path)}: ${why}`);
      }
    }
  });

  it("accepts a file with a CA certificate among other text, and passes the path on", () => {
    const bundle = file("bundle.pem", `# our internal CA\n${pki.caPem}`);
    for (const load of Object.values(loaders)) {
      expect(load({ NODE_EXTRA_CA_CERTS: bundle }).NODE_EXTRA_CA_CERTS).toBe(bundle);
      expect(load({}).NODE_EXTRA_CA_CERTS).toBeUndefined();
    }
  });

  it("stops the worker at start with exit code 78 and the message", async () => {
    const missing = join(dir, "missing.pem");
    const proc = Bun.spawn(["bun", join(import.meta.dir, "cloud/main.ts"), "--region", "eu-west"], {
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/root", NODE_EXTRA_CA_CERTS: missing },
      stdout: "pipe",
      stderr: "pipe",
    });
    // A worker that accepted the value would keep running: stop it rather than hang the test.
    const stop = setTimeout(() => proc.kill(), 10_000);
    const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    clearTimeout(stop);
    expect(code).toBe(78);
    expect(stderr).toContain(`watchpost: Invalid environment variable NODE_EXTRA_CA_CERTS=${JSON.stringify(missing)}: no such file`);
  });
});
