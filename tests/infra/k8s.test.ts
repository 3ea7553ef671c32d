import { describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { TObject } from "@sinclair/typebox";
import { ConfigMap, Service } from "kubernetes-models/v1";
import { Deployment, StatefulSet } from "kubernetes-models/apps/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { alertingEnv, loadAlertingConfig } from "../../alerting/config.ts";
import { apiEnv, loadApiConfig } from "../../api/config.ts";
import { loadWorkerConfig, workerEnv } from "../../runner/cloud/config.ts";
import { loadRunnerConfig, runnerEnv } from "../../runner/config.ts";
import { loadSchedulerConfig, schedulerEnv } from "../../scheduler/config.ts";
import pkg from "../../package.json" with { type: "json" };

/**
 * infra/k8s: the kustomize base and its overlays, rendered by `kubectl kustomize` (Debian's kubectl,
 * scripts/ensure-deps.sh) exactly as `kubectl apply -k` would, then every object validated against the
 * Kubernetes OpenAPI schemas (kubernetes-models' validate()) and every role's environment against the
 * role's own configuration loader. No cluster is needed.
 */
const k8s = join(import.meta.dir, "..", "..", "infra", "k8s");

// biome-ignore lint/suspicious/noExplicitAny: rendered YAML
type K8sObject = { apiVersion: string; kind: string; metadata: { name: string }; [key: string]: any };

/** The kinds the manifests may use, each with its schema-checked model. */
const MODELS: Record<string, new (o: never) => { validate(): void }> = {
  "v1/ConfigMap": ConfigMap,
  "v1/Service": Service,
  "apps/v1/Deployment": Deployment,
  "apps/v1/StatefulSet": StatefulSet,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
};

function render(dir: string): K8sObject[] {
  const out = Bun.spawnSync(["kubectl", "kustomize", join(k8s, dir)], { stdout: "pipe", stderr: "pipe" });
  if (out.exitCode !== 0) throw new Error(`kubectl kustomize ${dir}: ${out.stderr.toString()}`);
  return out.stdout
    .toString()
    .split(/^---$/m)
    .filter((doc) => doc.trim() !== "")
    .map((doc) => Bun.YAML.parse(doc) as K8sObject);
}

const ROLE_SCHEMAS: Record<string, TObject> = { api: apiEnv, scheduler: schedulerEnv, alerting: alertingEnv, worker: workerEnv };
const ROLE_LOADERS: Record<string, (env: Record<string, string>, args: string[]) => unknown> = {
  api: (env) => loadApiConfig(env),
  scheduler: (env) => loadSchedulerConfig(env),
  alerting: (env) => loadAlertingConfig(env),
  worker: (env, args) => loadWorkerConfig(env, args),
};
/** What an operator puts in the Secrets the manifests refer to (docs/operations.md, "Kubernetes"). */
const SECRET_VALUES: Record<string, string> = {
  DATABASE_URL: "postgres://watchpost:pw@timescaledb:5432/watchpost",
  SECRET_KEY: "0123456789abcdef0123456789abcdef0123456789abcdef",
  POSTGRES_PASSWORD: "pw",
  RUNNER_TOKEN: "rt_example_token",
};

/** A container's environment as the kubelet would build it: envFrom ConfigMaps, then env (ConfigMap and Secret refs resolved). */
function environment(container: K8sObject, objects: K8sObject[]): Record<string, string> {
  const configMap = (name: string) => objects.find((o) => o.kind === "ConfigMap" && o.metadata.name === name)?.data as Record<string, string> | undefined;
  const env: Record<string, string> = {};
  for (const from of container.envFrom ?? []) {
    const data = configMap(from.configMapRef?.name);
    if (!data) throw new Error(`envFrom ${JSON.stringify(from)}: no such ConfigMap in the rendering`);
    Object.assign(env, data);
  }
  for (const e of container.env ?? []) {
    if (e.value !== undefined) env[e.name] = e.value;
    else if (e.valueFrom?.configMapKeyRef) {
      const value = configMap(e.valueFrom.configMapKeyRef.name)?.[e.valueFrom.configMapKeyRef.key];
      if (value === undefined) throw new Error(`${e.name}: no key ${e.valueFrom.configMapKeyRef.key} in ConfigMap ${e.valueFrom.configMapKeyRef.name}`);
      env[e.name] = value;
    } else if (e.valueFrom?.secretKeyRef) {
      const value = SECRET_VALUES[e.valueFrom.secretKeyRef.key];
      if (value === undefined) throw new Error(`${e.name}: secret key ${e.valueFrom.secretKeyRef.key} is not documented`);
      env[e.name] = value;
    } else throw new Error(`${e.name}: unsupported env source`);
  }
  return env;
}

const OVERLAYS = ["base", "overlays/external-postgres", "overlays/external-nats", "overlays/external"];
const rendered = Object.fromEntries(OVERLAYS.map((dir) => [dir, render(dir)]));
const named = (objects: K8sObject[], kind: string) => objects.filter((o) => o.kind === kind).map((o) => o.metadata.name).sort();

describe("infra/k8s (kustomize)", () => {
  for (const dir of OVERLAYS) {
    it(`${dir}: every rendered object is valid against the Kubernetes schemas`, () => {
      const objects = rendered[dir]!;
      expect(objects.length).toBeGreaterThan(5);
      for (const o of objects) {
        const Model = MODELS[`${o.apiVersion}/${o.kind}`];
        expect({ object: `${o.kind}/${o.metadata.name}`, known: Model !== undefined }).toEqual({ object: `${o.kind}/${o.metadata.name}`, known: true });
        expect(() => new Model!(o as never).validate()).not.toThrow();
      }
    });

    it(`${dir}: every workload runs as non-root on a read-only root, with resources, and probes where it listens`, () => {
      for (const o of rendered[dir]!.filter((x) => x.kind === "Deployment" || x.kind === "StatefulSet")) {
        const pod = o.spec.template.spec;
        expect({ name: o.metadata.name, runAsNonRoot: pod.securityContext?.runAsNonRoot }).toEqual({ name: o.metadata.name, runAsNonRoot: true });
        for (const c of pod.containers) {
          const where = `${o.metadata.name}/${c.name}`;
          expect({ where, requests: !!c.resources?.requests, limits: !!c.resources?.limits?.memory }).toEqual({ where, requests: true, limits: true });
          expect({ where, escalation: c.securityContext?.allowPrivilegeEscalation, drop: c.securityContext?.capabilities?.drop }).toEqual({ where, escalation: false, drop: ["ALL"] });
          // Watchpost's own images write only to /tmp (an emptyDir); the database writes its data directory.
          if (!c.image.startsWith("timescale/")) expect({ where, readOnlyRoot: c.securityContext.readOnlyRootFilesystem }).toEqual({ where, readOnlyRoot: true });
          // The self-hosted runner has no listener: its liveness is its heartbeat (GET /api/v1/runners/:id/status).
          if (o.metadata.name === "runner") continue;
          expect({ where, liveness: !!c.livenessProbe, readiness: !!c.readinessProbe }).toEqual({ where, liveness: true, readiness: true });
        }
      }
    });
  }

  it("base: api, scheduler, alerting, a worker per region and a runner, on a bundled TimescaleDB and NATS", () => {
    const base = rendered.base!;
    expect(named(base, "Deployment")).toEqual(["alerting", "api", "runner", "scheduler", "worker-eu-west", "worker-us-east"]);
    expect(named(base, "StatefulSet")).toEqual(["nats", "timescaledb"]);
    const db = base.find((o) => o.kind === "StatefulSet" && o.metadata.name === "timescaledb")!;
    expect(db.spec.template.spec.containers[0].image).toStartWith("timescale/timescaledb:");
    const regions = base.find((o) => o.kind === "ConfigMap" && o.metadata.name === "watchpost-api")!.data.REGIONS.split(",").sort();
    expect(named(base, "Deployment").filter((n) => n.startsWith("worker-")).map((n) => n.slice("worker-".length))).toEqual(regions);
  });

  it("overlays leave out the bundled database and/or NATS and nothing refers to them", () => {
    const statefulSets = (dir: string) => named(rendered[dir]!, "StatefulSet");
    expect(statefulSets("overlays/external-postgres")).toEqual(["nats"]);
    expect(statefulSets("overlays/external-nats")).toEqual(["timescaledb"]);
    expect(statefulSets("overlays/external")).toEqual([]);
    for (const [dir, gone] of [["overlays/external-postgres", "timescaledb"], ["overlays/external-nats", "nats"], ["overlays/external", "timescaledb"], ["overlays/external", "nats"]] as const) {
      expect(named(rendered[dir]!, "Service")).not.toContain(gone);
      expect(JSON.stringify(rendered[dir]!.filter((o) => o.kind === "ConfigMap"))).not.toContain(`//${gone}:`);
    }
  });

  for (const dir of OVERLAYS) {
    it(`${dir}: each role runs a package.json script , its environment passes the role's configuration loader and its probes ask the ports it listens on`, () => {
      const objects = rendered[dir]!;
      for (const d of objects.filter((o) => o.kind === "Deployment")) {
        const c = d.spec.template.spec.containers[0];
        const env = environment(c, objects);
        if (d.metadata.name === "runner") {
          for (const key of Object.keys(env)) expect({ runner: key, known: key in runnerEnv.properties }).toEqual({ runner: key, known: true });
          expect(() => loadRunnerConfig(env)).not.toThrow();
          continue;
        }
        const [script, ...args] = c.args as string[];
        expect({ name: d.metadata.name, script, inPackageJson: script! in pkg.scripts, hasSchema: script! in ROLE_SCHEMAS }).toEqual({ name: d.metadata.name, script, inPackageJson: true, hasSchema: true });
        for (const key of Object.keys(env)) expect({ role: d.metadata.name, key, known: key in ROLE_SCHEMAS[script!]!.properties }).toEqual({ role: d.metadata.name, key, known: true });
        expect(() => ROLE_LOADERS[script!]!(env, args)).not.toThrow();
        // The probes ask the ports the role listens on: the api's PORT, the others' METRICS_PORT.
        const ports = Object.fromEntries((c.ports as { name: string; containerPort: number }[]).map((p) => [p.name, String(p.containerPort)]));
        const probed = [c.readinessProbe, c.livenessProbe].map((p) => ports[p.httpGet.port]);
        const expected = script === "api" ? env.PORT : env.METRICS_PORT;
        expect({ role: d.metadata.name, probed }).toEqual({ role: d.metadata.name, probed: [expected, expected] });
      }
    });
  }
});
