import { describe, expect, it } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type TObject, Type } from "@sinclair/typebox";
import { alertingEnv, loadAlertingConfig } from "../../alerting/config.ts";
import { apiEnv, loadApiConfig } from "../../api/config.ts";
import { commonEnv } from "../../core/config/common.ts";
import { parseEnv } from "../../core/config/parse-env.ts";
import { loadWorkerConfig, workerEnv } from "../../runner/cloud/config.ts";
import { createTestPki } from "../../runner/checks/test-support/test-pki.ts";
import { loadRunnerConfig, runnerEnv } from "../../runner/config.ts";
import { loadSchedulerConfig, schedulerEnv } from "../../scheduler/config.ts";
import pkg from "../../package.json" with { type: "json" };

/**
 * infra/docker-compose.yml cannot drift from the code: every role command is a package.json script,
 * every variable it sets is one that role reads, and the values (with their compose defaults) pass the
 * role's own configuration loader. No Docker engine is needed: the file is read as YAML.
 */
const root = join(import.meta.dir, "..", "..");
const infra = join(root, "infra");

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string; target?: string };
  command?: string[];
  environment?: Record<string, string | number | boolean>;
  restart?: string;
  healthcheck?: { test?: string[]; disable?: boolean };
  depends_on?: Record<string, { condition: string }>;
  volumes?: string[];
  deploy?: { replicas?: number };
  profiles?: string[];
  user?: string;
  read_only?: boolean;
}

const compose = Bun.YAML.parse(readFileSync(join(infra, "docker-compose.yml"), "utf8")) as { services: Record<string, Service>; volumes: Record<string, unknown> };
const services = Object.entries(compose.services);
const SERVICE_DOCKERFILE = "infra/service/Dockerfile";
const RUNNER_DOCKERFILE = "infra/runner/Dockerfile";
const ours = services.filter(([, s]) => s.build?.dockerfile === SERVICE_DOCKERFILE);

/** What each script's entry point parses its environment with. */
const ROLE_SCHEMAS: Record<string, TObject> = { api: apiEnv, scheduler: schedulerEnv, alerting: alertingEnv, worker: workerEnv, migrate: Type.Object(commonEnv) };
const ROLE_LOADERS: Record<string, (env: Record<string, string>, args: string[]) => unknown> = {
  api: (env) => loadApiConfig(env),
  scheduler: (env) => loadSchedulerConfig(env),
  alerting: (env) => loadAlertingConfig(env),
  worker: (env, args) => loadWorkerConfig(env, args),
  migrate: (env) => parseEnv(Type.Object(commonEnv), env),
};

/** Compose interpolation as `docker compose config` would do it with only the required variables set. */
function interpolate(value: string): string {
  return value.replace(/\$\{([A-Z0-9_]+)(?:(:?-)([^}]*)|(:?\?)[^}]*)?\}/g, (_m, _name, dash, fallback) =>
    dash ? fallback : "set-by-the-operator-0123456789abcdef0123456789",
  );
}
const envOf = (s: Service) => Object.fromEntries(Object.entries(s.environment ?? {}).map(([k, v]) => [k, interpolate(String(v))]));

