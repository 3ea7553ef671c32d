import { parentPort } from "node:worker_threads";
import { Registry } from "prom-client";
import { createBus, type Bus } from "../../core/bus/index.ts";
import { createPortBus } from "../../core/bus/port-bus.ts";
import { SecretBox } from "../../core/crypto/secrets.ts";
import { createLogger } from "../../core/log.ts";
import type { FromThread, ThreadStart, ToThread } from "./thread-messages.ts";
import { profileThread } from "./thread-profile.ts";
import { startWorker, type WorkerHandle } from "./worker.ts";

/**
 * A check thread of the all-in-one (runner/cloud/worker-threads.ts starts it): one cloud worker of the local region,
 * on the main thread's bus through a port (or on NATS), its logs and metrics sent to the main thread.
 */
const parent = parentPort!;
const send = (m: FromThread) => parent.postMessage(m);
const registry = new Registry();
let running: { worker: WorkerHandle; bus: Bus } | null = null;
/** With CHECK_THREADS_CPU_PROF: ends the thread's profile (on stop) and resolves once its file is written. */
let endProfile: (() => Promise<void>) | null = null;

async function start(s: ThreadStart): Promise<void> {
  const log = createLogger({ level: s.logLevel, format: "json", name: "watchpost", destination: { write: (line: string) => send({ t: "log", line }) } });
  registry.setDefaultLabels(s.metricLabels);
  const bus = "port" in s.bus ? createPortBus(s.bus.port, { log }) : await createBus({ natsUrl: s.bus.natsUrl, replicas: s.bus.replicas, prefix: s.bus.prefix, log });
  try {
    const worker = await startWorker({
      bus,
      box: new SecretBox(s.secretKey, s.previousKeys),
      log,
      region: s.region,
      concurrency: s.concurrency,
      allowPrivate: s.allowPrivate,
      ipv6: s.ipv6,
      ackWaitMs: s.ackWaitMs,
      heartbeatMs: s.heartbeatMs,
      shutdownGraceMs: s.shutdownGraceMs,
      workerId: s.workerId,
      version: s.version,
      registry,
    });
    running = { worker, bus };
    if (s.cpuProfDir) {
      let stopped = () => {};
      const written = profileThread(s.cpuProfDir, s.index, new Promise<void>((resolve) => (stopped = resolve)));
      endProfile = () => {
        stopped();
        return written;
      };
    }
  } catch (err) {
    await bus.close().catch(() => {});
    throw err;
  }
}

parent.on("message", (m: ToThread) => {
  if (m.t === "start") {
    start(m).then(
      () => send({ t: "started", workerId: m.workerId }),
      (err: unknown) => send({ t: "failed", message: err instanceof Error ? err.message : String(err) }),
    );
  } else if (m.t === "metrics") {
    void registry.getMetricsAsJSON().then((snapshot) => send({ t: "metrics", id: m.id, snapshot }));
  } else if (m.t === "stop") {
    // The worker lets its checks finish (up to its grace) and hands the rest back; results are on the bus before it resolves.
    void (async () => {
      await running?.worker.stop();
      await running?.bus.close();
      await endProfile?.().catch((err: unknown) => send({ t: "log", line: JSON.stringify({ level: 40, op: "worker.thread", msg: `thread profile not written: ${String(err)}` }) }));
      send({ t: "stopped" });
    })();
  }
});
