import { afterAll, afterEach, beforeAll, describe, expect, it } from "bun:test";
import { Writable } from "node:stream";
import { createMemoryBus, type Bus, type ConsumerHandle } from "../../core/bus/index.ts";
import { SECRET_PLACEHOLDER } from "../../core/crypto/sealed-fields.ts";
import { SecretBox } from "../../core/crypto/secrets.ts";
import { createLogger } from "../../core/log.ts";
import { createMetrics } from "../../core/metrics.ts";
import { type CheckJobMessage, type CheckResultMessage, jobId, regionSubject } from "../../schemas/messages/check-messages.ts";
import { WORKER_BEATS, type WorkerBeatMessage } from "../../schemas/messages/worker-beat.ts";
import { NATS_URL, dropNatsStreams, natsPrefix, until } from "../../tests/support/scheduling.ts";
import { connectNatsBus } from "../../core/bus/nats-bus.ts";
import { startWorkerThreads, type WorkerThreads } from "./worker-threads.ts";

const KEY = "thread-test-secret-key-0123456789abcdef";
const box = new SecretBox(KEY);
const region = "thread-region";
let target: ReturnType<typeof Bun.serve>;
const arrived: string[] = [];
const authHeaders: string[] = [];
let hang = Promise.withResolvers<void>();

beforeAll(() => {
  target = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      arrived.push(url.pathname);
      if (url.pathname === "/slow") await Bun.sleep(600);
      if (url.pathname === "/hang") await hang.promise;
      if (url.pathname === "/auth") authHeaders.push(req.headers.get("authorization") ?? "");
      return new Response("ok");
    },
  });
});
const prefixes: string[] = [];
afterAll(async () => {
  hang.resolve();
  target.stop(true);
  if (prefixes.length) await dropNatsStreams(prefixes);
});

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

let seq = 0;
function job(path: string, over: Partial<CheckJobMessage> = {}): CheckJobMessage {
  const due = Date.now();
  const monitor = `mon_t${seq++}`;
  return {
    id: jobId(monitor, region, due),
    org_id: "org_t",
    monitor_id: monitor,
    location: region,
    location_type: "region",
    due_at: due,
    expires_at: due + 30_000,
    type: "http",
    config: { url: `http://127.0.0.1:${target.port}${path}` },
    secrets_enc: null,
    timeout_ms: 5000,
    ...over,
  };
}

async function world(o: { threads?: number; graceMs?: number; nats?: boolean } = {}) {
  let bus: Bus = createMemoryBus();
  let nats: { url: string; prefix: string } | undefined;
  if (o.nats) {
    const prefix = natsPrefix("thr");
    prefixes.push(prefix);
    nats = { url: NATS_URL, prefix };
    bus = await connectNatsBus({ url: NATS_URL, prefix });
  }
  await bus.ensureTopology({ resultDurables: [{ name: "test" }] });
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split("\n")) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const log = createLogger({ level: "info", format: "json", destination: sink });
  const metrics = createMetrics("test");
  const beats: WorkerBeatMessage[] = [];
  const unsubscribe = bus.subscribeEvents<WorkerBeatMessage>(WORKER_BEATS, (b) => beats.push(b));
  const results: CheckResultMessage[] = [];
  const consumer: ConsumerHandle = await bus.consumeResults<CheckResultMessage>("test", { maxWaitMs: 10 }, (batch) => {
    for (const d of batch) results.push(d.data);
  });
  const threads: WorkerThreads = await startWorkerThreads({
    threads: o.threads ?? 2,
    bus,
    nats,
    log,
    logLevel: "info",
    registry: metrics.registry,
    metricLabels: { role: "test" },
    secretKey: KEY,
    previousKeys: [],
    region,
    concurrency: 4,
    allowPrivate: true,
    ipv6: false,
    ackWaitMs: 5000,
    heartbeatMs: 1000,
    shutdownGraceMs: o.graceMs ?? 5000,
    workerId: `t-${seq++}`,
    version: "test",
  });
  let stopped = false;
  const stop = async () => {
    if (!stopped) await threads.stop();
    stopped = true;
  };
  cleanups.push(async () => {
    await stop();
    unsubscribe();
    await consumer.stop();
    await bus.close();
  });
  return { bus, threads, results, beats, lines, metrics, stop, publish: (j: CheckJobMessage) => bus.publishJob(regionSubject(region), j) };
}

