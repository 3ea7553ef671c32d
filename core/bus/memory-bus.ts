import { silentLogger, type Logger } from "../log.ts";
import { type Settler, TrackedDelivery } from "./delivery.ts";
import { frozenJsonCopy } from "./frozen-copy.ts";
import { startBatchLoop, startJobLoop, type Puller } from "./loops.ts";
import { MemoryConsumer, MemoryStream, type Claim, type ConsumerSettings } from "./memory-stream.ts";
import { assertName, assertSubject, jobConsumerName, matchSubject, subjectsOverlap } from "./subjects.ts";
import { assertCount, assertMessageId, resolveTopology, type Topology } from "./topology.ts";
import { replyOf, unwrapReply } from "./rpc.ts";
import { NoResponderError, RequestTimeoutError } from "./types.ts";
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

interface EventSubscription {
  pattern: string;
  deliver(subject: string, event: unknown): void;
}

interface RpcServer {
  pattern: string;
  queue?: string;
  /** Takes the JSON request, resolves with the JSON reply. */
  answer(subject: string, payload: string): Promise<string>;
}

/** The in-process "server": streams, event subscriptions and request servers shared by every MemoryBus client on it. */
export class MemoryBroker {
  readonly streams = new Map<string, MemoryStream>();
  readonly eventSubs = new Set<EventSubscription>();
  readonly rpcServers = new Set<RpcServer>();
  /** Round-robin position per queue group. */
  readonly rpcTurns = new Map<string, number>();
}

export interface MemoryBusOptions extends BusOptions {
  /** Share one broker between clients to model several processes; default a new one. */
  broker?: MemoryBroker;
}

/** A result some durable had not settled when the process stopped, and which durables those were. */
export interface UnsettledResult {
  subject: ResultSubject;
  /** The message as published (JSON). */
  payload: string;
  durables: string[];
}

/** What only the in-process bus has: its unsettled results can be written out at shutdown and put back at start. */
export interface ResultSpill {
  unsettledResults(): UnsettledResult[];
  restoreResults(results: readonly UnsettledResult[]): void;
}

export const canSpillResults = (bus: Bus): bus is Bus & ResultSpill => bus.kind === "memory" && "unsettledResults" in bus;

/** Results are kept 1 h here unless set (not 24 h): they live in this process's heap and die with it. */
const MEMORY_RESULTS_MAX_AGE_MS = 3_600_000;

export function createMemoryBus(opts: MemoryBusOptions = {}): Bus {
  const results = { maxAgeMs: MEMORY_RESULTS_MAX_AGE_MS, ...opts.results };
  return new MemoryBus(opts.broker ?? new MemoryBroker(), { ...opts, results });
}

const POLL_MS = 5000;

/** Settles one claimed message (one object per delivery rather than four closures). */
class ClaimSettler implements Settler {
  constructor(
    private readonly consumer: MemoryConsumer,
    private readonly seq: number,
  ) {}

  ack(): void {
    this.consumer.ack(this.seq);
  }

  nak(delayMs?: number): void {
    this.consumer.nak(this.seq, delayMs);
  }

  working(): void {
    this.consumer.working(this.seq);
  }

  term(): void {
    this.consumer.term(this.seq);
  }
}

/**
 * Same semantics as the NATS bus (see types.ts). Stream messages and events are copied once at publish as
 * JSON would carry them, frozen, and that one copy goes to every consumer; requests and replies go through JSON.
 */
class MemoryBus implements Bus, ResultSpill {
  readonly kind = "memory";
  private readonly topo: Topology;
  private readonly log: Logger;
  private readonly handles = new Set<ConsumerHandle>();
  private readonly subs = new Set<EventSubscription>();
  private readonly servers = new Set<RpcServer>();
  private closed = false;

  constructor(
    private readonly broker: MemoryBroker,
    opts: BusOptions,
  ) {
    this.topo = resolveTopology(opts);
    this.log = opts.log ?? silentLogger;
  }

  async ensureTopology(opts: TopologyOptions = {}): Promise<void> {
    const { jobsStream, resultsStream, jobs, results } = this.topo;
    for (const [name, workQueue, settings] of [[jobsStream, true, jobs], [resultsStream, false, results]] as const) {
      const existing = this.broker.streams.get(name);
      if (existing) existing.settings = settings;
      else this.broker.streams.set(name, new MemoryStream(name, workQueue, settings));
    }
    for (const subject of opts.jobSubjects ?? []) this.jobConsumer(subject, {});
    for (const { name, filter } of opts.resultDurables ?? []) this.resultConsumer(name, { filter });
  }

