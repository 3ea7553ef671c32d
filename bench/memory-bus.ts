/**
 * The in-process bus alone (#24 goals 1 and 6). No database, no thread, no network.
 *
 * Default: its own work per check, as the all-in-one's main thread does it: one job published, claimed by a job
 * consumer and acked; its result published and taken in batches by two durables (ingest and alerting) that ack it;
 * one live event published to one subscriber. CPU-µs per check of this process, several rounds, the load average.
 *
 * `--heap`: what it holds per check, exactly (JavaScript heap after a full GC, so a loaded machine does not blur it):
 * the ids it remembers for de-duplication (every job and result id of the last 120 s: at 1,000 checks/s that is
 * 240,000 ids) and a delivery taken but not yet acked (its ack deadline), plus the CPU per check of
 * publish → consume → ack with the two result durables.
 *
 * Usage: bun bench/memory-bus.ts [--checks 20000] [--rounds 5]
 *        bun bench/memory-bus.ts --heap [--checks 120000] [--outstanding 20000]
 */
import { heapStats } from "bun:jsc";
import { parseArgs } from "node:util";
import { frozenJsonCopy } from "../core/bus/frozen-copy.ts";
import { createMemoryBus } from "../core/bus/memory-bus.ts";
import type { Delivery } from "../core/bus/types.ts";
import { loadAverage } from "./lib/proc.ts";

const { values } = parseArgs({
  options: {
    heap: { type: "boolean", default: false },
    checks: { type: "string" },
    rounds: { type: "string", default: "5" },
    outstanding: { type: "string", default: "20000" },
  },
});
const CHECKS = Number(values.checks ?? (values.heap ? 120_000 : 20_000));
const OUTSTANDING = Number(values.outstanding);

/** A monitor's config as the scheduler holds it (scheduler/intern.ts: a frozen JSON copy since this bench was written). */
const config = frozenJsonCopy({ url: "http://127.0.0.1:4000/m/1", method: "GET", expected_status: ["200-399"], follow_redirects: true });

async function round(): Promise<number> {
  const bus = createMemoryBus();
  await bus.ensureTopology({ resultDurables: [{ name: "ingest" }, { name: "alerting" }] });
  let results = 0;
  let events = 0;
  let done = () => {};
  const finished = new Promise<void>((resolve) => (done = resolve));
  const check = () => results >= 2 * CHECKS && events >= CHECKS && done();
  const unsubscribe = bus.subscribeEvents("events.*", () => {
    events++;
    check();
  });
  const jobs = await bus.consumeJobs<{ id: string; org_id: string; monitor_id: string; due_at: number }>("jobs.region.local", { maxInFlight: 64 }, async (d) => {
    const j = d.data;
    const data = { status_code: 200, timings: { dns: 1, connect: 2, tls: 0, first_byte: 3, total: 4 } };
    await bus.publishResult(`results.${j.org_id}.${j.monitor_id}`, { id: j.id, org_id: j.org_id, monitor_id: j.monitor_id, location: "local", location_type: "region", scheduled_at: j.due_at, checked_at: j.due_at + 5, status: "up", duration_ms: 4, error: null, data });
  });
  const durable = (name: string) =>
    bus.consumeResults<{ id: string; org_id: string; monitor_id: string; data: unknown }>(name, { batchSize: 500, maxWaitMs: 20 }, async (batch) => {
      results += batch.length;
      if (name === "ingest") for (const d of batch) bus.publishEvent(`events.${d.data.org_id}`, { id: "e", type: "check.result", data: d.data.data });
      check();
    });
  const consumers = [await durable("ingest"), await durable("alerting")];
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < CHECKS; i++) {
    const due = 1_795_000_000_000 + i;
    await bus.publishJob("jobs.region.local", { id: `mon_${i % 10_000}.local.${due}`, org_id: "org_bench", monitor_id: `mon_${i % 10_000}`, type: "http", config, secrets_enc: null, timeout_ms: 5000, location: "local", location_type: "region", due_at: due, expires_at: due + 20_000 });
    if (i % 200 === 199) await new Promise((resolve) => setImmediate(resolve));
  }
  await finished;
  const cpu = process.cpuUsage(cpu0);
  unsubscribe();
  await jobs.stop();
  await Promise.all(consumers.map((c) => c.stop()));
  await bus.close();
  return (cpu.user + cpu.system) / CHECKS;
}

