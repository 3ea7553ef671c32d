import type { Logger } from "../log.ts";
import { unwrapReply } from "./rpc.ts";
import type { Bus, ConsumerHandle, Delivery, JobSlot, RpcReply } from "./types.ts";
import { type BusPort, type ClientMessage, type HostMessage, listen, Outbox, toWireError, type WireDelivery } from "./port-wire.ts";

/** The Bus methods a port client may call by name; each returns a promise whose value is cloneable. */
const CALLS = new Set([
  "ensureTopology",
  "publishJob",
  "fetchJobs",
  "ackJob",
  "nakJob",
  "extendJob",
  "termJob",
  "purgeJobs",
  "resetJobConsumer",
  "pendingJobs",
  "pendingJobsBySubject",
  "publishResult",
  "pendingResults",
  "request",
]);

export interface PortBusHost {
  /**
   * The client is gone (its thread ended or is being terminated): what it was handling is handed back (naked) at
   * once, its consumers, servers and subscriptions end. The bus itself stays open.
   */
  close(): Promise<void>;
}

interface PendingCall {
  deliveries: Delivery<unknown>[];
  /** A job consumer's slot, which the client's handler may give back before it ends. */
  slot?: JobSlot;
  resolve(): void;
  reject(err: Error): void;
}

const wire = (d: Delivery<unknown>): WireDelivery => ({ subject: d.subject, data: d.data, deliveryCount: d.deliveryCount, publishedAt: d.publishedAt, token: d.token });

class ClientGoneError extends Error {
  constructor() {
    super("the bus client on the other side of the port is gone");
    this.name = "ClientGoneError";
  }
}

/**
 * The host side of a port bus (core/bus/port-bus.ts): runs what the client on the other thread asks on `bus`. The
 * consumer loops run here, so ack deadlines, batching and redelivery are the host bus's own; each claimed delivery is
 * handed over and the loop waits until the client reports its handler done (or threw).
 */
export function servePortBus(bus: Bus, port: BusPort, log: Logger): PortBusHost {
  const out = new Outbox<HostMessage>(port);
  const handles = new Map<number, ConsumerHandle>();
  const subs = new Map<number, () => void>();
  const calls = new Map<number, PendingCall>();
  const answers = new Map<number, { resolve(reply: RpcReply<unknown>): void; reject(err: Error): void }>();
  /** The fetches under way, by call id: the client's signal aborts them (an "abort" message). */
  const fetches = new Map<number, AbortController>();
  let nextCall = 1;
  let gone = false;

  /** `lazy`: the answer to a publish (the client's pipeline has room for more meanwhile) rides with the next message. */
  const reply = (id: number, run: () => Promise<unknown>, lazy = false) => {
    run()
      .then((value) => out.push({ t: "reply", id, ok: true, value: value ?? null }, lazy))
      .catch((err: unknown) => out.push({ t: "reply", id, ok: false, error: toWireError(err) }));
  };

  /** Hands deliveries to the client's handler; settles like a local handler (resolve acks the rest, reject naks). */
  const forward = (handle: number, deliveries: Delivery<unknown>[], slot?: JobSlot): Promise<void> => {
    if (gone) return Promise.reject(new ClientGoneError());
    const call = nextCall++;
    return new Promise<void>((resolve, reject) => {
      calls.set(call, { deliveries, slot, resolve, reject });
      out.push({ t: "handle", call, handle, deliveries: deliveries.map(wire) });
    });
  };

  const stopAll = async () => {
    for (const unsubscribe of subs.values()) unsubscribe();
    subs.clear();
    const all = [...handles.values()];
    handles.clear();
    await Promise.all(all.map((h) => h.stop()));
  };

  const fetchJobs = (id: number, [subject, max, expiresMs, opts]: unknown[]) => {
    const abort = new AbortController();
    fetches.set(id, abort);
    reply(id, async () => {
      try {
        const got = await bus.fetchJobs(subject as never, max as number, expiresMs as number, { ...(opts as object), signal: abort.signal });
        return got.map(wire);
      } finally {
        fetches.delete(id);
      }
    });
  };

  const onMessage = (m: ClientMessage) => {
    switch (m.t) {
      case "call": {
        if (!CALLS.has(m.method)) return reply(m.id, async () => Promise.reject(new Error(`not a bus call: ${m.method}`)));
        if (m.method === "fetchJobs") return fetchJobs(m.id, m.args);
        const method = (bus as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[m.method]!;
        return reply(
          m.id,
          async () => {
            const value = await method.apply(bus, m.args);
            // JSON carries a map as its entries.
            return value instanceof Map ? [...value] : value;
          },
          m.method === "publishResult",
        );
      }
      case "abort":
        fetches.get(m.call)?.abort();
        return;
      case "consume":
        return reply(m.id, async () => {
          const handle =
            m.kind === "jobs"
              ? await bus.consumeJobs(m.name as never, m.opts, (d, slot) => forward(m.id, [d], slot))
              : await bus.consumeResults(m.name, m.opts, (batch) => forward(m.id, batch));
          handles.set(m.id, handle);
        });
      case "serve":
        return reply(m.id, async () => {
          const handle = await bus.serve(m.subject as never, m.opts, (body, subject) => {
            if (gone) throw new ClientGoneError();
            const call = nextCall++;
            return new Promise<RpcReply<unknown>>((resolve, reject) => {
              answers.set(call, { resolve, reject });
              out.push({ t: "request", call, handle: m.id, subject, body });
            }).then(unwrapReply);
          });
          handles.set(m.id, handle);
        });
      case "stop":
        return reply(m.id, async () => {
          const handle = handles.get(m.handle);
          handles.delete(m.handle);
          await handle?.stop();
        });
      case "close":
        return reply(m.id, stopAll);
      case "settle": {
        const d = calls.get(m.call)?.deliveries[m.i];
        if (!d) return;
        if (m.how === "ack") d.ack();
        else if (m.how === "nak") d.nak(m.delayMs);
        else if (m.how === "working") d.inProgress();
        else d.term();
        return;
      }
      case "release":
        calls.get(m.call)?.slot?.release();
        return;
      case "handled": {
        const pending = calls.get(m.call);
        calls.delete(m.call);
        if (!pending) return;
        if (m.error === undefined) pending.resolve();
        else pending.reject(new Error(m.error));
        return;
      }
      case "answer": {
        const pending = answers.get(m.call);
        answers.delete(m.call);
        pending?.resolve(m.reply);
        return;
      }
      case "publish-event":
        try {
          bus.publishEvent(m.subject as never, m.event);
        } catch (err) {
          log.warn({ op: "bus.port", err, subject: m.subject }, "event from a thread not published");
        }
        return;
      case "subscribe":
        subs.set(
          m.sub,
          bus.subscribeEvents(m.subject as never, (event, subject) => out.push({ t: "event", sub: m.sub, subject, event })),
        );
        return;
      case "unsubscribe":
        subs.get(m.sub)?.();
        subs.delete(m.sub);
        return;
    }
  };
  listen<ClientMessage>(port, onMessage);

  return {
    async close() {
      if (gone) return;
      gone = true;
      const err = new ClientGoneError();
      for (const abort of fetches.values()) abort.abort();
      for (const pending of calls.values()) pending.reject(err);
      calls.clear();
      for (const pending of answers.values()) pending.reject(err);
      answers.clear();
      await stopAll();
      port.onmessage = null;
      port.close();
    },
  };
}
