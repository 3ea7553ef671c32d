import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { EventSource } from "eventsource";
import { connectNatsBus, type Bus } from "../../core/bus/index.ts";
import { type CheckJobMessage, jobId, regionSubject } from "../../schemas/messages/check-messages.ts";
import { client, makeOrg, startTestApi, type TestApi } from "../support/api.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { spawnRole, type RoleProcess } from "../support/processes.ts";
import { dropNatsStreams, NATS_URL, natsPrefix, until } from "../support/scheduling.ts";

/**
 * The scaled topology end to end, each role in its own process on NATS JetStream and one
 * PostgreSQL: scheduler → JOBS → `bun run worker` → RESULTS → `bun run alerting` (ingest) →
 * check_results, monitor status and live events → an API process's SSE stream.
 */
const prefix = natsPrefix("sc");
const region = "scaled-test";
const SECRET_KEY = "scaled-test-secret-key-0123456789abcdef0123";
let db: TestDatabase;
let bus: Bus;
let api: TestApi;
let target: ReturnType<typeof Bun.serve>;
let slowHits = 0;
const procs: RoleProcess[] = [];

const roleEnv = () => ({ DATABASE_URL: db.url, NATS_URL, NATS_PREFIX: prefix, SECRET_KEY });
const spawn = (entry: string, env: Record<string, string> = {}, args: string[] = []) => {
  const p = spawnRole(entry, { ...roleEnv(), ...env }, args);
  procs.push(p);
  return p;
};
// The worker has no database: only the bus and the secret key (ingest records its presence and results).
const worker = () => {
  const p = spawnRole("runner/cloud/main.ts", { NATS_URL, NATS_PREFIX: prefix, SECRET_KEY, ALLOW_PRIVATE_IPS: "true", JOB_ACK_WAIT_MS: "2000", HEARTBEAT_INTERVAL_MS: "1000" }, ["--region", region]);
  procs.push(p);
  return p;
};

beforeAll(async () => {
  db = await createTestDatabase();
  target = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      if (new URL(req.url).pathname === "/slow") {
        slowHits++;
        await Bun.sleep(1500);
      }
      return new Response("fine");
    },
  });
  bus = await connectNatsBus({ url: NATS_URL, prefix });
  // An API process of its own bus client: live events reach it only through NATS.
  api = await startTestApi({ REGIONS: region, REGION_LOCATIONS: `${region}=Loopback` }, db, bus);
}, 30_000);

afterAll(async () => {
  await Promise.all(procs.map((p) => p.stop(2000)));
  await api?.stop();
  target?.stop(true);
  await bus?.close();
  await dropNatsStreams([prefix]);
  await db?.drop();
}, 30_000);

const storedFor = async (monitorId: string) =>
  db.sql<{ job_id: string; status: string; location: string }[]>`select job_id, status, location from check_results where monitor_id = ${monitorId} order by scheduled_at`;

