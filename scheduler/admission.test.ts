import { afterAll, afterEach, describe, expect, it } from "bun:test";
import { connectNatsBus, createMemoryBus, type Bus, type Delivery } from "../core/bus/index.ts";
import { ManualClock } from "../core/clock.ts";
import { silentLogger } from "../core/log.ts";
import type { SchedulableRow } from "../db/queries/scheduler.ts";
import { type CheckJobMessage, regionSubject } from "../schemas/messages/check-messages.ts";
import { dropNatsStreams, NATS_URL, natsPrefix, until } from "../tests/support/scheduling.ts";
import { Admission } from "./admission.ts";
import { regionQueue } from "./job-queues.ts";
import { MaintenanceGate } from "./maintenance-gate.ts";
import { createSchedulerMetrics } from "./metrics.ts";
import { Scheduler } from "./scheduler.ts";

const T0 = Date.parse("2026-11-26T12:00:00Z");
const prefixes: string[] = [];
const open: { stop(): void }[] = [];
afterEach(async () => {
  for (const o of open.splice(0)) o.stop();
});
afterAll(async () => {
  if (prefixes.length) await dropNatsStreams(prefixes);
});

const makers: Record<string, () => Promise<Bus>> = {
  memory: async () => createMemoryBus(),
  nats: async () => {
    const prefix = natsPrefix("adm");
    prefixes.push(prefix);
    return connectNatsBus({ url: NATS_URL, prefix });
  },
};

let n = 0;
const row = (): SchedulableRow => ({
  id: `mon_adm${n++}`,
  org_id: "org_a",
  type: "http",
  config: { url: "http://127.0.0.1:9/" },
  secrets_enc: null,
  interval_seconds: 30,
  timeout_ms: 5000,
  regions: ["eu-west"],
  runner_ids: [],
  tags: [],
  version: 1,
});

/** A leading scheduler of region eu-west's checks, behind `admission`. */
const leaderWith = (bus: Bus, clock: ManualClock, admission: Admission) =>
  new Scheduler({
    bus,
    clock,
    log: silentLogger,
    admission,
    placement: { regionOnline: () => true, runnerOnline: () => false },
    maintenance: new MaintenanceGate(),
    isLeader: () => true,
    backfillMs: 60_000,
  });

for (const kind of ["memory", "nats"] as const) {
  describe(`backpressure on the ${kind} bus`, () => {
    it("keeps due checks back while the region's queue is full, merges a monitor's later ones, and publishes the oldest first as it drains", async () => {
      const bus = await makers[kind]!();
      await bus.ensureTopology();
      open.push({ stop: () => void bus.close() });
      const clock = new ManualClock(T0);
      const metrics = createSchedulerMetrics();
      // No worker concurrency known: the queue may hold 20 jobs (the floor) until a drain is measured.
      // The drain is measured against this clock, so a slow bus round trip cannot change the measured rate.
      let wall = 0;
      const admission = new Admission({ bus, clock, log: silentLogger, metrics, queueSeconds: 1, concurrencyOf: () => 0, sampleClock: () => wall });
      const scheduler = leaderWith(bus, clock, admission);
      open.push(scheduler, admission);
      const rows = Array.from({ length: 50 }, row);
      for (const r of rows) scheduler.upsert(r);
      scheduler.start(null);
      const subject = regionSubject("eu-west");
      const queued = () => bus.pendingJobs(subject);
      /** Up to `max` ready jobs (a NATS fetch answers with the first that are ready). */
      const take = async (max: number) => {
        const out: Delivery<CheckJobMessage>[] = [];
        while (out.length < max) {
          const got = await bus.fetchJobs<CheckJobMessage>(subject, max - out.length, 1000);
          if (got.length === 0) break;
          out.push(...got);
        }
        return out;
      };

      await clock.advance(30_000);
      await scheduler.idle();
      expect(await queued()).toBe(20);
      expect(admission.loads()[0]).toMatchObject({ queue: { subject: "jobs.region.eu-west" }, waiting: 30 });
      expect(admission.checksWaiting()).toBe(true);
      const peek = await take(20);
      const first = new Set(peek.map((d) => d.data.monitor_id));
      for (const d of peek) d.nak();
      expect(first.size).toBe(20);

      // A second interval: the 30 still waiting are merged, the 20 published are due again and wait too.
      await clock.advance(30_000);
      await scheduler.idle();
      await admission.sample();
      await scheduler.idle();
      expect(await queued()).toBe(20);
      expect(admission.loads()[0]!.waiting).toBe(50);
      expect((await metrics.slipped.get()).values[0]?.value).toBe(30);

      // A worker takes 10 jobs: the next sample measures the drain and hands the waiting checks out, oldest first.
      const taken = await take(10);
      expect(taken.length).toBe(10);
      for (const d of taken) d.ack();
      // 10 drained in 100 ms: 100 a second, room for every waiting check.
      wall += 100;
      await until(async () => (await queued()) === 10, 5000, "the acks to reach the queue");
      await admission.sample();
      await scheduler.idle();
      const jobs = (await take(100)).map((d) => d.data);
      const released = jobs.filter((j) => j.due_at >= T0 + 30_000);
      expect(released.length).toBe(50);
      // Each monitor once, at its latest due time; a job that waited in line expires a full expiry after its release.
      expect(new Set(released.map((j) => j.monitor_id)).size).toBe(released.length);
      for (const j of released) expect(j.expires_at).toBeGreaterThanOrEqual(clock.now() + 30_000);
      // The 30 that waited longest (never checked yet) come first.
      const never = rows.filter((r) => !first.has(r.id)).map((r) => r.id);
      expect(never.every((id) => released.some((j) => j.monitor_id === id))).toBe(true);
    });
  });
}

