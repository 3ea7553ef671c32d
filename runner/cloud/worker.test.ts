import { afterAll, afterEach, beforeAll, describe, expect, it } from "bun:test";
import { connectNatsBus, createMemoryBus, type Bus, type PublishAck, type ResultSubject } from "../../core/bus/index.ts";
import { SecretBox } from "../../core/crypto/secrets.ts";
import { type CheckJobMessage, type CheckResultMessage, jobId, regionSubject } from "../../schemas/messages/check-messages.ts";
import { silentLogger } from "../../core/log.ts";
import { SECRET_PLACEHOLDER } from "../../core/crypto/sealed-fields.ts";
import { WORKER_BEATS, WORKER_ROLL_CALL, type WorkerBeatMessage } from "../../schemas/messages/worker-beat.ts";
import { dropNatsStreams, NATS_URL, natsPrefix, until } from "../../tests/support/scheduling.ts";
import { startWorker, type WorkerHandle } from "./worker.ts";

const box = new SecretBox("worker-test-secret-key-0123456789abcdef");
let target: ReturnType<typeof Bun.serve>;
let running = 0;
let maxRunning = 0;
let requests = 0;
const authHeaders: string[] = [];

beforeAll(async () => {
  target = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      requests++;
      const url = new URL(req.url);
      if (url.pathname === "/slow") {
        running++;
        maxRunning = Math.max(maxRunning, running);
        await Bun.sleep(Number(url.searchParams.get("ms") ?? 300));
        running--;
      }
      if (url.pathname === "/auth") authHeaders.push(req.headers.get("authorization") ?? "");
      return new Response("ok");
    },
  });
}, 30_000);
const prefixes: string[] = [];
afterAll(async () => {
  target.stop(true);
  if (prefixes.length) await dropNatsStreams(prefixes);
}, 30_000);

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

