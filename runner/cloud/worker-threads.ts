import { hostname } from "node:os";
import { Worker } from "node:worker_threads";
import type { Level } from "pino";
import type { Bus } from "../../core/bus/index.ts";
import { type PortBusHost, servePortBus } from "../../core/bus/port-bus-host.ts";
import type { Logger } from "../../core/log.ts";
import type { MergingRegistry, MetricsSnapshot } from "../../core/metrics.ts";
import type { FromThread, ThreadStart, ThreadWorkerSettings, ToThread } from "./thread-messages.ts";

/** Every thread runs the same worker settings (ThreadWorkerSettings); these are how they are started and joined. */
export interface WorkerThreadsOptions extends ThreadWorkerSettings {
  /** Threads to start, each one cloud worker of the region. */
  threads: number;
  /** The main thread's bus; with `nats`, each thread connects to NATS itself instead. */
  bus: Bus;
  nats?: { url: string; replicas?: number; prefix?: string };
  log: Logger;
  /** The main registry: the threads' worker metrics are merged into what it prints. */
  registry?: MergingRegistry;
  metricLabels?: Record<string, string>;
  /** Base of the threads' worker ids (`<base>/t<n>`); default `<region>/<host>/<pid>`. */
  workerId?: string;
  /** CHECK_THREADS_CPU_PROF: each thread writes `thread-<n>.cpuprofile` of its whole run here when it stops. */
  cpuProfDir?: string;
}

export interface WorkerThreads {
  readonly workerIds: string[];
  /** Each thread's worker stops (running checks finish within the grace or are handed back), then the threads end. */
  stop(): Promise<void>;
}

/** How long a thread may take beyond its shutdown grace before it is terminated anyway. */
const STOP_MARGIN_MS = 10_000;
const METRICS_TIMEOUT_MS = 2000;

class CheckThread {
  private readonly worker: Worker;
  private host: PortBusHost | null = null;
  private readonly waiting = new Map<string, ((m: FromThread) => void)[]>();
  private readonly metricsWaits = new Map<number, (s: MetricsSnapshot) => void>();
  private nextMetrics = 1;
  private exited = false;
  private terminating = false;
  private readonly exit: Promise<void>;

  constructor(
    readonly index: number,
    private readonly o: WorkerThreadsOptions,
  ) {
    this.worker = new Worker(new URL("./thread-main.ts", import.meta.url));
    this.worker.on("message", (m: FromThread) => this.onMessage(m));
    this.worker.on("error", (err) => o.log.error({ op: "worker.thread", thread: index, err }, "check thread failed"));
    this.exit = new Promise((resolve) =>
      this.worker.once("exit", (code) => {
        this.exited = true;
        // A thread that ended on its own (a crash) hands back what it held: its jobs go to the other threads.
        if (!this.terminating) {
          o.log.error({ op: "worker.thread", thread: index, code }, "check thread ended unexpectedly; its jobs are handed back");
          void this.host?.close();
        }
        for (const wake of [...this.waiting.values()].flat()) wake({ t: "failed", message: `check thread ${index} ended (code ${code})` });
        this.waiting.clear();
        resolve();
      }),
    );
  }

  async start(workerId: string): Promise<void> {
    const o = this.o;
    let bus: ThreadStart["bus"];
    const transfer: MessagePort[] = [];
    if (o.nats) bus = { natsUrl: o.nats.url, replicas: o.nats.replicas, prefix: o.nats.prefix };
    else {
      const channel = new MessageChannel();
      this.host = servePortBus(o.bus, channel.port1, o.log);
      bus = { port: channel.port2 };
      transfer.push(channel.port2);
    }
    const start: ThreadStart = {
      t: "start",
      index: this.index,
      workerId,
      region: o.region,
      concurrency: o.concurrency,
      allowPrivate: o.allowPrivate,
      ipv6: o.ipv6,
      ackWaitMs: o.ackWaitMs,
      heartbeatMs: o.heartbeatMs,
      shutdownGraceMs: o.shutdownGraceMs,
      version: o.version,
      secretKey: o.secretKey,
      previousKeys: o.previousKeys,
      logLevel: o.logLevel,
      metricLabels: o.metricLabels ?? {},
      bus,
      cpuProfDir: o.cpuProfDir,
    };
    const answer = this.next("started", "failed");
    // A Web MessagePort (what the bus speaks) is transferable to a node:worker_threads Worker in Bun; the types differ.
    this.worker.postMessage(start satisfies ToThread, transfer as never);
    const m = await answer;
    if (m.t === "failed") throw new Error(`check thread ${this.index} did not start: ${m.message}`);
  }

