/**
 * Scheduling accuracy at scale: 10,000 monitors at a 30 s interval, checked against a loopback
 * HTTP target, through a scheduler process and a cloud-worker process on NATS JetStream.
 * Usage: bun bench/schedule.ts [--monitors 10000] [--interval 30] [--seconds 70] [--concurrency 200]
 * Prints the interval between consecutive checks of each monitor (from result checked_at), its
 * deviation from the configured interval, the start lag after the due time, checks/s, and the
 * scheduler process's CPU and RSS.
 */
import { parseArgs } from "node:util";
import { readFileSync } from "node:fs";
import { connect } from "@nats-io/transport-node";
import { startPresenceRecorder } from "../alerting/ingest/presence.ts";
import { connectNatsBus } from "../core/bus/index.ts";
import { silentLogger } from "../core/log.ts";
import type { CheckResultMessage } from "../schemas/messages/check-messages.ts";
import { createTestDatabase } from "../tests/support/db.ts";
import { dropNatsStreams, insertMonitors, insertOrg, NATS_URL, natsPrefix } from "../tests/support/scheduling.ts";

const { values } = parseArgs({
  options: {
    monitors: { type: "string", default: "10000" },
    interval: { type: "string", default: "30" },
    seconds: { type: "string", default: "70" },
    concurrency: { type: "string", default: "200" },
  },
});
const MONITORS = Number(values.monitors);
const INTERVAL_MS = Number(values.interval) * 1000;
const SECONDS = Number(values.seconds);
const root = `${import.meta.dir}/..`;

const target = Bun.spawn(["bun", "-e", `const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("ok") }); console.log(s.port);`], {
  stdout: "pipe",
  stderr: "inherit",
});
const targetPort = await firstLine(target.stdout).then(Number);
async function firstLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of stream) {
    text += decoder.decode(chunk, { stream: true });
    if (text.includes("\n")) return text.split("\n")[0]!;
  }
  throw new Error("the target exited before printing its port");
}

const db = await createTestDatabase();
const prefix = natsPrefix("bench");
const org = await insertOrg(db.sql);
await insertMonitors(
  db.sql,
  org,
  Array.from({ length: MONITORS }, () => ({ interval_seconds: INTERVAL_MS / 1000, timeout_ms: 5000, regions: ["bench"], config: { url: `http://127.0.0.1:${targetPort}/` } })),
);

const bus = await connectNatsBus({ url: NATS_URL, prefix });
await bus.ensureTopology({ resultDurables: [{ name: "bench" }], jobSubjects: ["jobs.region.bench"] });
const results: { monitor: string; scheduled: number; checked: number; status: string }[] = [];
const consumer = await bus.consumeResults<CheckResultMessage>("bench", { batchSize: 500, maxWaitMs: 50 }, (batch) => {
  for (const d of batch) results.push({ monitor: d.data.monitor_id, scheduled: d.data.scheduled_at, checked: d.data.checked_at, status: d.data.status });
});

// A plain NATS subscription sees every job as the scheduler publishes it: the scheduler's own timing.
const tap = await connect({ servers: NATS_URL });
const published: { monitor: string; due: number; at: number }[] = [];
tap.subscribe(`${prefix}jobs.region.bench`, {
  callback: (_err, msg) => {
    const j = msg.json<{ monitor_id: string; due_at: number }>();
    published.push({ monitor: j.monitor_id, due: j.due_at, at: Date.now() });
  },
});

// What the alerting role's ingest does with the worker's beats: the worker itself has no database.
const presence = await startPresenceRecorder({ sql: db.sql, bus, log: silentLogger });
const env = { ...process.env, DATABASE_URL: db.url, NATS_URL, NATS_PREFIX: prefix, LOG_LEVEL: "warn", SECRET_KEY: "bench-secret-key-0123456789abcdef0123" };
const { DATABASE_URL: _database, ...workerEnv } = env;
const worker = Bun.spawn(["bun", "runner/cloud/main.ts", "--region", "bench"], {
  cwd: root,
  env: { ...workerEnv, CONCURRENCY: values.concurrency, ALLOW_PRIVATE_IPS: "true" },
  stdout: "inherit",
  stderr: "inherit",
});
// The worker's heartbeat puts the region online before the scheduler's first placement read.
await Bun.sleep(1500);
const metricsPort = 24000 + Math.floor(Math.random() * 5000);
const scheduler = Bun.spawn(["bun", "scheduler/main.ts"], { cwd: root, env: { ...env, METRICS_PORT: String(metricsPort) }, stdout: "inherit", stderr: "inherit" });

const cpuTicks = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return Number(f[11]) + Number(f[12]);
};
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;

