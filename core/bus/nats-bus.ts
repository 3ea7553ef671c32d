import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager, type JsMsg } from "@nats-io/jetstream";
import { connect, RequestError, TimeoutError, type NatsConnection, type Subscription } from "@nats-io/transport-node";
import { silentLogger, type Logger } from "../log.ts";
import { TrackedDelivery } from "./delivery.ts";
import { startBatchLoop, startJobLoop, type Pull, type Puller } from "./loops.ts";
import { ConsumerRegistry, ensureStream, streamConfigs, type ConsumerSpec } from "./nats-topology.ts";
import { assertName, assertSubject, jobConsumerName } from "./subjects.ts";
import { assertCount, assertMessageId, resolveTopology, type Topology } from "./topology.ts";
import { duringOutage, isNatsOutage } from "./nats-outage.ts";
import { replyOf, unwrapReply } from "./rpc.ts";
import { BusUnavailableError, NoResponderError, RequestTimeoutError, type RpcReply } from "./types.ts";
import type {
  BatchHandler,
  Bus,
  BusOptions,
  ConsumeJobsOptions,
  ConsumeResultsOptions,
  ConsumerHandle,
  Delivery,
  EventHandler,
  EventSubject,
  FetchJobsOptions,
  JobConsumerOptions,
  JobHandler,
  JobMessage,
  JobSubject,
  PublishAck,
  PurgeJobsOptions,
  ResultMessage,
  ResultSubject,
  RequestOptions,
  RpcHandler,
  RpcSubject,
  ServeOptions,
  TopologyOptions,
} from "./types.ts";

export interface NatsBusOptions extends BusOptions {
  /** e.g. `nats://127.0.0.1:4222`; several servers of one cluster comma-separated. */
  url: string;
  /** Connection name shown by the server. */
  name?: string;
  /** Stream replicas in a cluster; default 1. */
  replicas?: number;
}

/**
 * A flow that a firewall, a NAT or a cut link forgot answers nothing and is never closed: only the client's own
 * pings find it. With the client's default (every 2 minutes, two unanswered) every publish failed for 4 to 6
 * minutes while the server was up; at 5 s the connection is given up 10 to 15 s after the cut and made again.
 */
const PING_INTERVAL_MS = 5000;
const MAX_PINGS_OUT = 2;

export async function connectNatsBus(opts: NatsBusOptions): Promise<Bus> {
  const nc = await connect({
    servers: opts.url.split(",").map((s) => s.trim()),
    name: opts.name,
    maxReconnectAttempts: -1,
    pingInterval: PING_INTERVAL_MS,
    maxPingOut: MAX_PINGS_OUT,
  });
  return new NatsBus(nc, jetstream(nc), await jetstreamManager(nc), opts);
}

/** Longest pull request of the consume loops (NATS requires at least 1 s). */
const POLL_MS = 5000;
const MIN_EXPIRES_MS = 1000;
const SETTLE_TIMEOUT_MS = 5000;

class NatsBus implements Bus {
  readonly kind = "nats";
  private readonly topo: Topology;
  private readonly log: Logger;
  private readonly consumers: ConsumerRegistry;
  private readonly handles = new Set<ConsumerHandle>();
  private readonly subs = new Set<Subscription>();
  private closing: Promise<void> | null = null;

  constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly opts: NatsBusOptions,
  ) {
    this.topo = resolveTopology(opts);
    this.log = opts.log ?? silentLogger;
    this.consumers = new ConsumerRegistry(js, jsm);
  }

  async ensureTopology(opts: TopologyOptions = {}): Promise<void> {
    await Promise.all(streamConfigs(this.topo, this.opts.replicas ?? 1).map((cfg) => ensureStream(this.jsm, cfg)));
    await Promise.all([
      ...(opts.jobSubjects ?? []).map((s) => this.consumers.get(this.jobSpec(s, {}))),
      ...(opts.resultDurables ?? []).map(({ name, filter }) => this.consumers.get(this.resultSpec(name, { filter }))),
    ]);
  }

  publishJob<T extends JobMessage>(subject: JobSubject, job: T): Promise<PublishAck> {
    return this.publish("jobs.", subject, job);
  }

  async consumeJobs<T extends JobMessage>(subject: JobSubject, opts: ConsumeJobsOptions, handler: JobHandler<T>): Promise<ConsumerHandle> {
    assertCount("maxInFlight", opts.maxInFlight ?? 1);
    const spec = this.jobSpec(subject, opts);
    await this.consumers.get(spec);
    const ctx = { log: this.log, op: "bus.jobs", pollMs: POLL_MS };
    return this.track(startJobLoop(this.puller<T>(spec), opts.maxInFlight ?? 1, ctx, handler));
  }

  /**
   * A pull of one returns on the first job; the rest that are ready come from a second short pull. An abort stops the
   * pull under way (its inbox unsubscribed, the server drops the request), starts no other, and naks what came. Only a
   * job the server sent in the instant before it saw the unsubscribe is missed: it comes back after its ack deadline.
   */
  async fetchJobs<T extends JobMessage>(subject: JobSubject, max: number, expiresMs: number, opts: FetchJobsOptions = {}): Promise<Delivery<T>[]> {
    assertCount("max", max);
    const { signal, ...settings } = opts;
    const spec = this.jobSpec(subject, settings);
    if (signal?.aborted) return [];
    const out: Delivery<T>[] = [];
    let received = 0;
    let pending = 0;
    const keep = (m: JsMsg) => {
      received++;
      pending = m.info.pending;
      const d = this.wrap<T>(m);
      if (d) out.push(d);
    };
    await duringOutage("fetch jobs", async () => {
      try {
        await this.pullJobs(spec, { max_messages: 1, expires: Math.max(MIN_EXPIRES_MS, expiresMs) }, keep, signal);
      } catch (err) {
        this.consumers.forget(spec.stream, spec.name);
        throw err;
      }
    });
    const more = Math.min(max - 1, pending);
    try {
      if (received > 0 && more > 0 && !signal?.aborted) await this.pullJobs(spec, { max_messages: more, expires: MIN_EXPIRES_MS }, keep, signal);
    } catch (err) {
      // What was delivered is handed out: thrown away here, each job would wait out its ack deadline unclaimed.
      this.log.warn({ op: "bus.jobs", err, subject, delivered: out.length }, "the second pull of a claim failed; handing out what the first brought");
    }
    if (signal?.aborted) {
      for (const d of out) d.nak();
      return [];
    }
    return out;
  }

  /**
   * One pull request, each message to `keep`. On abort the iterator stops; iterating on (never breaking, which would
   * drop them) still yields the messages that had arrived, so the caller can hand them back.
   */
  private async pullJobs(spec: ConsumerSpec, opts: { max_messages: number; expires: number }, keep: (m: JsMsg) => void, signal?: AbortSignal): Promise<void> {
    const iter = await (await this.consumers.get(spec)).fetch(opts);
    const stop = () => iter.stop();
    signal?.addEventListener("abort", stop, { once: true });
    try {
      if (signal?.aborted) stop();
      for await (const m of iter) keep(m);
    } finally {
      signal?.removeEventListener("abort", stop);
    }
  }

  ackJob(token: string): Promise<boolean> {
    return this.settle(token, "+ACK");
  }

  nakJob(token: string, delayMs?: number): Promise<boolean> {
    return this.settle(token, delayMs ? `-NAK ${JSON.stringify({ delay: delayMs * 1_000_000 })}` : "-NAK");
  }

  extendJob(token: string): Promise<boolean> {
    return this.settle(token, "+WPI");
  }

  termJob(token: string): Promise<boolean> {
    return this.settle(token, "+TERM");
  }

  async purgeJobs(subject: JobSubject, opts: PurgeJobsOptions = {}): Promise<number> {
    assertSubject(subject, { wildcards: true });
    const { purged } = await duringOutage("purge jobs", () => this.jsm.streams.purge(this.topo.jobsStream, { filter: this.topo.prefix + subject }));
    if (opts.dropConsumer) {
      const name = jobConsumerName(subject);
      this.consumers.forget(this.topo.jobsStream, name);
      await this.jsm.consumers.delete(this.topo.jobsStream, name).catch((err) => {
        if (!isNotFound(err)) throw err;
      });
    }
    return purged;
  }

  async resetJobConsumer(subject: JobSubject): Promise<void> {
    assertSubject(subject, { wildcards: false });
    const name = jobConsumerName(subject);
    this.consumers.forget(this.topo.jobsStream, name);
    // On a work-queue stream only an ack removes a message, so the unacked ones stay for the next consumer.
    await duringOutage("reset a job consumer", () => this.jsm.consumers.delete(this.topo.jobsStream, name)).catch((err) => {
      if (!isNotFound(err)) throw err;
    });
  }

  async pendingJobs(subject: JobSubject): Promise<number> {
    return [...(await this.pendingJobsBySubject(subject)).values()].reduce((a, b) => a + b, 0);
  }

  async pendingJobsBySubject(filter: JobSubject): Promise<Map<JobSubject, number>> {
    assertSubject(filter, { wildcards: true });
    const info = await duringOutage("read the job queues' depths", () => this.jsm.streams.info(this.topo.jobsStream, { subjects_filter: this.topo.prefix + filter }));
    const bySubject = Object.entries(info.state.subjects ?? {}).filter(([, n]) => n > 0);
    return new Map(bySubject.map(([subject, n]) => [subject.slice(this.topo.prefix.length) as JobSubject, n]));
  }

  publishResult<T extends ResultMessage>(subject: ResultSubject, result: T): Promise<PublishAck> {
    return this.publish("results.", subject, result);
  }

  async pendingResults(durable: string): Promise<number> {
    assertName("durable name", durable);
    try {
      const info = await duringOutage("read a result consumer's backlog", () => this.jsm.consumers.info(this.topo.resultsStream, durable));
      return info.num_pending + info.num_ack_pending;
    } catch (err) {
      // No such durable (10014) or no stream yet (10059): nothing is pending for it.
      if (err instanceof Error && "code" in err && (err.code === 10014 || err.code === 10059)) return 0;
      throw err;
    }
  }

  async consumeResults<T extends ResultMessage>(durable: string, opts: ConsumeResultsOptions, handler: BatchHandler<T>): Promise<ConsumerHandle> {
    const batching = { batchSize: opts.batchSize ?? 100, maxWaitMs: opts.maxWaitMs ?? 200 };
    assertCount("batchSize", batching.batchSize);
    const spec = this.resultSpec(durable, opts);
    await this.consumers.get(spec);
    const ctx = { log: this.log, op: "bus.results", pollMs: POLL_MS };
    return this.track(startBatchLoop(this.puller<T>(spec), batching, ctx, handler));
  }

  publishEvent<T>(subject: EventSubject, event: T): void {
    assertSubject(subject, { wildcards: false });
    this.nc.publish(this.topo.prefix + subject, JSON.stringify(event));
  }

  subscribeEvents<T>(subject: EventSubject, handler: EventHandler<T>): () => void {
    assertSubject(subject, { wildcards: true });
    const prefix = this.topo.prefix;
    const sub = this.nc.subscribe(prefix + subject, {
      callback: (err, msg) => {
        if (err) return this.log.error({ op: "bus.events", err, subject }, "subscription failed");
        try {
          handler(JSON.parse(msg.string()) as T, msg.subject.slice(prefix.length));
        } catch (err) {
          this.log.error({ op: "bus.events", err, subject: msg.subject }, "event handler failed");
        }
      },
    });
    this.subs.add(sub);
    return () => {
      this.subs.delete(sub);
      sub.unsubscribe();
    };
  }

  /** Core NATS request/reply (not JetStream: the streams capture only jobs.> and results.>). */
  async request<Req, Res>(subject: RpcSubject, body: Req, opts: RequestOptions): Promise<Res> {
    assertSubject(subject, { wildcards: false });
    let reply: RpcReply<Res>;
    try {
      const msg = await this.nc.request(this.topo.prefix + subject, JSON.stringify(body ?? null), { timeout: opts.timeoutMs });
      reply = JSON.parse(msg.string()) as RpcReply<Res>;
    } catch (err) {
      if (err instanceof RequestError && err.isNoResponders()) throw new NoResponderError(subject);
      if (err instanceof TimeoutError || (err instanceof Error && err.cause instanceof TimeoutError)) {
        throw new RequestTimeoutError(subject, opts.timeoutMs);
      }
      throw isNatsOutage(err) ? new BusUnavailableError(`request ${subject}`, { cause: err }) : err;
    }
    return unwrapReply(reply);
  }

  async serve<Req, Res>(subject: RpcSubject, opts: ServeOptions, handler: RpcHandler<Req, Res>): Promise<ConsumerHandle> {
    assertSubject(subject, { wildcards: true });
    const prefix = this.topo.prefix;
    const running = new Set<Promise<void>>();
    const sub = this.nc.subscribe(prefix + subject, {
      queue: opts.queue,
      callback: (err, msg) => {
        if (err) return this.log.error({ op: "bus.rpc", err, subject }, "subscription failed");
        const task = (async () => {
          const reply = await replyOf(() => handler(JSON.parse(msg.string()) as Req, msg.subject.slice(prefix.length)), this.log, msg.subject);
          if (!msg.respond(JSON.stringify(reply))) this.log.warn({ op: "bus.rpc", subject: msg.subject }, "request had no reply subject");
        })().catch((err) => this.log.error({ op: "bus.rpc", err, subject: msg.subject }, "reply failed"));
        running.add(task);
        void task.finally(() => running.delete(task));
      },
    });
    this.subs.add(sub);
    await this.nc.flush(); // the server has the subscription: a request from any client reaches it from now on
    // Waits for running handlers so their replies go out before the connection drains.
    const handle: ConsumerHandle = {
      stop: async () => {
        this.handles.delete(handle);
        this.subs.delete(sub);
        sub.unsubscribe();
        await Promise.all(running);
      },
    };
    this.handles.add(handle);
    return handle;
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.all([...this.handles].map((h) => h.stop()));
      for (const sub of this.subs) sub.unsubscribe();
      this.subs.clear();
      await this.nc.drain();
    })();
    return this.closing;
  }

  private async publish(root: string, subject: string, message: { id: string }): Promise<PublishAck> {
    assertSubject(subject, { wildcards: false });
    assertMessageId(message);
    if (!subject.startsWith(root)) throw new Error(`subject "${subject}" is not under ${root}`);
    const ack = await duringOutage(`publish to ${root.slice(0, -1)}`, () => this.js.publish(this.topo.prefix + subject, JSON.stringify(message), { msgID: message.id }));
    return { seq: ack.seq, duplicate: ack.duplicate };
  }

  private jobSpec(subject: JobSubject, opts: JobConsumerOptions): ConsumerSpec {
    assertSubject(subject, { wildcards: true });
    const { jobs, prefix, jobsStream } = this.topo;
    return {
      stream: jobsStream,
      name: jobConsumerName(subject),
      filter: prefix + subject,
      ackWaitMs: opts.ackWaitMs ?? jobs.ackWaitMs,
      maxDeliveries: opts.maxDeliveries ?? jobs.maxDeliveries,
    };
  }

  private resultSpec(durable: string, opts: ConsumeResultsOptions): ConsumerSpec {
    assertName("durable name", durable);
    const filter = opts.filter ?? "results.>";
    assertSubject(filter, { wildcards: true });
    const { results, prefix, resultsStream } = this.topo;
    return {
      stream: resultsStream,
      name: durable,
      filter: prefix + filter,
      ackWaitMs: opts.ackWaitMs ?? results.ackWaitMs,
      maxDeliveries: opts.maxDeliveries ?? results.maxDeliveries,
    };
  }

  /** A cancelled fetch unsubscribes its inbox; the server then skips the request (no interest). */
  private puller<T>(spec: ConsumerSpec): Puller<T> {
    return (max, waitMs, onEach): Pull => {
      let cancelled = false;
      let stopIter = () => {};
      const done = (async () => {
        try {
          const consumer = await this.consumers.get(spec);
          if (cancelled) return;
          const iter = await consumer.fetch({ max_messages: max, expires: Math.max(MIN_EXPIRES_MS, waitMs) });
          stopIter = () => iter.stop();
          if (cancelled) return iter.stop();
          for await (const m of iter) {
            const d = this.wrap<T>(m);
            if (d) onEach(d);
          }
        } catch (err) {
          this.consumers.forget(spec.stream, spec.name);
          if (!cancelled) throw err;
        }
      })();
      return {
        done,
        cancel: () => {
          cancelled = true;
          stopIter();
        },
      };
    };
  }

  /** Undecodable payloads can never succeed: they are terminated, not redelivered. */
  private wrap<T>(m: JsMsg): TrackedDelivery<T> | null {
    let data: T;
    try {
      data = JSON.parse(m.string()) as T;
    } catch (err) {
      this.log.error({ op: "bus.decode", err, subject: m.subject }, "dropping undecodable message");
      m.term();
      return null;
    }
    const token = "reply" in m && typeof m.reply === "string" ? m.reply : "";
    const publishedAt = Number(m.timestampNanos / 1_000_000n);
    return new TrackedDelivery<T>(m.subject.slice(this.topo.prefix.length), data, m.info.deliveryCount, publishedAt, token, {
      ack: () => m.ack(),
      nak: (delayMs) => m.nak(delayMs),
      working: () => m.working(),
      term: () => m.term(),
    });
  }

  /** Publishes an ack to the delivery's reply subject and waits for the server's confirmation. */
  private async settle(token: string, body: string): Promise<boolean> {
    const t = token.split(".");
    const stream = t.length === 9 ? t[2] : t[4];
    if (t[0] !== "$JS" || t[1] !== "ACK" || (t.length !== 9 && t.length < 11) || stream !== this.topo.jobsStream) {
      throw new Error("not a job token of this bus");
    }
    try {
      await this.nc.request(token, body, { timeout: SETTLE_TIMEOUT_MS });
      return true;
    } catch (err) {
      if (err instanceof RequestError && err.isNoResponders()) return false;
      throw isNatsOutage(err) ? new BusUnavailableError("settle a job", { cause: err }) : err;
    }
  }

  private track(handle: ConsumerHandle): ConsumerHandle {
    this.handles.add(handle);
    return {
      stop: async () => {
        this.handles.delete(handle);
        await handle.stop();
      },
    };
  }
}

function isNotFound(err: unknown): boolean {
  return err instanceof Error && "code" in err && err.code === 10014;
}