describe("infra/docker-compose.yml", () => {
  it("runs every role of the service image through a package.json script the role's config knows", () => {
    expect(ours.map(([name]) => name).sort()).toEqual(["alerting", "api", "migrate", "scheduler", "worker-eu-west", "worker-us-east"]);
    for (const [name, s] of ours) {
      const script = s.command?.[0] ?? "";
      expect({ name, script, inPackageJson: script in pkg.scripts }).toEqual({ name, script, inPackageJson: true });
      expect({ name, script, hasSchema: script in ROLE_SCHEMAS }).toEqual({ name, script, hasSchema: true });
    }
  });

  it("sets only variables each role reads", () => {
    const unknown: string[] = [];
    for (const [name, s] of ours) {
      const schema = ROLE_SCHEMAS[s.command![0]!]!;
      for (const key of Object.keys(s.environment ?? {})) if (!(key in schema.properties)) unknown.push(`${name}: ${key}`);
    }
    const runner = compose.services.runner!;
    for (const key of Object.keys(runner.environment ?? {})) if (!(key in runnerEnv.properties)) unknown.push(`runner: ${key}`);
    expect(unknown).toEqual([]);
  });

  it("gives each role values its own configuration loader accepts (with the compose defaults)", () => {
    for (const [name, s] of ours) {
      const [script, ...args] = s.command!;
      const load = () => ROLE_LOADERS[script!]!(envOf(s), args);
      expect({ name, error: (() => { try { load(); return null; } catch (e) { return (e as Error).message; } })() }).toEqual({ name, error: null });
    }
    const runnerEnvValues = { ...envOf(compose.services.runner!), SERVICE_TOKEN: "rt_exampletoken0123456789" };
    // NODE_EXTRA_CA_CERTS names the proxy's CA in the runner's container (the proxy_ca volume); a CA file stands in for it.
    expect(envOf(compose.services.runner!).NODE_EXTRA_CA_CERTS).toBe("/ca/root.crt");
    expect(compose.services.runner!.volumes).toContain("proxy_ca:/ca:ro");
    const pki = createTestPki();
    const standIn = join(mkdtempSync(join(tmpdir(), "wp-compose-ca-")), "root.crt");
    try {
      writeFileSync(standIn, pki.caPem);
      expect(() => loadRunnerConfig({ ...runnerEnvValues, NODE_EXTRA_CA_CERTS: standIn })).not.toThrow();
    } finally {
      pki.cleanup();
      rmSync(dirname(standIn), { recursive: true, force: true });
    }
  });

  it("points every server role at the same bus and secret key, and every role but the workers at the same database", () => {
    const scaled = ours.filter(([name]) => name !== "migrate");
    for (const key of ["DATABASE_URL", "NATS_URL", "SECRET_KEY"]) {
      const users = key === "DATABASE_URL" ? scaled.filter(([, s]) => s.command![0] !== "worker") : scaled;
      const values = new Set(users.map(([, s]) => String(s.environment?.[key])));
      expect({ key, values: [...values] }).toEqual({ key, values: [String(compose.services.api!.environment![key])] });
    }
    // A cloud worker speaks only on the bus.
    for (const [name, s] of scaled.filter(([, s]) => s.command![0] === "worker")) expect({ name, database: s.environment?.DATABASE_URL }).toEqual({ name, database: undefined });
    expect(String(compose.services.migrate!.environment!.DATABASE_URL)).toBe(String(compose.services.api!.environment!.DATABASE_URL));
  });

  it("has a cloud worker for every region the API offers, and a standby scheduler", () => {
    const regions = String(compose.services.api!.environment!.REGIONS).split(",");
    const served = ours.filter(([, s]) => s.command![0] === "worker").map(([, s]) => s.command![s.command!.indexOf("--region") + 1]);
    expect(served.sort()).toEqual([...regions].sort());
    expect(compose.services.scheduler!.deploy?.replicas).toBeGreaterThanOrEqual(2);
    for (const [name, s] of ours.filter(([, s]) => s.command![0] === "worker")) expect({ name, private: s.environment?.ALLOW_PRIVATE_IPS }).toEqual({ name, private: "false" });
  });

  it("restarts every long-running service, health-checks it, and orders start-up on health", () => {
    for (const [name, s] of services) {
      const oneShot = s.restart === "no";
      if (oneShot) {
        // A one-shot job is something another service waits for to complete.
        const awaited = services.some(([, o]) => o.depends_on?.[name]?.condition === "service_completed_successfully");
        expect({ name, awaited }).toEqual({ name, awaited: true });
        continue;
      }
      expect({ name, restart: s.restart }).toEqual({ name, restart: "unless-stopped" });
      // Only the runner has no health check: it has no inbound port (the spec); its heartbeat is its health.
      if (name === "runner") expect(s.healthcheck?.disable).toBe(true);
      else expect({ name, test: Array.isArray(s.healthcheck?.test) && s.healthcheck!.test!.length > 1 }).toEqual({ name, test: true });
    }
    for (const [name, s] of services) {
      for (const [dep, { condition }] of Object.entries(s.depends_on ?? {})) {
        expect({ name, dep, exists: dep in compose.services }).toEqual({ name, dep, exists: true });
        const target = compose.services[dep]!;
        const expected = target.restart === "no" ? "service_completed_successfully" : "service_healthy";
        expect({ name, dep, condition }).toEqual({ name, dep, condition: expected });
      }
    }
  });

  it("health-checks the metrics port of the roles that serve one", () => {
    for (const [name, s] of ours.filter(([, s]) => ["scheduler", "alerting", "worker"].includes(s.command![0]!))) {
      const port = String(s.environment?.METRICS_PORT);
      expect({ name, probes: s.healthcheck!.test!.join(" ").includes(`127.0.0.1:${port}/healthz`) }).toEqual({ name, probes: true });
    }
    expect(compose.services.api!.healthcheck!.test!.join(" ")).toContain(`127.0.0.1:${compose.services.api!.environment!.PORT}/readyz`);
  });

  it("declares every named volume and every mounted file exists", () => {
    for (const [name, s] of services) {
      for (const v of s.volumes ?? []) {
        const source = v.split(":")[0]!;
        if (source.startsWith(".")) expect({ name, source, exists: existsSync(join(infra, source)) }).toEqual({ name, source, exists: true });
        else expect({ name, source, declared: source in compose.volumes }).toEqual({ name, source, declared: true });
      }
    }
  });

  it("builds the example runner from a variant of infra/runner/Dockerfile, read-only and unprivileged", () => {
    const runner = compose.services.runner!;
    const stages = [...readFileSync(join(root, RUNNER_DOCKERFILE), "utf8").matchAll(/^FROM \S+ AS (\S+)$/gm)].map((m) => m[1]);
    expect(runner.build?.dockerfile).toBe(RUNNER_DOCKERFILE);
    expect(["standard", "chromium", "firefox", "webkit", "full"]).toContain(runner.build!.target!);
    expect(stages).toContain(runner.build!.target!);
    expect(runner.image).toEndWith(`/runner-${runner.build!.target}:latest`);
    expect(runner).toMatchObject({ read_only: true, user: "10001:10001" });
    expect(String(runner.environment!.SERVICE_API_URL)).toStartWith("https://");
  });
});

