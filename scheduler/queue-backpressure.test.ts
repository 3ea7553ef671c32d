import { afterEach, describe, expect, it } from "bun:test";
import { createMemoryBus, type Delivery } from "../core/bus/index.ts";
import { ManualClock } from "../core/clock.ts";
import { createLogger } from "../core/log.ts";
import type { SchedulableRow } from "../db/queries/scheduler.ts";
import { type CheckJobMessage, regionBrowserSubject, runnerSubject } from "../schemas/messages/check-messages.ts";
import { Admission } from "./admission.ts";
import { MaintenanceGate } from "./maintenance-gate.ts";
import { createSchedulerMetrics } from "./metrics.ts";
import { Scheduler } from "./scheduler.ts";

/*
 * The queues that are not a region's standard one: a self-hosted runner's (it claims what its CONCURRENCY frees)
 * and a browser engine's of a region (its workers' browser pools). Their consumer takes 3 jobs a simulated second;
 * 60 monitors at a 10 s interval ask for 6. On a manual clock, the drain measured against it too.
 */
const T0 = Date.parse("2026-11-26T12:00:00Z");
const CAPACITY = 3;
const MONITORS = 60;
const SECONDS = 90;

const open: { stop(): void }[] = [];
afterEach(() => {
  for (const o of open.splice(0)) o.stop();
});

const base = (i: number): SchedulableRow => ({
  id: `mon_qbp${i}`,
  org_id: "org_a",
  type: "http",
  config: { url: "http://127.0.0.1:9/" },
  secrets_enc: null,
  interval_seconds: 10,
  timeout_ms: 5000,
  regions: [],
  runner_ids: [],
  tags: [],
  version: 1,
});

const cases = [
  { name: "a self-hosted runner", subject: runnerSubject("run_slow"), row: (i: number) => ({ ...base(i), runner_ids: ["run_slow"] }) },
  {
    name: "a region's chromium browsers",
    subject: regionBrowserSubject("eu-west", "chromium"),
    row: (i: number) => ({ ...base(i), type: "browser_lite", config: { url: "http://127.0.0.1:9/", engine: "chromium" }, regions: ["eu-west"] }),
  },
] as const;

for (const c of cases) {
  describe(`backpressure on ${c.name}`, () => {
    it("keeps the queue bounded when it takes fewer jobs than are due: no job expires in it, every monitor slips evenly, and it says so", async () => {
      const bus = createMemoryBus();
      await bus.ensureTopology();
      open.push({ stop: () => void bus.close() });
      const clock = new ManualClock(T0);
      const lines: { level: number; op?: string; runnerId?: string; engine?: string }[] = [];
      const log = createLogger({ level: "info", format: "json", destination: { write: (l: string) => void lines.push(JSON.parse(l)) } });
      const metrics = createSchedulerMetrics();
      const admission = new Admission({ bus, clock, log, metrics, queueSeconds: 2, concurrencyOf: () => CAPACITY, sampleClock: () => clock.now() });
      const scheduler = new Scheduler({
        bus,
        clock,
        log,
        admission,
        placement: { regionOnline: () => true, runnerOnline: () => true, regionEngines: () => new Set(["chromium"]), runnerEngines: () => new Set() },
        maintenance: new MaintenanceGate(),
        isLeader: () => true,
        backfillMs: 60_000,
      });
      open.push(scheduler, admission);
      for (let i = 0; i < MONITORS; i++) scheduler.upsert(c.row(i));
      scheduler.start(null);

      // The consumer: each second it finishes what it took and takes as many again (a runner's claim of its free slots).
      let running: Delivery<CheckJobMessage>[] = [];
      const taken: { monitorId: string; at: number }[] = [];
      let expired = 0;
      let maxQueued = 0;
      for (let s = 0; s < SECONDS; s++) {
        await clock.advance(1000);
        await scheduler.idle();
        for (const d of running) d.ack();
        running = await bus.fetchJobs<CheckJobMessage>(c.subject, CAPACITY, 10);
        for (const d of running) {
          if (d.data.expires_at <= clock.now()) expired++;
          taken.push({ monitorId: d.data.monitor_id, at: clock.now() });
        }
        maxQueued = Math.max(maxQueued, await bus.pendingJobs(c.subject));
        await admission.sample();
        await scheduler.idle();
      }

      // Before: every due job was queued (up to 60 at once) and the consumer took mostly expired ones (`unavailable`).
      expect(expired).toBe(0);
      expect(maxQueued).toBeLessThanOrEqual(CAPACITY + 20);
      expect(taken.length).toBeGreaterThanOrEqual(CAPACITY * (SECONDS - 2));
      // Over the last 40 s (120 checks for 60 monitors): each monitor twice, give or take one.
      const late = taken.filter((t) => t.at > T0 + (SECONDS - 40) * 1000);
      const counts = new Map<string, number>();
      for (const t of late) counts.set(t.monitorId, (counts.get(t.monitorId) ?? 0) + 1);
      expect(counts.size).toBe(MONITORS);
      expect(Math.min(...counts.values())).toBeGreaterThanOrEqual(1);
      expect(Math.max(...counts.values())).toBeLessThanOrEqual(3);

      const warn = lines.filter((l) => l.op === "scheduler.overload" && l.level === 40);
      expect(warn).toHaveLength(1);
      if (c.subject.startsWith("jobs.runner.")) {
        expect(warn[0]!.runnerId).toBe("run_slow");
        expect((await metrics.runnersOverloaded.get()).values[0]?.value).toBe(1);
      } else {
        expect(warn[0]!.engine).toBe("chromium");
        const overloaded = (await metrics.overloaded.get()).values.find((v) => v.labels.engine === "chromium");
        expect(overloaded?.value).toBe(1);
      }
      expect(admission.loads()[0]).toMatchObject({ queue: { subject: c.subject } });
    });
  });
}
