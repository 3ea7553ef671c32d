/**
 * Every role can be scraped on METRICS_PORT (/metrics and /healthz), never on a public port: the API
 * (whose metrics also report the runners and region workers it cannot scrape), scheduler, worker and
 * alerting; each logs one JSON object per line with the role's name and the operation.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { client, makeOrg, startTestApi, type TestApi } from "../support/api.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { spawnRole, type RoleProcess } from "../support/processes.ts";
import { dropNatsStreams, NATS_URL, natsPrefix } from "../support/scheduling.ts";
import { freePort } from "../support/free-port.ts";

const prefix = natsPrefix("met");
let db: TestDatabase;
let api: TestApi;
const roles: Record<string, { proc: RoleProcess; port: number; ready: string; metrics: string[] }> = {};

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startTestApi({ METRICS_PORT: "0" }, db);
  const env = { DATABASE_URL: db.url, NATS_URL, NATS_PREFIX: prefix, SECRET_KEY: "metrics-test-secret-key-0123456789abcdef0123" };
  const spec = {
    scheduler: { entry: "scheduler/main.ts", args: [], ready: "schedule running", metrics: ["watchpost_scheduler_leader", "watchpost_scheduler_monitors", "watchpost_scheduler_jobs_published_total", "watchpost_scheduler_publish_lag_seconds", "watchpost_scheduler_dropped_total"] },
    worker: { entry: "runner/cloud/main.ts", args: ["--region", "metrics-test"], ready: "worker consuming", metrics: ["watchpost_worker_checks_total", "watchpost_worker_in_flight", "watchpost_worker_publishing", "watchpost_worker_start_lag_seconds"] },
    alerting: { entry: "alerting/main.ts", args: [], ready: "ingest and alerting started", metrics: ["watchpost_ingest_results_total", "watchpost_ingest_lag_seconds", "watchpost_alerting_deliveries_total", "watchpost_alerting_notify_latency_seconds"] },
  };
  for (const [name, s] of Object.entries(spec)) {
    const port = freePort();
    roles[name] = { proc: spawnRole(s.entry, { ...env, METRICS_PORT: String(port) }, s.args), port, ready: s.ready, metrics: s.metrics };
  }
  await Promise.all(Object.values(roles).map((r) => r.proc.waitForLog(r.ready, 30_000)));
}, 60_000);

afterAll(async () => {
  await Promise.all(Object.values(roles).map((r) => r.proc.stop(2000)));
  await api?.stop();
  await dropNatsStreams([prefix]);
  await db?.drop();
}, 30_000);

describe("metrics and logs of every role", () => {
  for (const name of ["scheduler", "worker", "alerting"]) {
    it(`serves the ${name}'s metrics with its role label, and /healthz, on METRICS_PORT`, async () => {
      const r = roles[name]!;
      const res = await fetch(`http://127.0.0.1:${r.port}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("text/plain");
      const text = await res.text();
      for (const metric of r.metrics) expect({ name, metric, present: text.includes(`# TYPE ${metric} `) }).toEqual({ name, metric, present: true });
      expect(text).toContain(`process_resident_memory_bytes{role="${name}"}`);
      expect((await fetch(`http://127.0.0.1:${r.port}/healthz`)).status).toBe(200);
    });

    it(`writes the ${name}'s logs as JSON lines naming the role and the operation`, () => {
      const lines = roles[name]!.proc.lines;
      const started = lines.find((l) => l.msg === roles[name]!.ready)!;
      expect(started).toMatchObject({ name, level: 30 });
      expect(typeof started.op).toBe("string");
      expect(typeof started.time).toBe("number");
    });
  }

  it("serves the API's request metrics and the fleet it cannot scrape: runners by status and workers per region", async () => {
    const org = await makeOrg(db.sql, "pro");
    expect((await client(api.url, { key: org.api_key })("POST", "/api/v1/runners", { name: "metrics" })).status).toBe(201);
    const text = await (await fetch(`${api.server.metricsUrl}/metrics`)).text();
    expect(text).toContain('watchpost_http_requests_total{method="POST",route="/api/v1/runners",status="201",role="api"}');
    expect(text).toMatch(/watchpost_runners\{status="never_connected",role="api"\} [1-9]/);
    // The worker above heartbeats into region_workers.
    expect(text).toMatch(/watchpost_region_workers_online\{region="metrics-test",role="api"\} 1/);
  });
});