describe("scaled topology (separate scheduler, worker and alerting processes on NATS)", () => {
  it("stores the checks of a monitor created through the API and streams them to an SSE client of another process", async () => {
    const alerting = spawn("alerting/main.ts");
    const scheduler = spawn("scheduler/main.ts", { SCHEDULER_LOCK_RETRY_MS: "500" });
    const w = worker();
    await Promise.all([alerting.waitForLog("ingest and alerting started", 20_000), scheduler.waitForLog("schedule running", 20_000), w.waitForLog("worker consuming", 20_000)]);

    const org = await makeOrg(db.sql, "unlimited");
    const es = new EventSource(`${api.url}/api/v1/events`, {
      fetch: (url, init) => fetch(url, { ...init, headers: { ...init.headers, authorization: `Bearer ${org.api_key}` } }),
    });
    const events: { type: string; data: { monitor_id: string; status?: string; to?: string } }[] = [];
    for (const name of ["check.result", "monitor.status_changed"]) es.addEventListener(name, (e) => events.push({ type: e.type, data: JSON.parse(e.data).data }));
    await new Promise<void>((resolve) => (es.onopen = () => resolve()));
    try {
      // The worker reports itself; the region is online for placement within a couple of seconds.
      await until(async () => (await db.sql`select 1 from region_workers where region = ${region} and last_seen_at > now() - interval '10 seconds'`).length > 0, 10_000, "worker online");
      await Bun.sleep(2500);
      const created = await client(api.url, { key: org.api_key })("POST", "/api/v1/monitors", {
        name: "loopback",
        type: "http",
        config: { url: `http://127.0.0.1:${target.port}/` },
        interval_seconds: 10,
        regions: [region],
      });
      expect(created.status).toBe(201);
      const monitorId = created.body.id as string;

      // The first check runs at once (a new monitor); then its phase puts each next one an interval apart.
      const createdAt = Date.parse(created.body.created_at);
      await until(async () => (await storedFor(monitorId)).length >= 3, 35_000, "three stored results");
      const rows = await storedFor(monitorId);
      expect(rows.every((r) => r.status === "up" && r.location === region)).toBe(true);
      const dues = rows.map((r) => Number(r.job_id.split(".").pop()));
      expect(dues[0]! - createdAt).toBeLessThan(3000);
      expect(dues[1]! - dues[0]!).toBeLessThanOrEqual(10_000);
      expect(dues[2]! - dues[1]!).toBe(10_000);
      const [m] = await db.sql`select status from monitors where id = ${monitorId}`;
      expect(m!.status).toBe("up");

      await until(() => events.filter((e) => e.type === "check.result").length >= 2, 5000, "check.result events");
      expect(events.filter((e) => e.type === "check.result").every((e) => e.data.monitor_id === monitorId && e.data.status === "up")).toBe(true);
      expect(events.filter((e) => e.type === "monitor.status_changed").map((e) => e.data.to)).toEqual(["up"]);

      // Paused through the API: no further check is stored after the one that may already be running.
      expect((await client(api.url, { key: org.api_key })("PATCH", `/api/v1/monitors/${monitorId}`, { paused: true })).status).toBe(200);
      await Bun.sleep(1000);
      const atPause = (await storedFor(monitorId)).length;
      await Bun.sleep(11_000);
      expect((await storedFor(monitorId)).length).toBe(atPause);
    } finally {
      es.close();
      await Promise.all([scheduler.stop(), w.stop()]);
    }
  }, 90_000);

  it("stores exactly one result for a job whose worker was killed mid-check and whose job ran again elsewhere", async () => {
    const org = await makeOrg(db.sql, "unlimited");
    const [mon] = await db.sql<{ id: string }[]>`
      insert into monitors (id, org_id, name, type, config, interval_seconds, timeout_ms, regions, paused)
      values (${`mon_kill${Date.now().toString(36)}`}, ${org.org_id}, 'slow', 'http', ${db.sql.json({ url: `http://127.0.0.1:${target.port}/slow` })}, 60, 10000, ${[region]}, false)
      returning id`;
    const first = worker();
    await first.waitForLog("worker consuming", 20_000);
    const due = Date.now();
    const job: CheckJobMessage = {
      id: jobId(mon!.id, region, due),
      org_id: org.org_id,
      monitor_id: mon!.id,
      location: region,
      location_type: "region",
      due_at: due,
      expires_at: due + 60_000,
      type: "http",
      config: { url: `http://127.0.0.1:${target.port}/slow` },
      secrets_enc: null,
      timeout_ms: 10_000,
    };
    const hitsBefore = slowHits;
    await bus.publishJob(regionSubject(region), job);
    await until(() => slowHits === hitsBefore + 1, 10_000, "the first worker reached the target");
    first.proc.kill("SIGKILL");
    await first.proc.exited;

    const second = worker();
    await second.waitForLog("worker consuming", 20_000);
    await until(async () => (await storedFor(mon!.id)).length >= 1, 20_000, "the result stored after redelivery");
    await Bun.sleep(1500);
    expect(slowHits).toBe(hitsBefore + 2);
    expect([...(await storedFor(mon!.id))]).toEqual([{ job_id: job.id, status: "up", location: region }]);
    await second.stop();
  }, 60_000);
});
