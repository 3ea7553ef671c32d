import net from "node:net";
import tls from "node:tls";
import { isIpLiteral, resolveAndCheck, stripBrackets, type GuardOptions } from "../../../core/net-guard/index.ts";
import type { CheckDataValue } from "../types.ts";
import { describeStepFailure, hostPort, isConnectionFailure, ServerClosedError } from "./describe-error.ts";
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
  /**
   * A check's data: `ip`, `dns_ms`, `connect_ms` and `tls_ms` are written as each phase ends (times
   * added to a number already there: redirect hops), so a failure or timeout later keeps them.
   * Only the fields the data has (its documented ones are all present, as null) are written.
   */
  measurements?: Partial<Record<string, CheckDataValue>>;
  /** A probe's context: each phase names what it waits for, so a timeout says which (`no TCP connection to … within N ms`). */
  progress?: { waitingFor?: string };
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

let caCache: { extra: readonly string[]; ca: string[] } | undefined;

function caFor(extra: string[] | undefined): string[] | undefined {
  if (!extra?.length) return undefined;
  if (caCache?.extra !== extra) caCache = { extra, ca: [...tls.rootCertificates, ...extra] };
  return caCache.ca;
}

const ignore = () => {};

/** The SNI name for a host: none for an IP literal. */
function serverName(host: string): string | undefined {
  const name = stripBrackets(host).replace(/\.$/, "");
  return isIpLiteral(name) ? undefined : name;
}

/**
 * Resolves the host through the net guard, then connects to the checked address (never to a
 * second lookup) and, for TLS, completes the handshake. Times each phase separately.
 */
export async function openConnection(o: OpenConnectionOptions): Promise<OpenedConnection> {
  const name = serverName(o.host);
  if (o.progress && name !== undefined) o.progress.waitingFor = `DNS answer for ${name}`;
  const t0 = performance.now();
  const { address, family } = await resolveAndCheck(o.host, o.guard);
  const t1 = performance.now();
  // An IP literal is not looked up: what the guard spends judging it is not DNS time.
  const dns_ms = name === undefined ? 0 : ms(t1 - t0);
  const m = o.measurements;
  if (m) {
    record(m, "ip", address);
    record(m, "dns_ms", dns_ms);
  }
  o.guard.signal.throwIfAborted();
  if (o.progress) o.progress.waitingFor = `TCP connection to ${hostPort(address, o.port)}`;

  const socket = o.tls
    ? tls.connect({
        host: address,
        port: o.port,
        servername: o.tls.servername ?? name,
        rejectUnauthorized: o.tls.rejectUnauthorized,
        ca: caFor(o.tls.extraCa),
      })
    : net.connect({ host: address, port: o.port, family });

  const waiter = new ConnectWaiter(socket, o.guard.signal, address, o.port, o.tls !== undefined, t1, m, o.progress);
  try {
    await waiter.promise;
  } catch (err) {
    socket.destroy();
    throw err;
  }
  const t3 = performance.now();
  const t2 = waiter.connectedAt === 0 ? t3 : waiter.connectedAt;
  const tls_ms = o.tls ? ms(t3 - t2) : null;
  if (m && tls_ms !== null) record(m, "tls_ms", tls_ms);
  return { socket, address, family, dns_ms, connect_ms: ms(t2 - t1), tls_ms };
}

/** Sets a measurement the data documents; a time adds to the one already there. */
function record(m: Partial<Record<string, CheckDataValue>>, field: "ip" | "dns_ms" | "connect_ms" | "tls_ms", value: string | number): void {
  if (!(field in m)) return;
  const previous = m[field];
  m[field] = typeof value === "number" && typeof previous === "number" ? ms(previous + value) : value;
}

/**
 * Waits for a socket's connect (and TLS handshake): one object is the socket's listeners and the
 * signal's, no once-wrappers per connection. Once connected, only a listener that ignores late
 * errors stays (a late error on a socket nobody listens to would crash the process).
 */
class ConnectWaiter {
  connectedAt = 0;
  readonly promise: Promise<void>;
  private settled = false;
  private resolve!: () => void;
  private reject!: (err: Error) => void;

  constructor(
    private readonly socket: net.Socket,
    private readonly signal: AbortSignal,
    private readonly address: string,
    private readonly port: number,
    private readonly secure: boolean,
    private readonly startedAt: number,
    private readonly measurements: Partial<Record<string, CheckDataValue>> | undefined,
    private readonly progress: { waitingFor?: string } | undefined,
  ) {
    this.promise = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    socket.on("error", this.onError);
    socket.on("connect", this.onConnect);
    if (secure) socket.on("secureConnect", this.onSecureConnect);
    signal.addEventListener("abort", this, { once: true });
  }

  private readonly onConnect = (): void => {
    this.connectedAt = performance.now();
    if (this.measurements) record(this.measurements, "connect_ms", ms(this.connectedAt - this.startedAt));
    if (!this.secure) return this.done(null);
    if (this.progress) this.progress.waitingFor = `TLS handshake with ${hostPort(this.address, this.port)}`;
    // A FIN during the handshake comes before the socket's error, which calls it a reset.
    this.socket.once("end", this.onEnd);
  };

  private readonly onSecureConnect = (): void => this.done(null);

  private readonly onEnd = (): void => this.done(new ServerClosedError());

  private readonly onError = (err: Error): void => this.done(err);

  /** The check's signal fired (its deadline or its caller). */
  handleEvent(): void {
    const reason: unknown = this.signal.reason;
    this.done(reason instanceof Error ? reason : new Error("aborted"));
  }

  private done(err: Error | null): void {
    if (this.settled) return;
    this.settled = true;
    this.signal.removeEventListener("abort", this);
    if (!err) {
      // Nothing of the wait stays referenced by the open socket but a listener that ignores late errors.
      this.socket.off("error", this.onError).off("connect", this.onConnect).off("end", this.onEnd).on("error", ignore);
      if (this.secure) this.socket.off("secureConnect", this.onSecureConnect);
      return this.resolve();
    }
    this.socket.destroy();
    // Connected but closed or reset before the handshake completed: name the step (a refusal needs no step).
    if (this.connectedAt > 0 && !this.signal.aborted && isConnectionFailure(err)) {
      return this.reject(new Error(describeStepFailure(err, "TLS handshake", { address: this.address, port: this.port })));
    }
    const e = err as Error & { address?: string; port?: number };
    if (e.address === undefined) Object.assign(e, { address: this.address, port: this.port });
    this.reject(e);
  }
}
