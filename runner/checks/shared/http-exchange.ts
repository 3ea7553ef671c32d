import type { Socket } from "node:net";
import { Client, type Dispatcher } from "undici/index.js";

export interface Exchange {
  /** The Host header (the URL's host); a `host` in `headers` wins, as with undici's own. */
  host: string;
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

/** Idle Clients kept for reuse; more than this many at once are built and then dropped. */
const MAX_IDLE_CLIENTS = 1024;
const idle: PooledClient[] = [];

/**
 * An undici Client that is handed one pre-opened socket per request. A Client reconnects after
 * its socket closes (its normal life), so after a clean exchange it goes back to the free list
 * once undici has seen the close; a Client whose exchange failed is destroyed, never reused.
 */
class PooledClient {
  /** The guarded socket of the current exchange, until undici takes it. */
  socket: Socket | null = null;
  /** Set when the exchange ended cleanly: the Client may serve another once disconnected. */
  reusable = false;
  readonly client: Client;

  constructor() {
    // The origin is a placeholder: the connector ignores it and every request sets its Host header.
    this.client = new Client("http://check.invalid", {
      connect: (_opts, callback) => {
        const socket = this.socket;
        this.socket = null;
        if (!socket) return callback(new Error("the checked connection was closed"), null);
        // undici expects the callback after connect() has returned, as with a real connector.
        queueMicrotask(() => callback(null, socket));
      },
      pipelining: 1,
      headersTimeout: 0,
      bodyTimeout: 0,
    });
    this.client.on("disconnect", () => {
      if (!this.reusable || this.client.destroyed) return;
      this.reusable = false;
      if (idle.length < MAX_IDLE_CLIENTS) idle.push(this);
    });
  }
}

/**
 * One request on one connection that was already opened (and guarded and timed): an undici Client
 * from the free list parses and writes HTTP on exactly that socket, driven through its handler
 * interface (no response stream to iterate). The connection is closed as soon as the answer is read
 * or given up; closing it before undici does spares the error undici would destroy it with.
 */
export function exchangeOnSocket(socket: Socket, x: Exchange): Promise<Exchanged> {
  const pooled = idle.pop() ?? new PooledClient();
  pooled.socket = socket;
  const headers = x.headers.host === undefined ? { ...x.headers, host: x.host } : x.headers;
  return new Promise<Exchanged>((resolve, reject) => {
    const handler = new ExchangeHandler(socket, pooled, x, resolve, reject);
    if (x.signal.aborted) return handler.handleEvent();
    // The signal is this check's own and is dropped with it, so the listener is never removed.
    x.signal.addEventListener("abort", handler, { once: true });
    // reset: the request says `connection: close`; the socket is never used for a second request.
    pooled.client.dispatch({ path: x.path, method: x.method, headers, body: x.body, reset: true }, handler);
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
    private readonly pooled: PooledClient,
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
    if (this.bytes >= this.x.bodyLimit) this.finish(null, false);
  }

  onResponseEnd(): void {
    this.finish(null, true);
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    this.finish(err, false);
  }

  /** The check's signal fired (its deadline or its caller). */
  handleEvent(): void {
    const reason: unknown = this.x.signal.reason;
    this.finish(reason instanceof Error ? reason : new Error("aborted"), false);
  }

  /** `complete`: undici read the whole response, so its Client is in a clean state to reuse. */
  private finish(err: Error | null, complete: boolean): void {
    if (this.settled) return;
    this.settled = true;
    this.pooled.reusable = complete;
    this.socket.destroy();
    if (err) {
      this.pooled.client.destroy(err).catch(ignore);
      this.reject(err);
    } else {
      const body = this.x.keepBody ? Buffer.concat(this.chunks, this.bytes) : null;
      this.resolve({ statusCode: this.statusCode, headers: this.headers, body, bodyBytes: this.bytes });
    }
  }
}
