import net from "node:net";

/**
 * How a cut looks to the client:
 * - `refuse`: every connection dropped and new ones refused, as a crashed or restarting server;
 * - `close`: every connection dropped and each new one accepted and closed without a word, as a TCP load balancer or
 *   pooler with no server behind it;
 * - `blackhole`: nothing passes either way and nothing is closed, as a network that drops every packet: a query
 *   already sent waits, a new connection never gets an answer; `restore()` lets the held bytes through, as TCP's
 *   retransmissions would;
 * - `forget`: the open connections' bytes vanish for good and new connections pass, as a firewall or NAT that
 *   dropped its state for the old flows.
 */
export type Cut = "refuse" | "close" | "blackhole" | "forget";

export interface TcpProxy {
  /** The loopback port to connect to instead of the target's. */
  port: number;
  cut(how?: Cut): Promise<void>;
  restore(): Promise<void>;
  stop(): Promise<void>;
  /** With `keepUpstream`: how many upstream connections answered something after their client left. */
  orphansAnswered(): number;
}

interface Pair {
  client: net.Socket;
  upstream: net.Socket | null;
  /** Forgotten: its bytes never pass again. */
  dead: boolean;
}

/**
 * A loopback TCP proxy to `targetPort` that a test can cut: the database unreachable for one process only.
 * `keepUpstream`: a client that goes leaves its upstream connection open (what the upstream sends is dropped), as a
 * reverse proxy that does not pass a client's disconnect on: the server never learns its caller left.
 */
export async function startTcpProxy(targetPort: number, host = "127.0.0.1", opts: { keepUpstream?: boolean } = {}): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  let orphansAnswered = 0;
  let mode: Cut | null = null;
  const drop = (pair: Pair) => {
    pair.client.destroy();
    pair.upstream?.destroy();
    pairs.delete(pair);
  };
  // Paused sockets keep what arrives in the kernel's buffers; piped again, it passes in order.
  const hold = (pair: Pair) => {
    pair.client.unpipe();
    pair.upstream?.unpipe();
    pair.client.pause();
    pair.upstream?.pause();
  };
  const pass = (pair: Pair) => {
    if (pair.dead) return;
    if (!pair.upstream) {
      const upstream = net.connect(targetPort, host);
      pair.upstream = upstream;
      upstream.on("error", () => drop(pair)).on("close", () => drop(pair));
    }
    // Kept upstream: the client's end is not passed on either.
    pair.client.pipe(pair.upstream, { end: !opts.keepUpstream });
    pair.upstream.pipe(pair.client);
    pair.client.resume();
    pair.upstream.resume();
  };
  const server = net.createServer((client) => {
    const pair: Pair = { client, upstream: null, dead: false };
    pairs.add(pair);
    const left = () => {
      if (!opts.keepUpstream || !pair.upstream) return drop(pair);
      if (pair.dead) return;
      pair.upstream.unpipe();
      pair.upstream.once("data", () => orphansAnswered++).resume();
      pair.dead = true;
    };
    client.on("error", left).on("close", left);
    if (mode === "close") return void client.end();
    if (mode === "blackhole") return hold(pair);
    pass(pair);
  });
  const listen = (port: number) => new Promise<void>((resolve) => server.listen(port, host, resolve));
  const dropAll = () => {
    for (const pair of pairs) drop(pair);
  };
  // A closed listener refuses connections (ECONNREFUSED) as a stopped server does.
  const close = () =>
    new Promise<void>((resolve) => {
      dropAll();
      if (server.listening) server.close(() => resolve());
      else resolve();
    });
  await listen(0);
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    cut: async (how = "refuse") => {
      mode = how;
      if (how === "refuse") return close();
      for (const pair of pairs) {
        if (how === "close") drop(pair);
        else {
          hold(pair);
          pair.dead ||= how === "forget";
        }
      }
    },
    restore: async () => {
      mode = null;
      for (const pair of pairs) pass(pair);
      if (!server.listening) await listen(port);
    },
    stop: close,
    orphansAnswered: () => orphansAnswered,
  };
}
