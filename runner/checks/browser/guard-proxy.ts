import net from "node:net";
import { isIpLiteral, type ResolvedAddress, TargetRefusedError } from "../../../core/net-guard/index.ts";
import { describeError } from "../shared/describe-error.ts";
import { isTlsHandshake, relayTls } from "./tls-relay.ts";

/** A request the guard stopped or could not forward, as the check reports it. */
export interface ProxyIncident {
  /** `http://host:port/path` for plain HTTP, `host:port` for a tunnel (HTTPS, WebSocket). */
  target: string;
  host: string;
  kind: "refused" | "unreachable";
  message: string;
}

export interface GuardProxy {
  /** `http://127.0.0.1:<port>`, for the browser context's `proxy.server`. */
  readonly url: string;
  close(): void;
}

export interface GuardProxyOptions {
  /** resolveAndCheck for one host (cached per check); throws TargetRefusedError for a refused address. */
  judge(host: string): Promise<ResolvedAddress>;
  /** Where refusals and unreachable targets are recorded. */
  incidents: ProxyIncident[];
  /**
   * Set: TLS in a tunnel is verified here (the runtime's roots with NODE_EXTRA_CA_CERTS, plus
   * `extraCa`) and relayed to a browser that trusts the proxy's own certificate (tls-relay.ts).
   * Unset: tunnels are blind and the browser verifies the target itself.
   */
  relayTls?: { extraCa?: readonly string[] };
}

/** Header the proxy puts on answers it made itself, so a check never mistakes them for the target's. */
export const PROXY_MARK_HEADER = "x-watchpost-guard";
const MAX_HEAD_BYTES = 64 * 1024;

function splitHostPort(authority: string, defaultPort: number): { host: string; port: number } | null {
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d{1,5}))?$/.exec(authority);
  if (!m) return null;
  const port = m[2] ? Number(m[2]) : defaultPort;
  if (!(port > 0 && port < 65536)) return null;
  return { host: m[1]!.replace(/^\[|\]$/g, ""), port };
}

function answer(socket: net.Socket, status: string, mark: string, body = ""): void {
  socket.end(
    `HTTP/1.1 ${status}\r\n${PROXY_MARK_HEADER}: ${mark}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** Makes the response head say `connection: close`, so the browser sends its next request on a new connection. */
function closingHead(head: string): string {
  const lines = head.split("\r\n").filter((l) => !/^(connection|keep-alive|proxy-connection):/i.test(l));
  return [lines[0], ...lines.slice(1), "connection: close"].join("\r\n");
}

/**
 * The private-address guard for a browser: the context sends EVERY request through this proxy
 * (documents, subresources, redirect hops, WebSockets, workers), and the proxy resolves each
 * host with `resolveAndCheck` and connects to the address it judged, so neither a redirect nor
 * a DNS answer that changes between check and connect (rebinding) reaches a refused address.
 * `judge` is resolveAndCheck; the proxy connects to exactly the address it returned.
 */
export async function startGuardProxy({ judge, incidents, relayTls: relay }: GuardProxyOptions): Promise<GuardProxy> {
  const sockets = new Set<net.Socket>();
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
    s.on("error", () => s.destroy());
    return s;
  };

  const open = async (host: string, port: number, target: string, client: net.Socket): Promise<net.Socket | null> => {
    let address: string;
    try {
      address = (await judge(host)).address;
    } catch (err) {
      const refused = err instanceof TargetRefusedError;
      incidents.push({ target, host, kind: refused ? "refused" : "unreachable", message: describeError(err) });
      answer(client, refused ? "403 Forbidden" : "502 Bad Gateway", refused ? "refused" : "unreachable", describeError(err));
      return null;
    }
    return new Promise((resolve) => {
      const upstream = track(net.connect({ host: address, port }));
      upstream.once("connect", () => resolve(upstream));
      upstream.once("error", (err) => {
        incidents.push({ target, host, kind: "unreachable", message: describeError(err) });
        if (!client.destroyed) answer(client, "502 Bad Gateway", "unreachable", describeError(err));
        resolve(null);
      });
    });
  };

  const onRequest = async (client: net.Socket, head: string, rest: Buffer) => {
    const [line = "", ...headers] = head.split("\r\n");
    const [method, target, version] = line.split(" ");
    if (!method || !target || !version?.startsWith("HTTP/")) return answer(client, "400 Bad Request", "bad-request");
    if (method === "CONNECT") {
      const hp = splitHostPort(target, 443);
      if (!hp) return answer(client, "400 Bad Request", "bad-request");
      const upstream = await open(hp.host, hp.port, target, client);
      if (!upstream || client.destroyed) return void upstream?.destroy();
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      const tunnel = (first: Buffer) => {
        if (relay && isTlsHandshake(first)) {
          client.pause();
          client.unshift(first);
          const servername = isIpLiteral(hp.host) ? undefined : hp.host;
          relayTls(client, upstream, servername, relay.extraCa).catch((err: unknown) => {
            incidents.push({ target, host: hp.host, kind: "unreachable", message: describeError(err) });
            client.destroy();
            upstream.destroy();
          });
          return;
        }
        if (first.length > 0) upstream.write(first);
        upstream.pipe(client);
        client.pipe(upstream);
      };
      // A relay must see the first bytes: a ClientHello is relayed, anything else (ws:// through a tunnel) is piped.
      if (relay && rest.length === 0) {
        client.once("data", tunnel);
        client.once("close", () => upstream.destroy());
      } else tunnel(rest);
      return;
    }
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return answer(client, "400 Bad Request", "bad-request");
    }
    if (url.protocol !== "http:") return answer(client, "400 Bad Request", "bad-request");
    const upstream = await open(url.hostname.replace(/^\[|\]$/g, ""), Number(url.port || 80), `${url.origin}${url.pathname}`, client);
    if (!upstream || client.destroyed) return void upstream?.destroy();
    // One request per connection: the next request may be for another host and must be judged again.
    const kept = headers.filter((h) => h !== "" && !/^(proxy-connection|proxy-authorization|connection|keep-alive):/i.test(h));
    upstream.write(`${method} ${url.pathname}${url.search} ${version}\r\n${[...kept, "connection: close"].join("\r\n")}\r\n\r\n`);
    if (rest.length > 0) upstream.write(rest);
    client.pipe(upstream);
    let pending: Buffer | null = Buffer.alloc(0);
    upstream.on("data", (chunk: Buffer) => {
      if (pending === null) return void client.write(chunk);
      pending = Buffer.concat([pending, chunk]);
      const end = pending.indexOf("\r\n\r\n");
      if (end < 0 && pending.length < MAX_HEAD_BYTES) return;
      const cut = end < 0 ? pending.length : end;
      client.write(end < 0 ? pending : Buffer.concat([Buffer.from(closingHead(pending.subarray(0, cut).toString("latin1")), "latin1"), pending.subarray(cut)]));
      pending = null;
    });
    upstream.on("end", () => client.end());
    client.on("close", () => upstream.destroy());
  };

  const server = net.createServer((socket) => {
    track(socket);
    let buffered = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf("\r\n\r\n");
      if (end < 0) {
        if (buffered.length > MAX_HEAD_BYTES) {
          socket.off("data", onData);
          answer(socket, "431 Request Header Fields Too Large", "bad-request");
        }
        return;
      }
      socket.off("data", onData);
      socket.pause();
      const head = buffered.subarray(0, end).toString("latin1");
      const rest = buffered.subarray(end + 4);
      void onRequest(socket, head, rest).finally(() => socket.resume());
    };
    socket.on("data", onData);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close() {
      server.close();
      for (const s of sockets) s.destroy();
    },
  };
}
