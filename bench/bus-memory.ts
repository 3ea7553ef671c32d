/**
 * What the in-process bus holds per check, exactly (JavaScript heap after a full GC, so a loaded machine does not
 * blur it): the ids it remembers for de-duplication (every job and result id of the last 120 s: at 1,000 checks/s
 * that is 240,000 ids) and a delivery taken but not yet acked (its ack deadline), plus the CPU per message of
 * publish → consume → ack with ingest's and alerting's two result durables.
 *
 * Usage: bun bench/bus-memory.ts [--checks 120000] [--outstanding 20000]
 */
import { heapStats } from "bun:jsc";
import { parseArgs } from "node:util";
import { createMemoryBus } from "../core/bus/memory-bus.ts";
import type { Delivery } from "../core/bus/types.ts";
import { loadAverage } from "./lib/proc.ts";

const { values } = parseArgs({ options: { checks: { type: "string", default: "120000" }, outstanding: { type: "string", default: "20000" } } });
const CHECKS = Number(values.checks);
const OUTSTANDING = Number(values.outstanding);

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
    `bench/bus-memory: ${CHECKS} checks (a job and a result each) through the in-process bus`,
    `CPU-µs per check (publish, consume, ack; two result durables) ${(((c1 - c0) * 1000) / CHECKS).toFixed(1)}`,
    `de-duplication ids remembered: ${(perId).toFixed(0)} B of heap each (${(((h1 - h0) / 1e6)).toFixed(1)} MB; at 5,000 checks/s, 1.2 million ids: ${((perId * 1.2e6) / 1e6).toFixed(0)} MB)`,
    `a delivery not yet acked: ${perDelivery.toFixed(0)} B of heap (${OUTSTANDING} outstanding: ${((h3 - h2) / 1e6).toFixed(1)} MB)`,
    `load average ${loadAverage()}`,
  ].join(" | "),
);
await Promise.all(consumers.map((c) => c.stop()));
await bus.close();
