import { silentLogger, type Logger } from "../log.ts";
import { frozenJsonCopy } from "./frozen-copy.ts";
import { replyOf } from "./rpc.ts";
import { TrackedDelivery } from "./delivery.ts";
import { type BusPort, type ClientMessage, fromWireError, type HostMessage, listen, Outbox, type SettleHow, type WireDelivery } from "./port-wire.ts";
import { assertCount } from "./topology.ts";
import { assertName, assertSubject } from "./subjects.ts";
import type {
  BatchHandler,
  Bus,
  ConsumeJobsOptions,
  ConsumeResultsOptions,
  ConsumerHandle,
  Delivery,
  EventHandler,
  EventSubject,
  FetchJobsOptions,
  JobHandler,
  JobMessage,
  JobSlot,
  JobSubject,
  PublishAck,
  PurgeJobsOptions,
  RequestOptions,
  ResultMessage,
  ResultSubject,
  RpcHandler,
  RpcSubject,
  ServeOptions,
  TopologyOptions,
} from "./types.ts";

type Handler = (deliveries: Delivery<unknown>[], slot: JobSlot) => Promise<void> | void;

/**
 * A Bus for a role running in another thread than the bus it uses: every call crosses `port` to the host
 * (port-bus-host.ts), which runs it on the real bus (the all-in-one's in-process bus). Consumer loops, ack deadlines
 * and redelivery stay on the host; handlers run here, and settling a delivery here settles it there.
 */
export function createPortBus(port: BusPort, opts: { log?: Logger } = {}): Bus {
  return new PortBus(port, opts.log ?? silentLogger);
}

