import net from "node:net";
import tls from "node:tls";
import { isIpLiteral, resolveAndCheck, stripBrackets, type GuardOptions } from "../../../core/net-guard/index.ts";
import { ms } from "./timing.ts";

interface TlsOptions {
  /** SNI and the name the certificate must cover. Defaults to the host when it is a name. */
  servername?: string;
  rejectUnauthorized: boolean;
  /** Extra trusted CA certificates (PEM), added to the system roots. */
  extraCa?: string[];
}

export interface OpenConnectionOptions {
  host: string;
  port: number;
  guard: GuardOptions & { signal: AbortSignal };
  tls?: TlsOptions;
}

export interface OpenedConnection {
  socket: net.Socket | tls.TLSSocket;
  address: string;
  family: 4 | 6;
  dns_ms: number;
  connect_ms: number;
  /** null for plain TCP. */
  tls_ms: number | null;
}

const ignore = () => {};

let caCache: { extra: readonly string[]; ca: string[] } | undefined;

function caFor(extra: string[] | undefined): string[] | undefined {
  if (!extra?.length) return undefined;
  if (caCache?.extra !== extra) caCache = { extra, ca: [...tls.rootCertificates, ...extra] };
  return caCache.ca;
}

/**
 * Resolves the host through the net guard, then connects to the checked address (never to a
 * second lookup) and, for TLS, completes the handshake. Times each phase separately.
 */
export async function openConnection(o: OpenConnectionOptions): Promise<OpenedConnection> {
  const t0 = performance.now();
  const { address, family } = await resolveAndCheck(o.host, o.guard);
  const t1 = performance.now();
  o.guard.signal.throwIfAborted();

  const host = stripBrackets(o.host).replace(/\.$/, "");
  const socket = o.tls
    ? tls.connect({
        host: address,
        port: o.port,
        servername: o.tls.servername ?? (isIpLiteral(host) ? undefined : host),
        rejectUnauthorized: o.tls.rejectUnauthorized,
        ca: caFor(o.tls.extraCa),
      })
    : net.connect({ host: address, port: o.port, family });

  let t2 = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      const signal = o.guard.signal;
      const onAbort = () => fail(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
      const fail = (err: Error) => {
        signal.removeEventListener("abort", onAbort);
        socket.destroy();
        const e = err as Error & { address?: string; port?: number };
        if (e.address === undefined) Object.assign(e, { address, port: o.port });
        reject(e);
      };
      socket.once("error", fail);
      socket.once("connect", () => {
        t2 = performance.now();
      });
      socket.once(o.tls ? "secureConnect" : "connect", () => {
        signal.removeEventListener("abort", onAbort);
        socket.off("error", fail);
        // A late error on a socket nobody listens to would crash the process.
        socket.on("error", ignore);
        resolve();
      });
      signal.addEventListener("abort", onAbort, { once: true });
    });
  } catch (err) {
    socket.destroy();
    throw err;
  }
  const t3 = performance.now();
  if (t2 === 0) t2 = t3;
  return {
    socket,
    address,
    family,
    dns_ms: ms(t1 - t0),
    connect_ms: ms(t2 - t1),
    tls_ms: o.tls ? ms(t3 - t2) : null,
  };
}