let seq = 0;
function job(path: string, over: Partial<CheckJobMessage> = {}): CheckJobMessage {
  const due = Date.now();
  const monitor = `mon_w${seq++}`;
  return {
    id: jobId(monitor, "test-region", due),
    org_id: "org_w",
    monitor_id: monitor,
    location: "test-region",
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

const makers: Record<string, () => Promise<Bus>> = {
  memory: async () => createMemoryBus(),
  nats: async () => {
    const prefix = natsPrefix("wrk");
    prefixes.push(prefix);
    return connectNatsBus({ url: NATS_URL, prefix });
  },
};

interface WorldOptions {
  concurrency?: number;
  region?: string;
  shutdownGraceMs?: number;
  /** What the worker sees of the bus (a slow or failing publish); results are consumed on the real one. */
  wrap?: (bus: Bus) => Bus;
}

async function world(kind: string, opts: WorldOptions = {}) {
  const bus = await makers[kind]!();
  await bus.ensureTopology();
  const beats: [WorkerBeatMessage, string][] = [];
  const unsubscribe = bus.subscribeEvents<WorkerBeatMessage>(WORKER_BEATS, (b, subject) => beats.push([b, subject]));
  const results: CheckResultMessage[] = [];
  const consumer = await bus.consumeResults<CheckResultMessage>("test", { maxWaitMs: 10 }, (batch) => {
    for (const d of batch) results.push(d.data);
  });
  const region = opts.region ?? "test-region";
  // No database: the worker speaks only on the bus.
  const worker: WorkerHandle = await startWorker({
    bus: opts.wrap?.(bus) ?? bus,
    box,
    log: silentLogger,
    region,
    concurrency: opts.concurrency ?? 4,
    allowPrivate: true,
    ackWaitMs: 2000,
    heartbeatMs: 1000,
    shutdownGraceMs: opts.shutdownGraceMs ?? 5000,
    workerId: `test-${kind}-${seq++}`,
  });
  let stopped = false;
  const stopWorker = async () => {
    if (!stopped) await worker.stop();
    stopped = true;
  };
  cleanups.push(async () => {
    await stopWorker();
    unsubscribe();
    await consumer.stop();
    await bus.close();
  });
  return { bus, worker, results, beats, stopWorker, publish: (j: CheckJobMessage) => bus.publishJob(regionSubject(region), j) };
}

/** The bus as the worker sees it, with `publishResult` going through `publish`; counts publishes in flight. */
function publishThrough(publish: (inner: () => Promise<PublishAck>, result: CheckResultMessage) => Promise<PublishAck>) {
  const seen = { inFlight: 0, maxInFlight: 0, calls: 0 };
  const wrap = (bus: Bus): Bus =>
    new Proxy(bus, {
      get(target, key) {
        if (key === "publishResult") {
          return async (subject: ResultSubject, result: CheckResultMessage) => {
            seen.calls++;
            seen.maxInFlight = Math.max(seen.maxInFlight, ++seen.inFlight);
            try {
              return await publish(() => target.publishResult(subject, result), result);
            } finally {
              seen.inFlight--;
            }
          };
        }
        const value = Reflect.get(target, key);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  return { seen, wrap };
}

for (const kind of ["memory", "nats"]) {
  describe(`cloud worker on the ${kind} bus`, () => {
    it("runs a job, publishes its result under the job's id and only then acks it", async () => {
      const w = await world(kind);
      const j = job("/");
      await w.publish(j);
      await until(() => w.results.length === 1);
      expect(w.results[0]).toMatchObject({ id: j.id, org_id: "org_w", monitor_id: j.monitor_id, location: "test-region", scheduled_at: j.due_at, status: "up", error: null });
      expect(w.results[0]!.checked_at).toBeGreaterThanOrEqual(j.due_at);
      await until(async () => (await w.bus.pendingJobs(regionSubject("test-region"))) === 0);
    });

    it("records a job received after its expiry as unavailable without running it", async () => {
      const w = await world(kind);
      const before = requests;
      const j = job("/", { due_at: Date.now() - 60_000, expires_at: Date.now() - 30_000 });
      await w.publish(j);
      await until(() => w.results.length === 1);
      expect(w.results[0]).toMatchObject({ id: j.id, status: "unavailable", duration_ms: 0 });
      expect(w.results[0]!.error).toStartWith("job expired before a worker could run it");
      expect(requests).toBe(before);
    });
  });
}

describe("cloud worker", () => {
  it("records a check type the engine does not run, and a browser job on a worker without browsers, as unavailable", async () => {
    const w = await world("memory");
    await w.publish(job("/", { type: "heartbeat" }));
    await until(() => w.results.length === 1);
    expect(w.results[0]).toMatchObject({ status: "unavailable", error: "no worker able to run heartbeat checks in region test-region" });
    await w.publish(job("/other", { type: "browser_lite" }));
    await until(() => w.results.length === 2);
    expect(w.results[1]).toMatchObject({ status: "unavailable", error: "no chromium browser here (BROWSERS=none) in region test-region" });
  });

  it("never runs more checks at once than its concurrency", async () => {
    maxRunning = 0;
    const w = await world("memory", { concurrency: 2 });
    for (let i = 0; i < 6; i++) await w.publish(job("/slow?ms=150"));
    await until(() => w.results.length === 6, 5000);
    expect(maxRunning).toBe(2);
  });

  it("decrypts the monitor's secrets for the check only", async () => {
    const w = await world("memory");
    const secret = box.encrypt(JSON.stringify({ auth: { type: "bearer", token: "s3cret" } }));
    await w.publish(job("/auth", { config: { url: `http://127.0.0.1:${target.port}/auth`, auth: { type: "bearer", token: SECRET_PLACEHOLDER } }, secrets_enc: secret }));
    await until(() => w.results.length === 1);
    expect(authHeaders.at(-1)).toBe("Bearer s3cret");
  });

  it("beats its presence on the bus from the start and says it is gone on stop", async () => {
    const w = await world("memory", { region: "hb-region" });
    await until(() => w.beats.length >= 1, 1000, "first beat");
    const [first, subject] = w.beats[0]!;
    expect(subject).toBe(`workers.hb-region.${w.worker.workerId}`);
    expect(first).toMatchObject({ workerId: w.worker.workerId, region: "hb-region", concurrency: 4, browsers: [], inFlight: 0, checksTotal: 0, recentP50Ms: null });
    expect(first.gone).toBeUndefined();
    await w.publish(job("/"));
    await until(() => w.results.length === 1);
    // heartbeatMs is 1000: the next beat counts the check.
    await until(() => w.beats.some(([b]) => b.checksTotal === 1), 3000, "a beat counting the check");
    await w.stopWorker();
    await until(() => w.beats.at(-1)![0].gone === true, 1000, "the gone beat");
    expect(w.beats.at(-1)![0]).toMatchObject({ workerId: w.worker.workerId, region: "hb-region", gone: true });
  });

  it("beats at once when a presence recorder starts and calls the roll", async () => {
    const w = await world("memory", { region: "roll-region" });
    await until(() => w.beats.length >= 1, 1000, "first beat");
    const before = w.beats.length;
    w.bus.publishEvent(WORKER_ROLL_CALL, {});
    await until(() => w.beats.length === before + 1, 500, "a beat answering the roll call");
  });

  it("finishes a running check before stopping", async () => {
    const w = await world("memory", { region: "stop-region" });
    await w.publish(job("/slow?ms=400", { location: "stop-region" }));
    await until(() => w.worker.stats().inFlight === 1);
    const published = () => w.bus.pendingJobs(regionSubject("stop-region"));
    await w.stopWorker();
    // stop() returned after the check finished, its result went out and the job was acked.
    expect(await published()).toBe(0);
    await until(() => w.results.length === 1);
    expect(w.results[0]!.status).toBe("up");
  });

  it("frees a check's slot when the check ends: a slow publish does not hold the next check back", async () => {
    const delayMs = 300;
    const concurrency = 2;
    const { seen, wrap } = publishThrough(async (inner) => {
      await Bun.sleep(delayMs);
      return inner();
    });
    const w = await world("memory", { concurrency, region: "slot-region", wrap });
    const n = 16;
    const started = Date.now();
    for (let i = 0; i < n; i++) await w.publish(job("/", { location: "slot-region" }));
    await until(() => w.results.length === n, 15_000);
    const perSecond = n / ((Date.now() - started) / 1000);
    // Holding the slot through the publish caps a worker at concurrency / publish time.
    expect(perSecond).toBeGreaterThan(concurrency / (delayMs / 1000));
    // The results waiting for their publish are bounded: twice the concurrency.
    expect(seen.maxInFlight).toBe(2 * concurrency);
    await until(async () => (await w.bus.pendingJobs(regionSubject("slot-region"))) === 0);
  });

  it("stops taking jobs while the bus does not acknowledge results, and catches up when it does", async () => {
    const stalled: (() => void)[] = [];
    const { seen, wrap } = publishThrough(async (inner) => {
      await new Promise<void>((resolve) => stalled.push(resolve));
      return inner();
    });
    const w = await world("memory", { concurrency: 2, region: "stall-region", wrap });
    const before = requests;
    for (let i = 0; i < 12; i++) await w.publish(job("/", { location: "stall-region" }));
    // 4 results wait for the bus and 2 more checks hold their slots waiting for room: then nothing more is taken.
    await until(() => seen.inFlight === 4 && requests - before === 6);
    // Past the 2 s ack deadline: the 6 held jobs stay claimed (their deadline is extended), only the 6 others are ready.
    await Bun.sleep(2500);
    expect(requests - before).toBe(6);
    expect(w.results.length).toBe(0);
    expect(await w.bus.pendingJobs(regionSubject("stall-region"))).toBe(12);
    const ready = await w.bus.fetchJobs(regionSubject("stall-region"), 12, 1000);
    expect(ready.length).toBe(6);
    for (const d of ready) d.nak();
    const release = setInterval(() => stalled.splice(0).forEach((go) => go()), 5);
    try {
      await until(() => w.results.length === 12, 10_000);
    } finally {
      clearInterval(release);
    }
    expect(seen.maxInFlight).toBe(4);
    await until(async () => (await w.bus.pendingJobs(regionSubject("stall-region"))) === 0);
  });

  it("loses nothing when a publish fails: the job is redelivered and its result published then", async () => {
    const failed = new Set<string>();
    const { wrap } = publishThrough(async (inner, result) => {
      if (!failed.has(result.id)) {
        failed.add(result.id);
        throw new Error("bus unavailable");
      }
      return inner();
    });
    const w = await world("memory", { concurrency: 2, region: "fail-region", wrap });
    const jobs = [0, 1, 2].map(() => job("/", { location: "fail-region" }));
    for (const j of jobs) await w.publish(j);
    await until(() => w.results.length === 3, 15_000);
    expect(w.results.map((r) => r.id).sort()).toEqual(jobs.map((j) => j.id).sort());
    expect(failed.size).toBe(3);
    await until(async () => (await w.bus.pendingJobs(regionSubject("fail-region"))) === 0);
  });

  it("on stop publishes the results still waiting for the bus before it returns", async () => {
    // The bus takes no result until the stop has begun (a fixed delay let the first two through before the last two
    // checks ran on a loaded machine, so four were never waiting at once).
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const { seen, wrap } = publishThrough(async (inner) => {
      await gate;
      return inner();
    });
    const w = await world("memory", { concurrency: 2, region: "drain-region", wrap });
    const before = requests;
    for (let i = 0; i < 4; i++) await w.publish(job("/", { location: "drain-region" }));
    await until(() => requests - before === 4 && seen.inFlight === 4);
    const stopped = w.stopWorker();
    await Bun.sleep(100);
    open();
    await stopped;
    expect(w.worker.stats()).toMatchObject({ inFlight: 0, publishing: 0, checksTotal: 4 });
    expect(await w.bus.pendingJobs(regionSubject("drain-region"))).toBe(0);
    await until(() => w.results.length === 4);
  });

  it("hands back the jobs whose results the bus has not taken when the shutdown grace ends", async () => {
    const { seen, wrap } = publishThrough(() => new Promise<PublishAck>(() => {}));
    const w = await world("memory", { concurrency: 2, region: "grace-region", shutdownGraceMs: 300, wrap });
    for (let i = 0; i < 3; i++) await w.publish(job("/", { location: "grace-region" }));
    await until(() => seen.inFlight === 3);
    const stopping = Date.now();
    await w.stopWorker();
    expect(Date.now() - stopping).toBeLessThan(3000);
    expect(w.worker.stats()).toMatchObject({ publishing: 0, checksTotal: 0 });
    // Naked, not acked: ready again for another worker.
    const back = await w.bus.fetchJobs(regionSubject("grace-region"), 5, 1000);
    expect(back.length).toBe(3);
  });
});
