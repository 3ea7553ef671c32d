import net from "node:net";
import { dlopen, FFIType, ptr } from "bun:ffi";

export interface Stoppable {
  port: number;
  stop(): Promise<void>;
}

/** A TCP server that accepts connections and never answers: the target of timeout and abort cases. */
export function startSilentServer(): Promise<Stoppable> {
  return startTcpServer(() => {});
}

/** A TCP server that hands each accepted connection to `onConnection` (close it, reset it, answer part of a request...). */
export async function startTcpServer(onConnection: (socket: net.Socket) => void): Promise<Stoppable> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => sockets.delete(socket));
    onConnection(socket);
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

/**
 * A loopback port whose TCP connects never complete: a listening socket with a backlog of 0 that
 * never accepts, its one queue slot taken by a first connection, so the kernel drops later SYNs.
 * Made with libc through bun:ffi (Node's servers always accept); Linux only.
 */
export async function startUnacceptingListener(): Promise<{ port: number; stop(): void }> {
  const libc = dlopen("libc.so.6", {
    socket: { args: [FFIType.i32, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    bind: { args: [FFIType.i32, FFIType.ptr, FFIType.u32], returns: FFIType.i32 },
    listen: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    getsockname: { args: [FFIType.i32, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
    close: { args: [FFIType.i32], returns: FFIType.i32 },
  });
  const AF_INET = 2;
  const SOCK_STREAM = 1;
  const fd = libc.symbols.socket(AF_INET, SOCK_STREAM, 0);
  // struct sockaddr_in for 127.0.0.1, port 0 (any free one).
  const address = new Uint8Array(16);
  address.set([AF_INET, 0, 0, 0, 127, 0, 0, 1]);
  const length = new Uint32Array([16]);
  if (fd < 0 || libc.symbols.bind(fd, ptr(address), 16) !== 0 || libc.symbols.listen(fd, 0) !== 0 || libc.symbols.getsockname(fd, ptr(address), ptr(length)) !== 0) {
    if (fd >= 0) libc.symbols.close(fd);
    libc.close();
    throw new Error("could not open an unaccepting listener");
  }
  const port = (address[2]! << 8) | address[3]!;
  const filler = net.connect({ host: "127.0.0.1", port });
  filler.on("error", () => {});
  await new Promise((resolve) => filler.once("connect", resolve));
  return {
    port,
    stop() {
      filler.destroy();
      libc.symbols.close(fd);
      libc.close();
    },
  };
}
