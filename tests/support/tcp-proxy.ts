import net from "node:net";

export interface TcpProxy {
  /** The loopback port to connect to instead of the target's. */
  port: number;
  /**
   * Drops every connection. `refuse` (the default) then refuses new ones, as a crashed or restarting server; `close`
   * accepts each and closes it without a word, as a TCP load balancer or pooler with no server behind it.
   */
  cut(how?: "refuse" | "close"): Promise<void>;
  restore(): Promise<void>;
  stop(): Promise<void>;
}

/** A loopback TCP proxy to `targetPort` that a test can cut: the database unreachable for one process only. */
export async function startTcpProxy(targetPort: number, host = "127.0.0.1"): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let closing = false;
  const server = net.createServer((client) => {
    if (closing) {
      // Tracked until closed, so stop() cannot wait on a half-closed socket.
      sockets.add(client);
      client.on("error", () => {}).on("close", () => sockets.delete(client));
      return void client.end();
    }
    const upstream = net.connect(targetPort, host);
    sockets.add(client).add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    for (const s of [client, upstream]) s.on("error", end).on("close", end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  const listen = (port: number) => new Promise<void>((resolve) => server.listen(port, host, resolve));
  const dropAll = () => {
    for (const s of sockets) s.destroy();
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
      if (how === "refuse") return close();
      closing = true;
      dropAll();
    },
    restore: async () => {
      closing = false;
      if (!server.listening) await listen(port);
    },
    stop: close,
  };
}
