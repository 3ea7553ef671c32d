import type { Socket } from "node:net";
import { Client, type Dispatcher } from "undici/index.js";

export interface Exchange {
  /** The URL's origin: undici's Host header and the Client's key. */
  origin: string;
  path: string;
  method: Dispatcher.HttpMethod;
  headers: Record<string, string>;
  body?: string;
  /** Keep the body bytes (up to bodyLimit); otherwise only count them. */
  keepBody: boolean;
  bodyLimit: number;
  signal: AbortSignal;
  /** Called as the response headers arrive, so a later timeout still reports them. */
  onHeaders(statusCode: number, ttfbMs: number): void;
}

export interface Exchanged {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer | null;
  bodyBytes: number;
}

const ignore = () => {};

/**
 * One request on one connection that was already opened (and guarded and timed): undici's Client
 * parses and writes HTTP on exactly that socket, driven through its handler interface (no response
 * stream to iterate). The connection is closed as soon as the answer is read or given up; closing it
 * before undici does spares the error undici would destroy it with (and that error's stack).
 */
export function exchangeOnSocket(socket: Socket, x: Exchange): Promise<Exchanged> {
  let handedOver = false;
  const client = new Client(x.origin, {
    connect: (_opts, callback) => {
      if (handedOver) return callback(new Error("the checked connection was closed"), null);
      handedOver = true;
      // undici expects the callback after connect() has returned, as with a real connector.
      queueMicrotask(() => callback(null, socket));
    },
    pipelining: 1,
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  return new Promise<Exchanged>((resolve, reject) => {
    const handler = new ExchangeHandler(socket, client, x, resolve, reject);
    if (x.signal.aborted) return handler.handleEvent();
    // The signal is this check's own and is dropped with it, so the listener is never removed.
    x.signal.addEventListener("abort", handler, { once: true });
    // reset: the request says `connection: close`; the socket is never used for a second request.
    client.dispatch({ path: x.path, method: x.method, headers: x.headers, body: x.body, reset: true }, handler);
  });
}

/** The dispatch handler of one exchange, also its abort listener: one object per request, no closures. */
class ExchangeHandler implements Dispatcher.DispatchHandler {
  private statusCode = 0;
  private headers: Exchanged["headers"] = {};
  private readonly chunks: Buffer[] = [];
  private bytes = 0;
  private settled = false;
  private readonly sent = performance.now();

  constructor(
    private readonly socket: Socket,
    private readonly client: Client,
    private readonly x: Exchange,
    private readonly resolve: (value: Exchanged) => void,
    private readonly reject: (err: Error) => void,
  ) {}

  onRequestStart(): void {}

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Exchanged["headers"]): void {
    this.x.onHeaders(statusCode, performance.now() - this.sent);
    this.statusCode = statusCode;
    this.headers = headers;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    const take = Math.min(chunk.length, this.x.bodyLimit - this.bytes);
    if (this.x.keepBody) this.chunks.push(take === chunk.length ? chunk : chunk.subarray(0, take));
    this.bytes += take;
    if (this.bytes >= this.x.bodyLimit) this.finish(null);
  }

  onResponseEnd(): void {
    this.finish(null);
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    this.finish(err);
  }

  /** The check's signal fired (its deadline or its caller). */
  handleEvent(): void {
    const reason: unknown = this.x.signal.reason;
    this.finish(reason instanceof Error ? reason : new Error("aborted"));
  }

  private finish(err: Error | null): void {
    if (this.settled) return;
    this.settled = true;
    this.socket.destroy();
    if (err) {
      this.client.destroy(err).catch(ignore);
      this.reject(err);
    } else {
      const body = this.x.keepBody ? Buffer.concat(this.chunks, this.bytes) : null;
      this.resolve({ statusCode: this.statusCode, headers: this.headers, body, bodyBytes: this.bytes });
    }
  }
}