// ---------------------------------------------------------------- --heap

/** A job's id as the scheduler makes it (jobId: monitor id, location, due time in ms); its result carries the same id. */
const T0 = Date.now();
const monitor = (i: number) => `mon_0193${(i % 20_000).toString(16).padStart(28, "0")}`;
const id = (i: number) => `${monitor(i)}.local.${T0 + i * 50}`;
const result = (i: number) => ({ id: id(i), monitor_id: monitor(i), org_id: "org_1", status: "up", latency_ms: 12 });
const job = (i: number) => ({ id: id(i), monitor_id: monitor(i), org_id: "org_1", type: "http" });

const liveHeap = () => {
  Bun.gc(true);
  return heapStats().heapSize;
};
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function heapRun(): Promise<void> {
  const bus = createMemoryBus();
  await bus.ensureTopology({ resultDurables: [{ name: "ingest" }, { name: "alerting" }] });
  const acked = { ingest: 0, alerting: 0 };
  const consumers = await Promise.all(
    (["ingest", "alerting"] as const).map((durable) =>
      bus.consumeResults(durable, { batchSize: 500, maxWaitMs: 5 }, async (batch) => {
        acked[durable] += batch.length;
      }),
    ),
  );

  // 1. The de-duplication window: CHECKS jobs (taken and acked) and CHECKS results (stored and settled by both durables).
  const h0 = liveHeap();
  const c0 = cpuMs();
  for (let i = 0; i < CHECKS; i++) {
    await bus.publishJob("jobs.region.local", job(i));
    await bus.publishResult("results.org_1.mon_1", result(i));
    if (i % 500 === 499) {
      for (const d of await bus.fetchJobs("jobs.region.local", 500, 10)) d.ack();
      while (acked.ingest < i - 500 || acked.alerting < i - 500) await Bun.sleep(1);
    }
}
for (const d of await bus.fetchJobs("jobs.region.local", 1000, 10)) d.ack();
while (acked.ingest < CHECKS || acked.alerting < CHECKS) await Bun.sleep(1);
const c1 = cpuMs();
const h1 = liveHeap();
const perId = (h1 - h0) / (2 * CHECKS);

// 2. Deliveries taken and not acked yet (each has an ack deadline).
for (let i = 0; i < OUTSTANDING; i++) await bus.publishJob("jobs.region.local", job(CHECKS + i));
const h2 = liveHeap();
const held: Delivery<unknown>[] = [];
while (held.length < OUTSTANDING) held.push(...(await bus.fetchJobs("jobs.region.local", 1000, 10)));
const h3 = liveHeap();
const perDelivery = (h3 - h2) / OUTSTANDING;
for (const d of held) d.ack();

console.log(
  [
    `bench/memory-bus --heap: ${CHECKS} checks (a job and a result each) through the in-process bus`,
    `CPU-µs per check (publish, consume, ack; two result durables) ${(((c1 - c0) * 1000) / CHECKS).toFixed(1)}`,
    `de-duplication ids remembered: ${(perId).toFixed(0)} B of heap each (${(((h1 - h0) / 1e6)).toFixed(1)} MB; at 5,000 checks/s, 1.2 million ids: ${((perId * 1.2e6) / 1e6).toFixed(0)} MB)`,
    `a delivery not yet acked: ${perDelivery.toFixed(0)} B of heap (${OUTSTANDING} outstanding: ${((h3 - h2) / 1e6).toFixed(1)} MB)`,
    `load average ${loadAverage()}`,
  ].join(" | "),
);
await Promise.all(consumers.map((c) => c.stop()));
await bus.close();
}

if (values.heap) await heapRun();
else {
  for (let r = 0; r < Number(values.rounds); r++) {
    const us = await round();
    console.log(`round ${r + 1} | ${CHECKS} checks | CPU-µs per check ${us.toFixed(1)} | load average ${loadAverage()}`);
  }
}