  unsettledResults(): UnsettledResult[] {
    const stream = this.broker.streams.get(this.topo.resultsStream);
    if (!stream) return [];
    const durablesOf = new Map<number, string[]>();
    for (const c of stream.consumers.values()) {
      for (const seq of c.unsettled()) {
        const list = durablesOf.get(seq);
        if (list) list.push(c.name);
        else durablesOf.set(seq, [c.name]);
      }
    }
    return [...durablesOf.keys()]
      .sort((a, b) => a - b)
      .map((seq) => {
        const m = stream.messages.get(seq)!;
        return { subject: m.subject.slice(this.topo.prefix.length) as ResultSubject, payload: JSON.stringify(m.data), durables: durablesOf.get(seq)! };
      });
  }

  /** Before anything publishes: each result goes only to the durables that had not settled it. */
  restoreResults(results: readonly UnsettledResult[]): void {
    this.assertOpen();
    const stream = this.stream(this.topo.resultsStream);
    for (const r of results) {
      assertSubject(r.subject, { wildcards: false });
      stream.restore(this.topo.prefix + r.subject, frozenJsonCopy(JSON.parse(r.payload)), r.durables);
    }
  }

  async publishJob<T extends JobMessage>(subject: JobSubject, job: T): Promise<PublishAck> {
    return this.publish(this.topo.jobsStream, "jobs.", subject, job);
  }

  async consumeJobs<T extends JobMessage>(subject: JobSubject, opts: ConsumeJobsOptions, handler: JobHandler<T>): Promise<ConsumerHandle> {
    assertCount("maxInFlight", opts.maxInFlight ?? 1);
    const consumer = this.jobConsumer(subject, opts);
    const ctx = { log: this.log, op: "bus.jobs", pollMs: POLL_MS };
    return this.track(startJobLoop(this.puller<T>(consumer), opts.maxInFlight ?? 1, ctx, handler));
  }

