/**
 * What crossing into a check thread costs (issue #24, goal 3): N jobs that need no network (a check type the engine
 * records `unavailable` at once) through the whole worker path, once with the worker on the main thread and once in
 * one worker thread on the port bus. Prints jobs/s and CPU-µs per job for the process (every thread) and for its
 * main thread alone, so the difference is the port's cost: clones, messages, the second event loop and heap.
 *
 * With --http, the jobs are HTTP checks of a loopback target in a child process (the request included). With --rate R
 * the jobs are published R a second, one or a few at a time as the scheduler publishes them (the all-in-one's case:
 * every job and result crosses the port on its own); without it all are published at once (crossings batched).
 * Each line ends with CPU-µs and context switches per job of each thread name (bench/lib/proc.ts threadsCpu).
 *
 * With --cpu-prof DIR, each check thread writes thread-<n>.cpuprofile of its run into DIR (overwritten by the next run).
 *
 * Usage: bun bench/check-threads.ts [--jobs 20000] [--concurrency 50] [--http] [--rate R] [--threads 0,1,2] [--cpu-prof DIR]
 */
import { readFileSync } from "node:fs";
import { threadsCpu, threadsPerUnit } from "./lib/proc.ts";
import { parseArgs } from "node:util";
import { createMemoryBus } from "../core/bus/index.ts";
import { SecretBox } from "../core/crypto/secrets.ts";
import { silentLogger } from "../core/log.ts";
import { createMetrics } from "../core/metrics.ts";
import { startWorkerThreads } from "../runner/cloud/worker-threads.ts";
import { startWorker } from "../runner/cloud/worker.ts";
import { type CheckJobMessage, type CheckResultMessage, jobId, regionSubject } from "../schemas/messages/check-messages.ts";

const { values } = parseArgs({
  options: { jobs: { type: "string", default: "20000" }, concurrency: { type: "string", default: "50" }, http: { type: "boolean", default: false }, rate: { type: "string" }, "cpu-prof": { type: "string" }, threads: { type: "string", default: "0,1,2" } },
});
const JOBS = Number(values.jobs);
const CONCURRENCY = Number(values.concurrency);
const RATE = values.rate ? Number(values.rate) : null;
const KEY = "bench-check-threads-secret-key-0123456789";
const region = "bench";

/** utime+stime of the main thread (task id = pid) in ms; USER_HZ is 100. */
const mainThreadMs = () => {
  const f = readFileSync(`/proc/${process.pid}/task/${process.pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
};
const processMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** A loopback target in its own process, so its CPU is not counted here. */
async function startTarget(): Promise<{ url: string; stop(): void }> {
  const proc = Bun.spawn(["bun", "-e", 'const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("ok") }); console.log(s.port);'], { stdout: "pipe" });
  const reader = proc.stdout.getReader();
  const { value } = await reader.read();
  return { url: `http://127.0.0.1:${new TextDecoder().decode(value).trim()}/`, stop: () => proc.kill() };
}
const target = values.http ? await startTarget() : null;

async function run(threads: number): Promise<string> {
  const bus = createMemoryBus();
  await bus.ensureTopology({ resultDurables: [{ name: "bench" }] });
  let got = 0;
  let done = () => {};
  const all = new Promise<void>((resolve) => (done = resolve));
  const consumer = await bus.consumeResults<CheckResultMessage>("bench", { batchSize: 500, maxWaitMs: 20 }, (batch) => {
    got += batch.length;
    if (got >= JOBS) done();
  });
  const common = { region, concurrency: CONCURRENCY, allowPrivate: true, ipv6: false, ackWaitMs: 30_000, heartbeatMs: 5000, shutdownGraceMs: 5000, version: "bench" };
  const worker =
    threads > 0
      ? await startWorkerThreads({ ...common, threads, bus, log: silentLogger, logLevel: "silent", registry: createMetrics("bench").registry, secretKey: KEY, previousKeys: [], cpuProfDir: values["cpu-prof"] })
      : await startWorker({ ...common, bus, box: new SecretBox(KEY), log: silentLogger });
  const now = Date.now();
  const p0 = processMs();
  const m0 = mainThreadMs();
  const t0 = performance.now();
  const t1 = threadsCpu(process.pid);
  const job = (i: number): CheckJobMessage => ({
    id: jobId(`mon_${i}`, region, now),
    org_id: "org_bench",
    monitor_id: `mon_${i}`,
    location: region,
    location_type: "region",
    due_at: Date.now(),
    expires_at: now + 600_000,
    type: target ? "http" : "heartbeat",
    config: target ? { url: target.url } : {},
    secrets_enc: null,
    timeout_ms: 5000,
  });
  if (RATE === null) for (let i = 0; i < JOBS; i++) await bus.publishJob(regionSubject(region), job(i));
  else {
    // As the scheduler does: a timer per due time, publishing what is due by then.
    for (let i = 0; i < JOBS; ) {
      const due = Math.min(JOBS, Math.floor(((performance.now() - t0) * RATE) / 1000) + 1);
      while (i < due) await bus.publishJob(regionSubject(region), job(i++));
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  }
  await all;
  const seconds = (performance.now() - t0) / 1000;
  const per = (ms: number) => ((ms * 1000) / JOBS).toFixed(1);
  const line = `threads ${threads} | ${JOBS} jobs in ${seconds.toFixed(2)} s (${(JOBS / seconds).toFixed(0)}/s) | CPU-µs per job: process ${per(processMs() - p0)}, main thread ${per(mainThreadMs() - m0)} | by thread: ${threadsPerUnit(t1, threadsCpu(process.pid), JOBS)}`;
  await worker.stop();
  await consumer.stop();
  await bus.close();
  return line;
}

console.log(`bench/check-threads: ${JOBS} ${target ? "HTTP" : "no-network"} jobs${RATE ? ` at ${RATE}/s` : " at once"}, concurrency ${CONCURRENCY}, load average ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`);
const THREADS = values.threads.split(",").map(Number);
for (const threads of [...THREADS, ...THREADS]) console.log(await run(threads));
console.log(`load average ${readFileSync("/proc/loadavg", "utf8").split(" ")[0]}`);
target?.stop();
