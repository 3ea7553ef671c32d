import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { TCPSocketListener } from "bun";
import type { CheckContext } from "../types.ts";
import { httpCheck } from "./http.ts";

/**
 * A raw TCP server speaking just enough HTTP/1.1 that counts what a check does on the wire: every
 * accepted connection, the requests each one carried and every close. It answers keep-alive, so a
 * client that pooled connections would be seen reusing one.
 */
interface Wire {
  port: number;
  /** Requests seen on each accepted connection, in the order the connections were opened. */
  requestsPerConnection: number[];
  /** The Host header of every request, in arrival order. */
  hosts: string[];
  closed: number;
  listener: TCPSocketListener<{ index: number; pending: string }>;
}

function startCountingServer(): Wire {
  const wire: Wire = { port: 0, requestsPerConnection: [], hosts: [], closed: 0, listener: undefined as never };
  wire.listener = Bun.listen<{ index: number; pending: string }>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(socket) {
        socket.data = { index: wire.requestsPerConnection.length, pending: "" };
        wire.requestsPerConnection.push(0);
      },
      data(socket, chunk) {
        socket.data.pending += chunk.toString("latin1");
        for (let end = socket.data.pending.indexOf("\r\n\r\n"); end !== -1; end = socket.data.pending.indexOf("\r\n\r\n")) {
          const head = socket.data.pending.slice(0, end);
          socket.data.pending = socket.data.pending.slice(end + 4);
          wire.requestsPerConnection[socket.data.index]++;
          wire.hosts.push(/\r\nhost: ([^\r]*)/i.exec(head)?.[1] ?? "");
          const path = head.split(" ")[1];
          if (path === "/never") continue;
          socket.write(
            path === "/hop"
              ? "HTTP/1.1 302 Found\r\nlocation: /\r\ncontent-length: 0\r\nconnection: keep-alive\r\n\r\n"
              : "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 2\r\nconnection: keep-alive\r\n\r\nok",
          );
        }
      },
      close() {
        wire.closed++;
      },
    },
  });
  wire.port = wire.listener.port;
  return wire;
}

let wire: Wire;
beforeAll(() => {
  wire = startCountingServer();
});
afterAll(() => wire.listener.stop(true));

const ctx = (): CheckContext => ({ timeoutMs: 5000, guard: { allowPrivate: true, ipv6: false } });

/** Waits (generously, the machine may be loaded) until every accepted connection has been closed. */
async function allClosed(): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (wire.closed < wire.requestsPerConnection.length && Date.now() < deadline) await Bun.sleep(20);
}

describe("http check connections", () => {
  it("opens exactly one new TCP connection per check, carries one request on it and closes it", async () => {
    const opened = wire.requestsPerConnection.length;
    const closed = wire.closed;
    const url = `http://127.0.0.1:${wire.port}/`;
    for (let i = 0; i < 5; i++) expect((await httpCheck.run({ url }, ctx())).status).toBe("up");
    const concurrent = await Promise.all(Array.from({ length: 20 }, () => httpCheck.run({ url }, ctx())));
    expect(concurrent.map((r) => r.status)).toEqual(Array(20).fill("up"));

    expect(wire.requestsPerConnection.slice(opened)).toEqual(Array(25).fill(1));
    await allClosed();
    expect(wire.closed - closed).toBe(25);
  });

  it("opens a new connection for every redirect hop", async () => {
    const opened = wire.requestsPerConnection.length;
    const result = await httpCheck.run({ url: `http://127.0.0.1:${wire.port}/hop` }, ctx());
    expect(result.status).toBe("up");
    expect(result.data).toMatchObject({ redirects: 1, status_code: 200 });
    expect(wire.requestsPerConnection.slice(opened)).toEqual([1, 1]);
    await allClosed();
  });

  it("closes the connection of a check that timed out waiting for the answer", async () => {
    const opened = wire.requestsPerConnection.length;
    const closed = wire.closed;
    const result = await httpCheck.run({ url: `http://127.0.0.1:${wire.port}/never` }, { ...ctx(), timeoutMs: 300 });
    expect(result.status).toBe("timeout");
    expect(wire.requestsPerConnection.slice(opened)).toEqual([1]);
    await allClosed();
    expect(wire.closed - closed).toBe(1);
  });

  it("sends each check's own Host header, also after a check that timed out and when one sets its own", async () => {
    const seen = wire.hosts.length;
    const base = `http://127.0.0.1:${wire.port}`;
    const localhost: CheckContext["guard"]["resolver"] = async () => [{ address: "127.0.0.1", family: 4 }];
    const named = (): CheckContext => ({ ...ctx(), guard: { allowPrivate: true, ipv6: false, resolver: localhost } });
    expect((await httpCheck.run({ url: `${base}/` }, ctx())).status).toBe("up");
    expect((await httpCheck.run({ url: `http://watched.test:${wire.port}/` }, named())).status).toBe("up");
    expect((await httpCheck.run({ url: `${base}/never` }, { ...ctx(), timeoutMs: 200 })).status).toBe("timeout");
    expect((await httpCheck.run({ url: `${base}/`, headers: { Host: "virtual.test" } }, ctx())).status).toBe("up");
    expect((await httpCheck.run({ url: `http://other.test:${wire.port}/` }, named())).status).toBe("up");
    expect(wire.hosts.slice(seen)).toEqual([
      `127.0.0.1:${wire.port}`,
      `watched.test:${wire.port}`,
      `127.0.0.1:${wire.port}`,
      "virtual.test",
      `other.test:${wire.port}`,
    ]);
    await allClosed();
  });

  it("sends connection: close, so a target never holds the connection open for another request", async () => {
    const heads: string[] = [];
    const server = Bun.listen({
      hostname: "127.0.0.1",
      port: 0,
      socket: {
        data(socket, chunk) {
          heads.push(chunk.toString("latin1").toLowerCase());
          socket.end("HTTP/1.1 204 No Content\r\n\r\n");
        },
      },
    });
    try {
      expect((await httpCheck.run({ url: `http://127.0.0.1:${server.port}/` }, ctx())).status).toBe("up");
      expect(heads[0]).toContain("\r\nconnection: close\r\n");
    } finally {
      server.stop(true);
    }
  });
});
