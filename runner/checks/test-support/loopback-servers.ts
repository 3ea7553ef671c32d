import net from "node:net";

export interface Stoppable {
  port: number;
  stop(): Promise<void>;
}

/** A TCP server that accepts connections and never answers: the target of timeout and abort cases. */
export async function startSilentServer(): Promise<Stoppable> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    stop: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A loopback port with nothing listening on it (connections are refused). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A TCP server that answers each connection once with `reply(firstLine)` and closes, like WHOIS. */
export async function startLineServer(reply: (line: string) => string): Promise<Stoppable & { queries: string[] }> {
  const queries: string[] = [];
  const server = net.createServer((socket) => {
    socket.on("error", () => {});
    let buffered = "";
    socket.on("data", (chunk) => {
      buffered += chunk.toString("utf8");
      const end = buffered.indexOf("\r\n");
      if (end === -1) return;
      const line = buffered.slice(0, end);
      queries.push(line);
      socket.end(reply(line));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    queries,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