describe("infra/service/Dockerfile", () => {
  const text = readFileSync(join(root, SERVICE_DOCKERFILE), "utf8");
  const stages = [...text.matchAll(/^FROM (\S+) AS (\S+)$/gm)].map((m) => ({ base: m[1]!, name: m[2]! }));

  it("is multi-stage on the oven/bun images and builds the target compose uses", () => {
    expect(stages.length).toBeGreaterThanOrEqual(3);
    expect(stages.filter((s) => !stages.some((o) => o.name === s.base)).every((s) => s.base.startsWith("oven/bun:"))).toBe(true);
    for (const [, s] of ours) expect(stages.map((x) => x.name)).toContain(s.build!.target!);
    // The runtime stage is the slim image, without the dev dependencies of the build stages.
    expect(stages.find((s) => s.name === "service")!.base).toEndWith("-slim");
  });

  it("runs as a non-root user in every final stage", () => {
    for (const target of ["service", "service-chromium"]) {
      const section = text.slice(text.indexOf(`AS ${target}\n`)).split(/^FROM /m)[0]!;
      const users = [...section.matchAll(/^USER (\S+)$/gm)].map((m) => m[1]!);
      expect({ target, last: users.at(-1) }).toEqual({ target, last: "10001:10001" });
    }
  });

  it("copies only paths that exist in the repository", () => {
    const sources = [...text.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((m) => m[1]!.split(/\s+/));
    expect(sources.length).toBeGreaterThan(5);
    for (const src of sources) expect({ src, exists: existsSync(join(root, src)) }).toEqual({ src, exists: true });
  });
});