describe("checks waiting to start", () => {
  it("are told while a region's queue holds more than its consumers run at once plus a quarter of a second of its drain", async () => {
    const bus = createMemoryBus();
    await bus.ensureTopology();
    open.push({ stop: () => void bus.close() });
    const clock = new ManualClock(T0);
    let wall = 0;
    const admission = new Admission({ bus, clock, log: silentLogger, queueSeconds: 5, concurrencyOf: () => 10, sampleClock: () => wall });
    const scheduler = leaderWith(bus, clock, admission);
    open.push(scheduler, admission);
    for (let i = 0; i < 15; i++) scheduler.upsert(row());
    scheduler.start(null);
    expect(admission.checksWaiting()).toBe(false);

    // 15 published, none kept back; the consumers run 10 at once, so 5 wait to start.
    await clock.advance(30_000);
    await scheduler.idle();
    wall += 1000;
    await admission.sample();
    expect(admission.loads()[0]).toMatchObject({ queued: 15, waiting: 0 });
    expect(admission.checksWaiting()).toBe(true);

    // 10 taken in 100 ms (a drain of 100 a second): the 5 left are a twentieth of a second of it.
    const taken = await bus.fetchJobs<CheckJobMessage>(regionSubject("eu-west"), 10, 1000);
    expect(taken.length).toBe(10);
    for (const d of taken) d.ack();
    await until(async () => (await bus.pendingJobs(regionSubject("eu-west"))) === 5, 5000, "the acks to reach the queue");
    wall += 100;
    await admission.sample();
    expect(admission.checksWaiting()).toBe(false);
  });
});

describe("backpressure from the in-process result backlog", () => {
  it("publishes nothing while a watched durable holds more than its allowance of results, and resumes once it drains", async () => {
    const bus = createMemoryBus();
    await bus.ensureTopology({ resultDurables: [{ name: "slow-ingest" }] });
    open.push({ stop: () => void bus.close() });
    const admission = new Admission({ bus, clock: new ManualClock(T0), log: silentLogger, queueSeconds: 5, concurrencyOf: () => 10, resultDurables: ["slow-ingest"] });
    open.push(admission);
    expect(admission.offer(regionQueue("eu-west"), "mon_a", T0)).toBe(true);
    for (let i = 0; i < 2100; i++) await bus.publishResult("results.org_a.mon_x", { id: `r${i}` });
    await admission.sample();
    expect(admission.offer(regionQueue("eu-west"), "mon_b", T0)).toBe(false);
    expect([...admission.releasable()]).toEqual([]);

    const drained = await bus.consumeResults("slow-ingest", { batchSize: 500, maxWaitMs: 10 }, () => {});
    await until(async () => (await bus.pendingResults("slow-ingest")) === 0, 10_000, "the durable to drain");
    await drained.stop();
    await admission.sample();
    expect([...admission.releasable()].map((w) => w.monitorId)).toEqual(["mon_b"]);
  });
});