  snapshot(): Promise<MetricsSnapshot> {
    if (this.exited) return Promise.resolve([]);
    const id = this.nextMetrics++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.metricsWaits.delete(id);
        resolve([]);
      }, METRICS_TIMEOUT_MS);
      this.metricsWaits.set(id, (s) => {
        clearTimeout(timer);
        resolve(s);
      });
      this.worker.postMessage({ t: "metrics", id } satisfies ToThread);
    });
  }

  async stop(): Promise<void> {
    if (!this.exited) {
      const stopped = this.next("stopped");
      this.worker.postMessage({ t: "stop" } satisfies ToThread);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.o.shutdownGraceMs + STOP_MARGIN_MS)));
      await Promise.race([stopped, late]);
      clearTimeout(timer);
    }
    // Whatever the thread still held goes back to the queue before the thread ends.
    await this.host?.close();
    this.terminating = true;
    await this.worker.terminate();
    await this.exit;
  }

  private next(...kinds: FromThread["t"][]): Promise<FromThread> {
    return new Promise((resolve) => {
      for (const kind of kinds) this.waiting.set(kind, [...(this.waiting.get(kind) ?? []), resolve]);
    });
  }

  private onMessage(m: FromThread): void {
    if (m.t === "log") return relog(this.o.log, m.line, this.index);
    if (m.t === "metrics") {
      this.metricsWaits.get(m.id)?.(m.snapshot);
      this.metricsWaits.delete(m.id);
      return;
    }
    const wakes = this.waiting.get(m.t) ?? [];
    this.waiting.delete(m.t);
    for (const wake of wakes) wake(m);
  }
}

/**
 * Runs the region's checks in `threads` worker threads (CHECK_THREADS of the all-in-one): each thread is a cloud worker
 * with its own worker id, beats and run-now server, on the main thread's bus through a port (port-bus.ts) or on NATS.
 * The request and result building, most of a check's cost, then leave the main thread, which keeps the API,
 * scheduler, ingest and alerting.
 */
export async function startWorkerThreads(o: WorkerThreadsOptions): Promise<WorkerThreads> {
  const base = o.workerId ?? `${o.region}/${hostname()}/${process.pid}`;
  const threads: CheckThread[] = [];
  const workerIds: string[] = [];
  try {
    for (let i = 1; i <= o.threads; i++) {
      const thread = new CheckThread(i, o);
      threads.push(thread);
      const workerId = `${base}/t${i}`;
      await thread.start(workerId);
      workerIds.push(workerId);
    }
  } catch (err) {
    await Promise.all(threads.map((t) => t.stop()));
    throw err;
  }
  const removeSource = o.registry?.addSource(() => Promise.all(threads.map((t) => t.snapshot())));
  o.log.info({ op: "worker.threads", threads: o.threads, workerIds, bus: o.nats ? "nats" : "port" }, "checks run in worker threads");
  let stopping: Promise<void> | null = null;
  return {
    workerIds,
    stop() {
      stopping ??= Promise.all(threads.map((t) => t.stop())).then(() => void removeSource?.());
      return stopping;
    },
  };
}

/** A JSON log line of a thread, written again through the main logger (its format and destination), marked with the thread. */
function relog(log: Logger, line: string, thread: number): void {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    log.info({ thread }, line.trim());
    return;
  }
  const { level, time: _time, pid: _pid, hostname: _host, name: _name, msg, ...fields } = entry;
  const label = (log.levels.labels[Number(level)] ?? "info") as Level;
  log[label]({ ...fields, thread }, typeof msg === "string" ? msg : "");
}