describe("checks in worker threads on the in-process bus", () => {
  it("runs the region's jobs in the threads, decrypts secrets there, and beats as one worker per thread", async () => {
    const w = await world({ threads: 2 });
    expect(w.threads.workerIds).toHaveLength(2);
    const secret = box.encrypt(JSON.stringify({ auth: { type: "bearer", token: "s3cret" } }));
    await w.publish(job("/auth", { config: { url: `http://127.0.0.1:${target.port}/auth`, auth: { type: "bearer", token: SECRET_PLACEHOLDER } }, secrets_enc: secret }));
    for (let i = 0; i < 20; i++) await w.publish(job("/"));
    await until(() => w.results.length === 21, 10_000);
    expect(w.results.every((r) => r.status === "up")).toBe(true);
    expect(authHeaders.at(-1)).toBe("Bearer s3cret");
    await until(async () => (await w.bus.pendingJobs(regionSubject(region))) === 0);
    await until(() => w.threads.workerIds.every((id) => w.beats.some((b) => b.workerId === id)), 5000, "a beat from each thread");
  });

  it("prints the threads' worker metrics, summed, from the main registry, and their logs through the main logger", async () => {
    const w = await world({ threads: 2 });
    for (let i = 0; i < 6; i++) await w.publish(job("/"));
    await until(() => w.results.length === 6, 10_000);
    // A check is counted once its publish is answered, which rides with the port's next message (at most LAZY_MS later).
    const counted = `watchpost_worker_checks_total{region="${region}",status="up",role="test"} 6`;
    await until(async () => (await w.metrics.registry.metrics()).includes(counted), 2000, "the six checks counted");
    const text = await w.metrics.registry.metrics();
    expect(text).toContain(counted);
    expect(text).toContain("# TYPE watchpost_worker_start_lag_seconds histogram");
    // The main registry's own metrics are still there, once.
    expect(text.match(/# TYPE process_cpu_seconds_total/g)).toHaveLength(1);
    const started = w.lines.filter((l) => l.op === "worker.start");
    expect(started.map((l) => l.thread).sort()).toEqual([1, 2]);
    expect(started[0]).toMatchObject({ level: 30, msg: "worker consuming", region });
  });

  it("on stop lets a running check finish and its result reach the bus before the threads end", async () => {
    const w = await world({ threads: 1 });
    await w.publish(job("/slow"));
    await until(() => arrived.includes("/slow"));
    await w.stop();
    expect(w.results.map((r) => r.status)).toEqual(["up"]);
    expect(await w.bus.pendingJobs(regionSubject(region))).toBe(0);
  });

  it("hands a check still running at the end of the grace back to the queue", async () => {
    hang = Promise.withResolvers<void>();
    const w = await world({ threads: 1, graceMs: 300 });
    const before = arrived.filter((p) => p === "/hang").length;
    await w.publish(job("/hang"));
    await until(() => arrived.filter((p) => p === "/hang").length > before);
    await w.stop();
    hang.resolve();
    expect(w.results).toEqual([]);
    expect(await w.bus.pendingJobs(regionSubject(region))).toBe(1);
  });
});

describe("checks in worker threads with NATS", () => {
  it("connects each thread to NATS itself", async () => {
    const w = await world({ threads: 2, nats: true });
    for (let i = 0; i < 4; i++) await w.publish(job("/"));
    await until(() => w.results.length === 4, 10_000);
    expect(w.results.every((r) => r.status === "up")).toBe(true);
  });
});
