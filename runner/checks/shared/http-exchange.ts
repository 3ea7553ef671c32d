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
    let statusCode = 0;
    let headers: Exchanged["headers"] = {};
    const chunks: Buffer[] = [];
    let bytes = 0;
    let settled = false;

    const finish = (err: Error | null) => {
      if (settled) return;
      settled = true;
      x.signal.removeEventListener("abort", onAbort);
      socket.destroy();
      if (err) {
        client.destroy(err).catch(ignore);
        reject(err);
      } else {
        resolve({ statusCode, headers, body: x.keepBody ? Buffer.concat(chunks, bytes) : null, bodyBytes: bytes });
      }
    };
    const onAbort = () => finish(x.signal.reason instanceof Error ? x.signal.reason : new Error("aborted"));
    if (x.signal.aborted) return onAbort();
    x.signal.addEventListener("abort", onAbort, { once: true });

    const sent = performance.now();
    // reset: the request says `connection: close`; the socket is never used for a second request.
    client.dispatch(
      { path: x.path, method: x.method, headers: x.headers, body: x.body, reset: true },
      {
        onRequestStart: ignore,
        onResponseStart(_controller, status, responseHeaders) {
          x.onHeaders(status, performance.now() - sent);
          statusCode = status;
          headers = responseHeaders;
        },
        onResponseData(_controller, chunk) {
          const take = Math.min(chunk.length, x.bodyLimit - bytes);
          if (x.keepBody) chunks.push(take === chunk.length ? chunk : chunk.subarray(0, take));
          bytes += take;
          if (bytes >= x.bodyLimit) finish(null);
        },
        onResponseEnd: () => finish(null),
        onResponseError: (_controller, err) => finish(err),
      },
    );
  });
}
