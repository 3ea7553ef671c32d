/**
 * The in-process bus's own work per check, as the all-in-one's main thread does it (#24 goal 1): one job published,
 * claimed by a job consumer and acked; its result published and taken in batches by two durables (ingest and
 * alerting) that ack it; one live event published to one subscriber. No database, no thread, no network: CPU-µs per
 * check of this process, several rounds, the load average.
 * Usage: bun bench/memory-bus.ts [--checks 20000] [--rounds 5]
 */
import { parseArgs } from "node:util";
import { frozenJsonCopy } from "../core/bus/frozen-copy.ts";
import { createMemoryBus } from "../core/bus/memory-bus.ts";
import { loadAverage } from "./lib/proc.ts";

const { values } = parseArgs({ options: { checks: { type: "string", default: "20000" }, rounds: { type: "string", default: "5" } } });
const CHECKS = Number(values.checks);
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

for (let r = 0; r < Number(values.rounds); r++) {
  const us = await round();
  console.log(`round ${r + 1} | ${CHECKS} checks | CPU-µs per check ${us.toFixed(1)} | load average ${loadAverage()}`);
}