const started = Date.now();
let maxRss = 0;
let cpuStart = 0;
let workerCpuStart = 0;
let cpuStartAt = 0;
while (Date.now() - started < SECONDS * 1000) {
  await Bun.sleep(1000);
  maxRss = Math.max(maxRss, rssMb(scheduler.pid));
  // CPU is measured after the first 10 s (start-up: loading the monitors, JIT).
  if (!cpuStartAt && Date.now() - started >= 10_000) {
    cpuStart = cpuTicks(scheduler.pid);
    workerCpuStart = cpuTicks(worker.pid);
    cpuStartAt = Date.now();
  }
  process.stdout.write(`\r${Math.round((Date.now() - started) / 1000)} s, ${results.length} results, scheduler RSS ${rssMb(scheduler.pid).toFixed(0)} MB   `);
}
const cpuSeconds = (cpuTicks(scheduler.pid) - cpuStart) / 100;
const workerCpuSeconds = (cpuTicks(worker.pid) - workerCpuStart) / 100;
const cpuWall = (Date.now() - cpuStartAt) / 1000;
const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`).then((r) => r.text()).catch(() => "");
process.stdout.write("\n");

scheduler.kill("SIGTERM");
worker.kill("SIGTERM");
await Promise.all([scheduler.exited, worker.exited]);
await presence.stop();
await consumer.stop();
await bus.close();
await tap.close();
target.kill();
await dropNatsStreams([prefix]);
await db.drop();

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : NaN;
};
const byMonitor = new Map<string, number[]>();
for (const r of results) (byMonitor.get(r.monitor) ?? byMonitor.set(r.monitor, []).get(r.monitor)!).push(r.checked);
const intervals: number[] = [];
// Pairs starting in the first 10 s (processes warming up: JIT, first connections) are left out.
const warm = started + 10_000;
for (const times of byMonitor.values()) {
  times.sort((a, b) => a - b);
  for (let i = 1; i < times.length; i++) if (times[i - 1]! >= warm) intervals.push(times[i]! - times[i - 1]!);
}
const deviation = intervals.map((x) => Math.abs(x - INTERVAL_MS));
const pubBy = new Map<string, number[]>();
for (const p of published) (pubBy.get(p.monitor) ?? pubBy.set(p.monitor, []).get(p.monitor)!).push(p.at);
const pubDeviation: number[] = [];
for (const times of pubBy.values()) {
  times.sort((a, b) => a - b);
  for (let i = 1; i < times.length; i++) if (times[i - 1]! >= warm) pubDeviation.push(Math.abs(times[i]! - times[i - 1]! - INTERVAL_MS));
}
const pubLag = published.filter((p) => p.at >= warm).map((p) => p.at - p.due);
const lag = results.filter((r) => r.checked >= warm).map((r) => r.checked - r.scheduled);
const steady = results.filter((r) => r.checked - started > 10_000);
const span = (Math.max(...steady.map((r) => r.checked)) - Math.min(...steady.map((r) => r.checked))) / 1000;
const statuses: Record<string, number> = {};
for (const r of results) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
const lagSum = Number(/watchpost_scheduler_publish_lag_seconds_sum\{[^}]*\} ([\d.e+-]+)/.exec(metrics)?.[1] ?? NaN);
const lagCount = Number(/watchpost_scheduler_publish_lag_seconds_count\{[^}]*\} ([\d.e+-]+)/.exec(metrics)?.[1] ?? NaN);
const under = (le: string) => Number(new RegExp(`watchpost_scheduler_publish_lag_seconds_bucket\\{le="${le}"[^}]*\\} (\\d+)`).exec(metrics)?.[1] ?? NaN);

console.log(`monitors ${MONITORS} at ${INTERVAL_MS / 1000} s, ${SECONDS} s run, worker concurrency ${values.concurrency}`);
console.log(`results ${results.length} (${Object.entries(statuses).map(([k, v]) => `${k} ${v}`).join(", ")}), monitors with 2+ checks ${[...byMonitor.values()].filter((t) => t.length > 1).length}`);
console.log(`end to end (result checked_at), after the first 10 s:`);
console.log(`interval between consecutive checks: ${intervals.length} samples, p50 ${pct(intervals, 50)} ms, p99 ${pct(intervals, 99)} ms, min ${pct(intervals, 0)} ms, max ${pct(intervals, 100)} ms`);
console.log(`deviation from ${INTERVAL_MS} ms: p50 ${pct(deviation, 50)} ms, p99 ${pct(deviation, 99)} ms, max ${pct(deviation, 100)} ms`);
console.log(`scheduler alone (job publish times seen on NATS): ${published.length} jobs, interval deviation p50 ${pct(pubDeviation, 50)} ms, p99 ${pct(pubDeviation, 99)} ms, max ${pct(pubDeviation, 100)} ms; publish after due p50 ${pct(pubLag, 50)} ms, p99 ${pct(pubLag, 99)} ms`);
console.log(`check start after due time: p50 ${pct(lag, 50)} ms, p99 ${pct(lag, 99)} ms`);
console.log(`scheduler publish lag (due → bus ack): mean ${((lagSum / lagCount) * 1000).toFixed(1)} ms, ≤10 ms ${((under("0.01") / lagCount) * 100).toFixed(1)} %, ≤50 ms ${((under("0.05") / lagCount) * 100).toFixed(1)} %`);
console.log(`checks delivered: ${(steady.length / span).toFixed(1)} /s (expected ${(MONITORS / (INTERVAL_MS / 1000)).toFixed(1)} /s)`);
console.log(`scheduler CPU ${((cpuSeconds / cpuWall) * 100).toFixed(1)} % of one core, max RSS ${maxRss.toFixed(0)} MB; worker CPU ${((workerCpuSeconds / cpuWall) * 100).toFixed(1)} %`);