class PortBus implements Bus {
  readonly kind = "port";
  private readonly out: Outbox<ClientMessage>;
  private readonly pending = new Map<number, { resolve(value: unknown): void; reject(err: Error): void }>();
  private readonly handlers = new Map<number, Handler>();
  private readonly servers = new Map<number, RpcHandler<unknown, unknown>>();
  private readonly subs = new Map<number, EventHandler<unknown>>();
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly port: BusPort,
    private readonly log: Logger,
  ) {
    this.out = new Outbox(port);
    listen<HostMessage>(port, (m) => this.onMessage(m));
  }

  ensureTopology(opts?: TopologyOptions): Promise<void> {
    return this.call("ensureTopology", opts);
  }

  publishJob<T extends JobMessage>(subject: JobSubject, job: T): Promise<PublishAck> {
    // Serialised now (Outbox.push), as the other buses copy: the publisher may change its object afterwards.
    return this.call("publishJob", subject, job);
  }

  async consumeJobs<T extends JobMessage>(subject: JobSubject, opts: ConsumeJobsOptions, handler: JobHandler<T>): Promise<ConsumerHandle> {
    assertCount("maxInFlight", opts.maxInFlight ?? 1);
    return this.consume("jobs", subject, opts, (ds, slot) => handler(ds[0] as Delivery<T>, slot));
  }

  /** A signal cannot cross the port: its abort does, and the host aborts its own fetch. */
  async fetchJobs<T extends JobMessage>(subject: JobSubject, max: number, expiresMs: number, opts: FetchJobsOptions = {}): Promise<Delivery<T>[]> {
    const { signal, ...settings } = opts;
    if (signal?.aborted) return [];
    const id = this.nextId++;
    const onAbort = () => this.out.push({ t: "abort", call: id });
    signal?.addEventListener("abort", onAbort, { once: true });
    let got: WireDelivery[];
    try {
      got = (await this.callWithId("fetchJobs", [subject, max, expiresMs, settings], id)) as WireDelivery[];
    } finally {
      signal?.removeEventListener("abort", onAbort);
    }
    // Fetched jobs are settled by token, as any client of the bus may settle them.
    const deliveries = got.map(
      (w) =>
        new TrackedDelivery<T>(w.subject, w.data as T, w.deliveryCount, w.publishedAt, w.token, {
          ack: () => this.settleByToken("ackJob", w.token),
          nak: (delayMs) => this.settleByToken("nakJob", w.token, delayMs),
          working: () => this.settleByToken("extendJob", w.token),
          term: () => this.settleByToken("termJob", w.token),
        }),
    );
    // The host's fetch had returned when the abort reached it: what it brought goes back.
    if (signal?.aborted) {
      for (const d of deliveries) d.nak();
      return [];
    }
    return deliveries;
  }

  ackJob(token: string): Promise<boolean> {
    return this.call("ackJob", token);
  }

  nakJob(token: string, delayMs?: number): Promise<boolean> {
    return this.call("nakJob", token, delayMs);
  }

  extendJob(token: string): Promise<boolean> {
    return this.call("extendJob", token);
  }

  termJob(token: string): Promise<boolean> {
    return this.call("termJob", token);
  }

  purgeJobs(subject: JobSubject, opts?: PurgeJobsOptions): Promise<number> {
    return this.call("purgeJobs", subject, opts);
  }

  resetJobConsumer(subject: JobSubject): Promise<void> {
    return this.call("resetJobConsumer", subject);
  }

  pendingJobs(subject: JobSubject): Promise<number> {
    return this.call("pendingJobs", subject);
  }

  async pendingJobsBySubject(filter: JobSubject): Promise<Map<JobSubject, number>> {
    return new Map(await this.call<[JobSubject, number][]>("pendingJobsBySubject", filter));
  }

  publishResult<T extends ResultMessage>(subject: ResultSubject, result: T): Promise<PublishAck> {
    return this.call("publishResult", subject, result);
  }

  async consumeResults<T extends ResultMessage>(durable: string, opts: ConsumeResultsOptions, handler: BatchHandler<T>): Promise<ConsumerHandle> {
    assertName("durable name", durable);
    return this.consume("results", durable, opts, (ds) => handler(ds as Delivery<T>[]));
  }

  pendingResults(durable: string): Promise<number> {
    return this.call("pendingResults", durable);
  }

  publishEvent<T>(subject: EventSubject, event: T): void {
    this.assertOpen();
    assertSubject(subject, { wildcards: false });
    this.out.push({ t: "publish-event", subject, event });
  }

  subscribeEvents<T>(subject: EventSubject, handler: EventHandler<T>): () => void {
    this.assertOpen();
    assertSubject(subject, { wildcards: true });
    const sub = this.nextId++;
    this.subs.set(sub, handler as EventHandler<unknown>);
    this.out.push({ t: "subscribe", sub, subject });
    return () => {
      if (!this.subs.delete(sub) || this.closed) return;
      this.out.push({ t: "unsubscribe", sub });
    };
  }

  request<Req, Res>(subject: RpcSubject, body: Req, opts: RequestOptions): Promise<Res> {
    return this.call("request", subject, body ?? null, opts);
  }

  async serve<Req, Res>(subject: RpcSubject, opts: ServeOptions, handler: RpcHandler<Req, Res>): Promise<ConsumerHandle> {
    this.assertOpen();
    assertSubject(subject, { wildcards: true });
    const id = this.nextId++;
    this.servers.set(id, handler as RpcHandler<unknown, unknown>);
    await this.send({ t: "serve", id, subject, opts }).catch((err) => {
      this.servers.delete(id);
      throw err;
    });
    return { stop: () => this.stopHandle(id) };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // The host stops this client's consumers; handlers running here finish and report first.
    await this.send({ t: "close", id: this.nextId++ }, true).catch((err) => this.log.warn({ op: "bus.port", err }, "closing the port bus failed"));
    this.subs.clear();
    this.servers.clear();
    this.handlers.clear();
    this.out.flush();
    this.port.onmessage = null;
    this.port.close();
  }

  private async consume(kind: "jobs" | "results", name: string, opts: object, handler: Handler): Promise<ConsumerHandle> {
    this.assertOpen();
    const id = this.nextId++;
    this.handlers.set(id, handler);
    await this.send({ t: "consume", id, kind, name, opts }).catch((err) => {
      this.handlers.delete(id);
      throw err;
    });
    return { stop: () => this.stopHandle(id) };
  }

  private async stopHandle(id: number): Promise<void> {
    if (this.closed) return;
    await this.send({ t: "stop", id: this.nextId++, handle: id });
    this.handlers.delete(id);
    this.servers.delete(id);
  }

  private call<T>(method: string, ...args: unknown[]): Promise<T> {
    return this.callWithId(method, args, this.nextId++) as Promise<T>;
  }

  private callWithId(method: string, args: unknown[], id: number): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error("bus is closed"));
    // An omitted optional argument stays omitted: JSON would turn a trailing undefined into null.
    while (args.length > 0 && args[args.length - 1] === undefined) args.pop();
    return this.send({ t: "call", id, method, args });
  }

  private send(message: ClientMessage & { id: number }, closing = false): Promise<unknown> {
    if (this.closed && !closing) return Promise.reject(new Error("bus is closed"));
    return new Promise((resolve, reject) => {
      this.pending.set(message.id, { resolve, reject });
      this.out.push(message);
    });
  }

  private settleByToken(method: "ackJob" | "nakJob" | "extendJob" | "termJob", token: string, delayMs?: number): void {
    this.call(method, token, delayMs).catch((err) => this.log.warn({ op: "bus.port", err }, "settling a fetched job failed"));
  }

  private onMessage(m: HostMessage): void {
    switch (m.t) {
      case "reply": {
        const pending = this.pending.get(m.id);
        this.pending.delete(m.id);
        if (m.ok) pending?.resolve(m.value);
        else pending?.reject(fromWireError(m.error));
        return;
      }
      case "handle":
        return void this.runHandler(m.call, m.handle, m.deliveries);
      case "event": {
        const handler = this.subs.get(m.sub);
        try {
          // One message may carry the same event to several subscriptions: each gets a frozen copy, so none changes what another sees.
          handler?.(frozenJsonCopy(m.event), m.subject);
        } catch (err) {
          this.log.error({ op: "bus.events", err, subject: m.subject }, "event handler failed");
        }
        return;
      }
      case "request": {
        const handler = this.servers.get(m.handle);
        const run = () => (handler ? handler(m.body, m.subject) : Promise.reject(new Error("server stopped")));
        void replyOf(run, this.log, m.subject).then((reply) => this.out.push({ t: "answer", call: m.call, reply }));
        return;
      }
    }
  }

  /** Runs the consumer's handler on the deliveries; the host acks what it left open, or naks all when it threw. */
  private async runHandler(call: number, handle: number, wires: WireDelivery[]): Promise<void> {
    const settle = (i: number) => (how: SettleHow, delayMs?: number) => this.out.push({ t: "settle", call, i, how, delayMs });
    const deliveries = wires.map((w, i) => {
      const s = settle(i);
      return new TrackedDelivery<unknown>(w.subject, w.data, w.deliveryCount, w.publishedAt, w.token, {
        ack: () => s("ack"),
        nak: (delayMs) => s("nak", delayMs),
        working: () => s("working"),
        term: () => s("term"),
      });
    });
    // Giving a job's slot back crosses too: the host's loop then takes the next job while this handler finishes.
    let released = false;
    const slot: JobSlot = {
      release: () => {
        if (released) return;
        released = true;
        this.out.push({ t: "release", call });
      },
    };
    const handler = this.handlers.get(handle);
    try {
      if (!handler) throw new Error("consumer stopped");
      await handler(deliveries, slot);
      // Nothing here waits on the host's ack (the slot was given back or the next delivery needs this one's
      // answer anyway): it rides with the next message that crosses.
      this.out.push({ t: "handled", call }, true);
    } catch (err) {
      this.out.push({ t: "handled", call, error: err instanceof Error ? err.message : String(err) });
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new Error("bus is closed");
  }
}
