import { NoResponderError, RemoteError, RequestTimeoutError, type RpcReply } from "./types.ts";

/**
 * One end of a channel between two threads: a MessagePort (MessageChannel, or one handed to a Worker). Messages are
 * structured clones, so jobs and results cross without a JSON round trip.
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
  timeoutMs?: number;
  code?: string;
  details?: Record<string, unknown>;
  status?: number;
}

export type SettleHow = "ack" | "nak" | "working" | "term";

/** What the client (the thread running a role) sends to the host (the thread owning the real bus). */
export type ClientMessage =
  | { t: "call"; id: number; method: string; args: unknown[] }
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

/**
 * Messages posted in one turn of the event loop cross as one array (flushed by setImmediate, after the turn's I/O
 * callbacks): at a thousand checks a second the per-message cost of the port (a structured clone and a wake-up of
 * the other thread) is paid once per turn, not once per job or result.
 */
export class Outbox<M> {
  private queue: M[] = [];
  private scheduled = false;

  constructor(private readonly port: BusPort) {}

  push(message: M): void {
    this.queue.push(message);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  flush(): void {
    this.scheduled = false;
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    this.port.postMessage(batch);
  }
}

/** Calls each handler for every message of every batch the port receives. */
export function listen<M>(port: BusPort, onMessage: (message: M) => void): void {
  port.onmessage = (event) => {
    for (const message of event.data as M[]) onMessage(message);
  };
}

export function toWireError(err: unknown): WireError {
  const e = (err ?? {}) as Partial<WireError> & { message?: unknown };
  const out: WireError = { name: typeof e.name === "string" ? e.name : "Error", message: typeof e.message === "string" ? e.message : String(err) };
  for (const key of ["subject", "code", "details"] as const) if (e[key] !== undefined) (out as unknown as Record<string, unknown>)[key] = e[key];
  if (typeof e.timeoutMs === "number") out.timeoutMs = e.timeoutMs;
  if (typeof e.status === "number") out.status = e.status;
  return out;
}

/** The error the host's bus threw, as the same class on this side (callers test with instanceof). */
export function fromWireError(e: WireError): Error {
  if (e.name === "NoResponderError") return new NoResponderError(e.subject ?? "");
  if (e.name === "RequestTimeoutError") return new RequestTimeoutError(e.subject ?? "", e.timeoutMs ?? 0);
  if (e.name === "RemoteError") return new RemoteError(e.message, e.code, e.details, e.status);
  const err = new Error(e.message);
  err.name = e.name;
  return err;
}
