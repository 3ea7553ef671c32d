import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { type Bus, createMemoryBus } from "../../core/bus/index.ts";
import { silentLogger } from "../../core/log.ts";
import { WORKER_ROLL_CALL, type WorkerBeatMessage, workerSubject } from "../../schemas/messages/worker-beat.ts";
import { createTestDatabase, type TestDatabase } from "../../tests/support/db.ts";
import { until } from "../../tests/support/scheduling.ts";
import { startPresenceRecorder } from "./presence.ts";

let db: TestDatabase;
let bus: Bus;
let recorder: { stop(): Promise<void> };
const rollCalls: number[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  bus = createMemoryBus();
  bus.subscribeEvents(WORKER_ROLL_CALL, () => rollCalls.push(Date.now()));
  recorder = await startPresenceRecorder({ sql: db.sql, bus, log: silentLogger });
});
afterAll(async () => {
  await recorder.stop();
  await bus.close();
  await db.drop();
});

const beat = (workerId: string, over: Partial<WorkerBeatMessage> = {}): WorkerBeatMessage => ({
  workerId,
  region: "pr-region",
  hostname: "host.example.com",
  version: "1.2.3",
  concurrency: 8,
  browsers: ["chromium"],
  inFlight: 2,
  checksTotal: 40,
  recentP50Ms: 120,
  startedAt: Date.parse("2026-11-26T01:00:00Z"),
  ...over,
});
const rowOf = async (workerId: string) =>
  (await db.sql`select region, hostname, version, concurrency, browsers, in_flight, checks_total::int as checks_total, recent_p50_ms, started_at from region_workers where worker_id = ${workerId}`)[0];

describe("worker presence through ingest", () => {
  it("records a worker's presence from its beats", async () => {
    const id = "pr-region/host.example.com/1";
    bus.publishEvent(workerSubject("pr-region", id), beat(id));
    await until(async () => (await rowOf(id)) !== undefined, 3000, "first beat recorded");
    expect(await rowOf(id)).toEqual({
      region: "pr-region",
      hostname: "host.example.com",
      version: "1.2.3",
      concurrency: 8,
      browsers: ["chromium"],
      in_flight: 2,
      checks_total: 40,
      recent_p50_ms: 120,
      started_at: new Date("2026-11-26T01:00:00Z"),
    });
    bus.publishEvent(workerSubject("pr-region", id), beat(id, { inFlight: 0, checksTotal: 41 }));
    await until(async () => (await rowOf(id))?.checks_total === 41, 3000, "second beat recorded");
    expect(await rowOf(id)).toMatchObject({ in_flight: 0 });
  });

  it("removes a worker that says it is gone, after the beats it sent before", async () => {
    const id = "pr-region/leaving/2";
    const subject = workerSubject("pr-region", id);
    bus.publishEvent(subject, beat(id));
    bus.publishEvent(subject, beat(id, { checksTotal: 41 }));
    bus.publishEvent(subject, beat(id, { gone: true }));
    await Bun.sleep(300);
    expect(await rowOf(id)).toBeUndefined();
  });

  it("asks every worker to beat at once when it starts", () => {
    expect(rollCalls.length).toBe(1);
  });

  it("ignores a malformed beat", async () => {
    bus.publishEvent(workerSubject("pr-region", "bad"), { workerId: "bad", region: "Not A Region" });
    await Bun.sleep(200);
    expect(await rowOf("bad")).toBeUndefined();
  });
});