  async fetchJobs<T extends JobMessage>(subject: JobSubject, max: number, expiresMs: number, opts: FetchJobsOptions = {}): Promise<Delivery<T>[]> {
    assertCount("max", max);
    const { signal, ...settings } = opts;
    const consumer = this.jobConsumer(subject, settings);
    if (signal?.aborted) return [];
    const claims: Claim[] = [];
    await new Promise<void>((resolve) => {
      let stopPull = () => {};
      const end = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", end);
        stopPull();
        resolve();
      };
      const timer = setTimeout(end, expiresMs);
      signal?.addEventListener("abort", end, { once: true });
      stopPull = consumer.pull(max, true, (claim) => claims.push(claim), end);
    });
    // Aborted before this returned: what the pull took goes back at once, for the next fetch.
    if (signal?.aborted) {
      for (const c of claims) c.consumer.nak(c.message.seq);
      return [];
    }
    return claims.map((c) => this.wrap<T>(c));
  }

  ackJob(token: string): Promise<boolean> {
    return this.settle(token, (c, seq) => c.ack(seq));
  }

  nakJob(token: string, delayMs?: number): Promise<boolean> {
    return this.settle(token, (c, seq) => c.nak(seq, delayMs));
  }

  extendJob(token: string): Promise<boolean> {
    return this.settle(token, (c, seq) => c.working(seq));
  }

  termJob(token: string): Promise<boolean> {
    return this.settle(token, (c, seq) => c.term(seq));
  }

  async purgeJobs(subject: JobSubject, opts: PurgeJobsOptions = {}): Promise<number> {
    assertSubject(subject, { wildcards: true });
    const stream = this.stream(this.topo.jobsStream);
    const purged = stream.purge(this.topo.prefix + subject);
    const name = jobConsumerName(subject);
    if (opts.dropConsumer) stream.consumers.get(name)?.close();
    if (opts.dropConsumer) stream.consumers.delete(name);
    return purged;
  }

  async resetJobConsumer(subject: JobSubject): Promise<void> {
    assertSubject(subject, { wildcards: false });
    const stream = this.stream(this.topo.jobsStream);
    const name = jobConsumerName(subject);
    // A new consumer starts from the first stored message, so unacked jobs are delivered again.
    stream.consumers.get(name)?.close();
    stream.consumers.delete(name);
  }

  async pendingJobs(subject: JobSubject): Promise<number> {
    assertSubject(subject, { wildcards: true });
    return this.stream(this.topo.jobsStream).count(this.topo.prefix + subject);
  }

  async pendingJobsBySubject(filter: JobSubject): Promise<Map<JobSubject, number>> {
    assertSubject(filter, { wildcards: true });
    const counts = this.stream(this.topo.jobsStream).countBySubject(this.topo.prefix + filter);
    return new Map([...counts].map(([subject, n]) => [subject.slice(this.topo.prefix.length) as JobSubject, n]));
  }

  async publishResult<T extends ResultMessage>(subject: ResultSubject, result: T): Promise<PublishAck> {
    return this.publish(this.topo.resultsStream, "results.", subject, result);
  }

  async pendingResults(durable: string): Promise<number> {
    assertName("durable name", durable);
    return this.broker.streams.get(this.topo.resultsStream)?.consumers.get(durable)?.pending() ?? 0;
  }

  async consumeResults<T extends ResultMessage>(durable: string, opts: ConsumeResultsOptions, handler: BatchHandler<T>): Promise<ConsumerHandle> {
    const batching = { batchSize: opts.batchSize ?? 100, maxWaitMs: opts.maxWaitMs ?? 200 };
    assertCount("batchSize", batching.batchSize);
    const consumer = this.resultConsumer(durable, opts);
    const ctx = { log: this.log, op: "bus.results", pollMs: POLL_MS };
    return this.track(startBatchLoop(this.puller<T>(consumer), batching, ctx, handler));
  }

  publishEvent<T>(subject: EventSubject, event: T): void {
    this.assertOpen();
    assertSubject(subject, { wildcards: false });
    const actual = this.topo.prefix + subject;
    const copy = frozenJsonCopy(event);
    for (const sub of this.broker.eventSubs) if (matchSubject(sub.pattern, actual)) sub.deliver(actual, copy);
  }

  subscribeEvents<T>(subject: EventSubject, handler: EventHandler<T>): () => void {
    this.assertOpen();
    assertSubject(subject, { wildcards: true });
    const prefix = this.topo.prefix;
    const sub: EventSubscription = {
      pattern: prefix + subject,
      deliver: (actual, event) =>
        queueMicrotask(() => {
          try {
            handler(event as T, actual.slice(prefix.length));
          } catch (err) {
            this.log.error({ op: "bus.events", err, subject: actual }, "event handler failed");
          }
        }),
    };
    this.broker.eventSubs.add(sub);
    this.subs.add(sub);
    return () => {
      this.broker.eventSubs.delete(sub);
      this.subs.delete(sub);
    };
  }

  /** Like NATS: one server per queue group (round-robin) plus every ungrouped one get it; the first answer wins. */
  request<Req, Res>(subject: RpcSubject, body: Req, opts: RequestOptions): Promise<Res> {
    this.assertOpen();
    assertSubject(subject, { wildcards: false });
    const actual = this.topo.prefix + subject;
    const matching = [...this.broker.rpcServers].filter((s) => matchSubject(s.pattern, actual));
    if (matching.length === 0) return Promise.reject(new NoResponderError(subject));
    const chosen = matching.filter((s) => s.queue === undefined);
    const groups = new Map<string, RpcServer[]>();
    for (const s of matching) if (s.queue !== undefined) groups.set(s.queue, [...(groups.get(s.queue) ?? []), s]);
    for (const [queue, members] of groups) {
      const turn = this.broker.rpcTurns.get(queue) ?? 0;
      this.broker.rpcTurns.set(queue, turn + 1);
      chosen.push(members[turn % members.length]);
    }
    const payload = JSON.stringify(body ?? null);
    return new Promise<Res>((resolve, reject) => {
      const timer = setTimeout(() => reject(new RequestTimeoutError(subject, opts.timeoutMs)), opts.timeoutMs);
      for (const server of chosen) {
        server.answer(actual, payload).then(
          (reply) => {
            clearTimeout(timer);
            try {
              resolve(unwrapReply<Res>(JSON.parse(reply)));
            } catch (err) {
              reject(err);
            }
          },
          () => {}, // answer() never rejects: errors travel in the reply
        );
      }
    });
  }

  async serve<Req, Res>(subject: RpcSubject, opts: ServeOptions, handler: RpcHandler<Req, Res>): Promise<ConsumerHandle> {
    this.assertOpen();
    assertSubject(subject, { wildcards: true });
    if (opts.queue !== undefined) assertSubject(opts.queue, { wildcards: false });
    const prefix = this.topo.prefix;
    const log = this.log;
    const server: RpcServer = {
      pattern: prefix + subject,
      queue: opts.queue === undefined ? undefined : prefix + opts.queue,
      async answer(actual, payload) {
        await Promise.resolve(); // never run the handler inside the caller's stack
        return JSON.stringify(await replyOf(() => handler(JSON.parse(payload) as Req, actual.slice(prefix.length)), log, actual));
      },
    };
    this.broker.rpcServers.add(server);
    this.servers.add(server);
    return {
      stop: async () => {
        this.broker.rpcServers.delete(server);
        this.servers.delete(server);
      },
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const server of this.servers) this.broker.rpcServers.delete(server);
    this.servers.clear();
    await Promise.all([...this.handles].map((h) => h.stop()));
    for (const sub of this.subs) this.broker.eventSubs.delete(sub);
    this.subs.clear();
  }

  private async publish(streamName: string, root: string, subject: string, message: { id: string }): Promise<PublishAck> {
    this.assertOpen();
    assertSubject(subject, { wildcards: false });
    assertMessageId(message);
    if (!subject.startsWith(root)) throw new Error(`subject "${subject}" is not under ${root}`);
    return this.stream(streamName).publish(this.topo.prefix + subject, frozenJsonCopy(message), message.id);
  }

  private stream(name: string): MemoryStream {
    const stream = this.broker.streams.get(name);
    if (!stream) throw new Error(`stream ${name} not found; call ensureTopology() first`);
    return stream;
  }

  private jobConsumer(subject: JobSubject, opts: JobConsumerOptions): MemoryConsumer {
    this.assertOpen();
    assertSubject(subject, { wildcards: true });
    const { jobs, prefix } = this.topo;
    const filter = prefix + subject;
    const settings = { filter, ackWaitMs: opts.ackWaitMs ?? jobs.ackWaitMs, maxDeliveries: opts.maxDeliveries ?? jobs.maxDeliveries };
    const stream = this.stream(this.topo.jobsStream);
    for (const other of stream.consumers.values()) {
      if (other.settings.filter !== filter && subjectsOverlap(other.settings.filter, filter)) {
        throw new Error(`filtered consumer not unique on workqueue stream: ${subject} overlaps ${other.settings.filter}`);
      }
    }
    return this.upsertConsumer(stream, jobConsumerName(subject), settings);
  }

  private resultConsumer(durable: string, opts: ConsumeResultsOptions): MemoryConsumer {
    this.assertOpen();
    assertName("durable name", durable);
    const filter = opts.filter ?? "results.>";
    assertSubject(filter, { wildcards: true });
    const { results, prefix } = this.topo;
    const settings = {
      filter: prefix + filter,
      ackWaitMs: opts.ackWaitMs ?? results.ackWaitMs,
      maxDeliveries: opts.maxDeliveries ?? results.maxDeliveries,
    };
    return this.upsertConsumer(this.stream(this.topo.resultsStream), durable, settings);
  }

  private upsertConsumer(stream: MemoryStream, name: string, settings: ConsumerSettings): MemoryConsumer {
    const existing = stream.consumers.get(name);
    if (existing) {
      existing.settings = settings;
      return existing;
    }
    const consumer = new MemoryConsumer(name, stream, settings);
    stream.consumers.set(name, consumer);
    return consumer;
  }

  /** Claims are handed over in a microtask so a handler that settles at once never re-enters the consumer. */
  private puller<T>(consumer: MemoryConsumer): Puller<T> {
    return (max, waitMs, onEach) => {
      let resolveDone = () => {};
      const done = new Promise<void>((resolve) => (resolveDone = resolve));
      let stopPull = () => {};
      const end = () => {
        clearTimeout(timer);
        stopPull();
        queueMicrotask(resolveDone);
      };
      const timer = setTimeout(end, waitMs);
      stopPull = consumer.pull(max, false, (claim) => queueMicrotask(() => onEach(this.wrap<T>(claim))), end);
      return { done, cancel: end };
    };
  }

  private wrap<T>(claim: Claim): TrackedDelivery<T> {
    const { message: m, consumer, deliveryCount } = claim;
    const token = `mem.${consumer.stream.name}.${consumer.name}.${m.seq}`;
    return new TrackedDelivery<T>(m.subject.slice(this.topo.prefix.length), m.data as T, deliveryCount, m.publishedAt, token, new ClaimSettler(consumer, m.seq));
  }

  private async settle(token: string, apply: (c: MemoryConsumer, seq: number) => void): Promise<boolean> {
    const [kind, streamName, consumerName, seqText] = token.split(".");
    if (kind !== "mem" || streamName !== this.topo.jobsStream || !consumerName || !/^\d+$/.test(seqText ?? "")) {
      throw new Error("not a job token of this bus");
    }
    const consumer = this.broker.streams.get(streamName)?.consumers.get(consumerName);
    if (!consumer) return false;
    apply(consumer, Number(seqText));
    return true;
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

  private assertOpen(): void {
    if (this.closed) throw new Error("bus is closed");
  }
}
