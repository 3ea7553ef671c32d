import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type net from "node:net";
import type { HostResolver } from "../../../core/net-guard/index.ts";
import { startSilentServer, startTcpServer, startUnacceptingListener, type Stoppable } from "../test-support/loopback-servers.ts";
import type { CheckContext } from "../types.ts";
import { httpCheck } from "./http.ts";
import { keywordCheck } from "../keyword/keyword.ts";

// Name resolution is the one step loopback cannot make hang, so a test resolver does.
const resolver: HostResolver = async (host) => (host === "hang.test" ? new Promise(() => {}) : [{ address: "127.0.0.1", family: 4 }]);
const ctx = (timeoutMs = 5000): CheckContext => ({ timeoutMs, guard: { allowPrivate: true, ipv6: false, resolver } });

const HEADERS_THEN_PART_OF_BODY = "HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nabc";
/** Runs `then` on the socket once the request has arrived. */
const afterRequest = (then: (socket: net.Socket) => void) => (socket: net.Socket) => void socket.once("data", () => then(socket));

let unaccepting: { port: number; stop(): void };
let silent: Stoppable;
const servers: Stoppable[] = [];
const server = async (onConnection: (socket: net.Socket) => void) => {
  const s = await startTcpServer(onConnection);
  servers.push(s);
  return s;
};

beforeAll(async () => {
  unaccepting = await startUnacceptingListener();
  silent = await startSilentServer();
});

afterAll(async () => {
  unaccepting.stop();
  await Promise.all([silent.stop(), ...servers.map((s) => s.stop())]);
});

describe("http check: what a timeout says", () => {
  it("names the host it timed out resolving", async () => {
    const result = await httpCheck.run({ url: "http://hang.test/" }, ctx(300));
    expect(result.status).toBe("timeout");
    expect(result.error).toBe("no DNS answer for hang.test within 300 ms");
    expect(result.data).toMatchObject({ ip: null, dns_ms: null, connect_ms: null });
  });

  it("names the address it timed out connecting to, keeping the address and DNS time", async () => {
    const result = await httpCheck.run({ url: `http://127.0.0.1:${unaccepting.port}/` }, ctx(300));
    expect(result.status).toBe("timeout");
    expect(result.error).toBe(`no TCP connection to 127.0.0.1:${unaccepting.port} within 300 ms`);
    expect(result.data).toMatchObject({ ip: "127.0.0.1", dns_ms: 0, connect_ms: null, tls_ms: null });
  });

  it("names the address whose TLS handshake never completed, keeping the connect time", async () => {
    const result = await httpCheck.run({ url: `https://127.0.0.1:${silent.port}/` }, ctx(300));
    expect(result.status).toBe("timeout");
    expect(result.error).toBe(`no TLS handshake with 127.0.0.1:${silent.port} within 300 ms`);
    expect(result.data).toMatchObject({ ip: "127.0.0.1", tls_ms: null, ttfb_ms: null });
    expect(result.data.connect_ms).toBeGreaterThanOrEqual(0);
  });

  it("says the request was sent and no response came, and from where", async () => {
    const result = await httpCheck.run({ url: `http://127.0.0.1:${silent.port}/`, method: "HEAD" }, ctx(300));
    expect(result.status).toBe("timeout");
    expect(result.error).toBe(`no response to the HEAD request from 127.0.0.1:${silent.port} within 300 ms`);
    expect(result.data).toMatchObject({ ip: "127.0.0.1", status_code: null, ttfb_ms: null });
    expect(result.data.connect_ms).toBeGreaterThanOrEqual(0);
  });

  it("says the body never ended once the headers came, keeping the status and first-byte time", async () => {
    const stalling = await server(afterRequest((socket) => socket.write(HEADERS_THEN_PART_OF_BODY)));
    const result = await keywordCheck.run({ url: `http://127.0.0.1:${stalling.port}/`, keyword: "abc" }, ctx(300));
    expect(result.status).toBe("timeout");
    expect(result.error).toBe(`no end of the response body from 127.0.0.1:${stalling.port} within 300 ms`);
    expect(result.data.status_code).toBe(200);
    expect(result.data.ttfb_ms).toBeGreaterThanOrEqual(0);
  });
});

describe("http check: what a closed or reset connection says", () => {
  it("says the server closed the connection before answering the request, and where", async () => {
    const closing = await server(afterRequest((socket) => socket.end()));
    const result = await httpCheck.run({ url: `http://127.0.0.1:${closing.port}/` }, ctx());
    expect(result.status).toBe("down");
    expect(result.error).toBe(`connection closed by the server (127.0.0.1:${closing.port}) while waiting for the response to the GET request`);
    expect(result.data.connect_ms).toBeGreaterThanOrEqual(0);
  });

  it("says the server reset the connection before answering the request, and where", async () => {
    const resetting = await server(afterRequest((socket) => socket.resetAndDestroy()));
    const result = await httpCheck.run({ url: `http://127.0.0.1:${resetting.port}/`, method: "POST", body: "{}" }, ctx());
    expect(result.status).toBe("down");
    expect(result.error).toBe(`connection reset by the peer (127.0.0.1:${resetting.port}) while waiting for the response to the POST request`);
  });

  it("says the server closed the connection in the middle of the body", async () => {
    const cut = await server(afterRequest((socket) => socket.end(HEADERS_THEN_PART_OF_BODY)));
    const result = await httpCheck.run({ url: `http://127.0.0.1:${cut.port}/` }, ctx());
    expect(result.status).toBe("down");
    expect(result.error).toBe(`connection closed by the server (127.0.0.1:${cut.port}) while waiting for the end of the response body`);
    expect(result.data.status_code).toBe(200);
  });

  it("says the server closed the connection during the TLS handshake of an https URL", async () => {
    const closing = await server(afterRequest((socket) => socket.end()));
    const result = await httpCheck.run({ url: `https://127.0.0.1:${closing.port}/` }, ctx());
    expect(result.status).toBe("down");
    expect(result.error).toBe(`connection closed by the server (127.0.0.1:${closing.port}) while waiting for the TLS handshake`);
    expect(result.data).toMatchObject({ ip: "127.0.0.1", tls_ms: null });
  });
});
