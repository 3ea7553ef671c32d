import { BusUnavailableError, NoResponderError, RemoteError, RequestTimeoutError, type RpcReply } from "./types.ts";

/**
 * One end of a channel between two threads: a MessagePort (MessageChannel, or one handed to a Worker). What crosses is
 * one JSON string per batch (Outbox): everything on the bus is JSON by contract, and in Bun a string crosses at a third
 * of the cost of a structured clone of a job or result (docs/performance.md, "Where the thread's time goes").
 */
export interface BusPort {
  postMessage(message: unknown): void;
  onmessage: ((event: MessageEvent) => void) | null;
  close(): void;
}

/** A delivery as it crosses the port; the receiving side wraps it into a Delivery again. */
export interface WireDelivery {
  subject: string;
  data: unknown;
  deliveryCount: number;
  publishedAt: number;
  token: string;
}

export interface WireError {
  name: string;
  message: string;
  subject?: string;
  /** BusUnavailableError's operation. */
  operation?: string;
  timeoutMs?: number;
  code?: string;
  details?: Record<string, unknown>;
  status?: number;
}

export type SettleHow = "ack" | "nak" | "working" | "term";

/** What the client (the thread running a role) sends to the host (the thread owning the real bus). */
export type ClientMessage =
  | { t: "call"; id: number; method: string; args: unknown[] }
  /** The signal of the call `id` (a fetchJobs) aborted: the host aborts its fetch. */
  | { t: "abort"; call: number }
  | { t: "consume"; id: number; kind: "jobs" | "results"; name: string; opts: object }
  | { t: "serve"; id: number; subject: string; opts: object }
  | { t: "stop"; id: number; handle: number }
  | { t: "close"; id: number }
  | { t: "settle"; call: number; i: number; how: SettleHow; delayMs?: number }
  | { t: "release"; call: number }
  | { t: "handled"; call: number; error?: string }
  | { t: "answer"; call: number; reply: RpcReply<unknown> }
  | { t: "publish-event"; subject: string; event: unknown }
  | { t: "subscribe"; sub: number; subject: string }
  | { t: "unsubscribe"; sub: number };

/** What the host sends back: replies to calls, deliveries for a consumer, events, requests for a server. */
export type HostMessage =
  | { t: "reply"; id: number; ok: true; value: unknown }
  | { t: "reply"; id: number; ok: false; error: WireError }
  | { t: "handle"; call: number; handle: number; deliveries: WireDelivery[] }
  | { t: "event"; sub: number; subject: string; event: unknown }
  | { t: "request"; call: number; handle: number; subject: string; body: unknown };

/** How long a lazy message waits at most for a message that flushes. */
const LAZY_MS = 20;

/**
 * Messages posted in one turn of the event loop cross as one message (flushed by setImmediate, after the turn's I/O
 * callbacks): the per-message cost of the port, chiefly waking the other thread, is paid once per turn, not once per
 * job or result. A lazy message (one nobody waits on to make progress: a job's settlement, the answer to a publish)
 * does not flush by itself: it rides with the next message that does, or crosses after LAZY_MS, so a check costs
 * two wake-ups instead of four. Each message is serialised when pushed, a copy taken then (the sender may change its
 * objects afterwards); the batch crosses as one string, the JSON array of them.
 */
export class Outbox<M> {
  private queue: string[] = [];
  private immediate = false;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly port: BusPort) {}

  /** Throws (TypeError) on what JSON cannot carry (a BigInt, a cycle), as a publish to NATS would. */
  push(message: M, lazy = false): void {
    this.queue.push(JSON.stringify(message));
    if (this.immediate) return;
    if (!lazy) {
      this.immediate = true;
      setImmediate(() => this.flush());
    } else this.timer ??= setTimeout(() => this.flush(), LAZY_MS);
  }

  flush(): void {
    this.immediate = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    this.port.postMessage(batch.length === 1 ? `[${batch[0]}]` : `[${batch.join(",")}]`);
  }
}

/** Calls each handler for every message of every batch the port receives. */
export function listen<M>(port: BusPort, onMessage: (message: M) => void): void {
  port.onmessage = (event) => {
    for (const message of JSON.parse(event.data as string) as M[]) onMessage(message);
  };
}

export function toWireError(err: unknown): WireError {
  const e = (err ?? {}) as Partial<WireError> & { message?: unknown };
  const out: WireError = { name: typeof e.name === "string" ? e.name : "Error", message: typeof e.message === "string" ? e.message : String(err) };
  for (const key of ["subject", "operation", "code", "details"] as const) if (e[key] !== undefined) (out as unknown as Record<string, unknown>)[key] = e[key];
  if (typeof e.timeoutMs === "number") out.timeoutMs = e.timeoutMs;
  if (typeof e.status === "number") out.status = e.status;
  return out;
}

/** The error the host's bus threw, as the same class on this side (callers test with instanceof). */
export function fromWireError(e: WireError): Error {
  if (e.name === "NoResponderError") return new NoResponderError(e.subject ?? "");
  if (e.name === "RequestTimeoutError") return new RequestTimeoutError(e.subject ?? "", e.timeoutMs ?? 0);
  if (e.name === "RemoteError") return new RemoteError(e.message, e.code, e.details, e.status);
  if (e.name === "BusUnavailableError") return new BusUnavailableError(e.operation ?? "", { cause: e.message });
  const err = new Error(e.message);
  err.name = e.name;
  return err;
}
