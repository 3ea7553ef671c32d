import { afterAll, beforeAll, expect, it } from "bun:test";
import { connectNatsBus, type Bus, type ConsumerHandle } from "../../core/bus/index.ts";
import { type CheckJobMessage, type CheckResultMessage, jobId, regionSubject } from "../../schemas/messages/check-messages.ts";
import { silentLogger } from "../../core/log.ts";
import { startPresenceRecorder, type PresenceRecorder } from "../../alerting/ingest/presence.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { spawnRole, type RoleProcess } from "../support/processes.ts";
import { dropNatsStreams, NATS_URL, natsPrefix, until } from "../support/scheduling.ts";

const prefix = natsPrefix("wk");
const region = "kill-test";
let db: TestDatabase;
let bus: Bus;
let results: ConsumerHandle;
let presence: PresenceRecorder;
const got: CheckResultMessage[] = [];
const procs: RoleProcess[] = [];
let hits = 0;
let target: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  db = await createTestDatabase();
  target = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch() {
      hits++;
      await Bun.sleep(1500);
      return new Response("slow but fine");
    },
  });
  bus = await connectNatsBus({ url: NATS_URL, prefix });
  await bus.ensureTopology({ resultDurables: [{ name: "kill_test" }] });
  // What the alerting role's ingest does with the workers' beats (the workers themselves have no database).
  presence = await startPresenceRecorder({ sql: db.sql, bus, log: silentLogger });
  results = await bus.consumeResults<CheckResultMessage>("kill_test", { maxWaitMs: 20 }, (batch) => {
    for (const d of batch) got.push(d.data);
  });
}, 30_000);
afterAll(async () => {
  await Promise.all(procs.map((p) => p.stop(1000)));
  target.stop(true);
  await presence.stop();
  await results.stop();
  await bus.close();
  await dropNatsStreams([prefix]);
  await db.drop();
}, 30_000);

const worker = () => {
  const p = spawnRole(
    "runner/cloud/main.ts",
    {
      NATS_URL,
      NATS_PREFIX: prefix,
      SECRET_KEY: "kill-test-secret-key-0123456789abcdef0123",
      ALLOW_PRIVATE_IPS: "true",
      JOB_ACK_WAIT_MS: "2000",
      CONCURRENCY: "2",
    },
    ["--region", region],
  );
  procs.push(p);
  return p;
};

it(
  "redelivers the job of a worker killed mid-check and publishes exactly one result for it",
  async () => {
    const first = worker();
    await first.waitForLog("worker consuming", 15_000);
    const due = Date.now();
    const job: CheckJobMessage = {
      id: jobId("mon_kill", region, due),
      org_id: "org_kill",
      monitor_id: "mon_kill",
      location: region,
      location_type: "region",
      due_at: due,
      expires_at: due + 60_000,
      type: "http",
      config: { url: `http://127.0.0.1:${target.port}/` },
      secrets_enc: null,
      timeout_ms: 10_000,
    };
    await bus.publishJob(regionSubject(region), job);
    await until(() => hits === 1, 5000, "first worker reached the target");
    first.proc.kill("SIGKILL");
    await first.proc.exited;

    const second = worker();
    await second.waitForLog("worker consuming", 15_000);
    await until(() => got.length >= 1, 10_000, "result after redelivery");
    await Bun.sleep(500);
    expect(hits).toBe(2);
    expect(got.map((r) => [r.id, r.status])).toEqual([[job.id, "up"]]);
    expect(await bus.pendingJobs(regionSubject(region))).toBe(0);

    // A second publish of the same result (a worker dying after publishing, before acking) is dropped by the stream.
    const again = await bus.publishResult(`results.org_kill.mon_kill`, got[0]!);
    expect(again.duplicate).toBe(true);
    await second.stop();
  },
  { timeout: 40_000 },
);

it(
  "on SIGTERM finishes the check it is running, publishes its result and exits",
  async () => {
    const w = worker();
    await w.waitForLog("worker consuming", 15_000);
    const row = () => db.sql`select 1 from region_workers where worker_id like ${"%/" + w.proc.pid}`;
    await until(async () => (await row()).length === 1, 5000, "the worker's presence recorded");
    const before = got.length;
    const hitsBefore = hits;
    const due = Date.now();
    await bus.publishJob(regionSubject(region), {
      id: jobId("mon_term", region, due),
      org_id: "org_kill",
      monitor_id: "mon_term",
      location: region,
      location_type: "region",
      due_at: due,
      expires_at: due + 60_000,
      type: "http",
      config: { url: `http://127.0.0.1:${target.port}/` },
      secrets_enc: null,
      timeout_ms: 10_000,
    } satisfies CheckJobMessage);
    await until(() => hits === hitsBefore + 1, 5000, "worker reached the target");
    w.proc.kill("SIGTERM");
    expect(await w.proc.exited).toBe(0);
    await until(() => got.length === before + 1, 3000, "result of the finished check");
    expect(got.at(-1)).toMatchObject({ monitor_id: "mon_term", status: "up" });
    // It left the region on the way out (the killed worker's row stays until it ages out).
    await until(async () => (await row()).length === 0, 3000, "the worker's presence removed");
  },
  { timeout: 30_000 },
);
