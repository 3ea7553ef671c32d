import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import net from "node:net";
import { checkAddress, type ResolvedAddress } from "../../../core/net-guard/index.ts";
import { type GuardProxy, type ProxyIncident, startGuardProxy } from "./guard-proxy.ts";

let target: ReturnType<typeof Bun.serve>;
const seen: { path: string; host: string | null; connection: string | null }[] = [];
beforeAll(() => {
  target = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      seen.push({ path: new URL(req.url).pathname, host: req.headers.get("host"), connection: req.headers.get("connection") });
      return new Response("hello from the target", { headers: { "keep-alive": "timeout=5", connection: "keep-alive" } });
    },
  });
});
afterAll(() => target.stop(true));

/** A proxy whose judge maps *.test names to loopback and refuses 127.0.0.2 the way the guard does. */
async function proxy(relayTls?: { extraCa?: string[] }): Promise<{ p: GuardProxy; incidents: ProxyIncident[]; judged: string[] }> {
  const incidents: ProxyIncident[] = [];
  const judged: string[] = [];
  const judge = async (host: string): Promise<ResolvedAddress> => {
    judged.push(host);
    const address = host.endsWith(".test") ? "127.0.0.1" : host;
    return checkAddress(address, { allowPrivate: address !== "127.0.0.2", ipv6: false }, host);
  };
  return { p: await startGuardProxy({ judge, incidents, relayTls }), incidents, judged };
}

/** Sends raw bytes to the proxy and collects everything until it closes the connection. */
function exchange(p: GuardProxy, requests: string[], gapMs = 100): Promise<string> {
  const { port } = new URL(p.url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), "127.0.0.1");
    let out = "";
    socket.on("data", (d) => (out += d.toString("latin1")));
    socket.on("close", () => resolve(out));
    socket.on("error", () => resolve(out));
    socket.on("connect", async () => {
      for (const r of requests) {
        if (socket.destroyed) break;
        socket.write(r);
        await Bun.sleep(gapMs);
      }
      setTimeout(() => socket.destroy(), 1500);
    });
  });
}

describe("guard proxy", () => {
  it("forwards a plain request to the address the guard judged, one request per connection", async () => {
    const { p, judged } = await proxy();
    seen.length = 0;
    const answer = await exchange(p, [
      `GET http://shop.test:${target.port}/first HTTP/1.1\r\nHost: shop.test:${target.port}\r\nProxy-Connection: keep-alive\r\n\r\n`,
      `GET http://127.0.0.2:${target.port}/second HTTP/1.1\r\nHost: 127.0.0.2:${target.port}\r\n\r\n`,
    ]);
    p.close();
    expect(answer).toStartWith("HTTP/1.1 200");
    expect(answer.toLowerCase()).toContain("connection: close");
    expect(answer.toLowerCase()).not.toContain("keep-alive: timeout");
    expect(answer).toContain("hello from the target");
    // The name never went to the system resolver: the proxy connected to the judged address.
    expect(judged).toEqual(["shop.test"]);
    expect(seen).toEqual([{ path: "/first", host: `shop.test:${target.port}`, connection: "close" }]);
  });

  it("relaying TLS, still pipes a tunnel that does not start with a TLS handshake (ws:// through CONNECT)", async () => {
    const { p, incidents } = await proxy({ extraCa: [] });
    seen.length = 0;
    const answer = await exchange(p, [`CONNECT shop.test:${target.port} HTTP/1.1\r\nHost: shop.test:${target.port}\r\n\r\n`, `GET /tunnelled HTTP/1.1\r\nHost: shop.test:${target.port}\r\n\r\n`]);
    p.close();
    expect(answer).toStartWith("HTTP/1.1 200 Connection Established");
    expect(answer).toContain("hello from the target");
    expect(seen.map((x) => x.path)).toEqual(["/tunnelled"]);
    expect(incidents).toEqual([]);
  });

  it("refuses a tunnel or a request to a refused address without connecting, and records it", async () => {
    const { p, incidents } = await proxy();
    seen.length = 0;
    const tunnel = await exchange(p, [`CONNECT 127.0.0.2:${target.port} HTTP/1.1\r\nHost: 127.0.0.2:${target.port}\r\n\r\n`]);
    const plain = await exchange(p, [`GET http://127.0.0.2:${target.port}/x HTTP/1.1\r\nHost: 127.0.0.2\r\n\r\n`]);
    p.close();
    for (const a of [tunnel, plain]) {
      expect(a).toStartWith("HTTP/1.1 403 Forbidden");
      expect(a).toContain("x-watchpost-guard: refused");
      expect(a).toContain("refused to contact 127.0.0.2: loopback address");
    }
    expect(seen).toEqual([]);
    expect(incidents.map((i) => [i.target, i.kind])).toEqual([
      [`127.0.0.2:${target.port}`, "refused"],
      [`http://127.0.0.2:${target.port}/x`, "refused"],
    ]);
  });

  it("tunnels CONNECT to the judged address", async () => {
    const { p } = await proxy();
    seen.length = 0;
    const answer = await exchange(p, [`CONNECT shop.test:${target.port} HTTP/1.1\r\nHost: shop.test\r\n\r\n`, `GET /tunnelled HTTP/1.1\r\nHost: shop.test\r\nConnection: close\r\n\r\n`]);
    p.close();
    expect(answer).toStartWith("HTTP/1.1 200 Connection Established");
    expect(answer).toContain("hello from the target");
    expect(seen.map((s) => s.path)).toEqual(["/tunnelled"]);
  });

  it("answers 502, marked, when the judged address refuses the connection", async () => {
    const { p, incidents } = await proxy();
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const answer = await exchange(p, [`GET http://shop.test:${port}/ HTTP/1.1\r\nHost: shop.test\r\n\r\n`]);
    p.close();
    expect(answer).toStartWith("HTTP/1.1 502 Bad Gateway");
    expect(answer).toContain("x-watchpost-guard: unreachable");
    expect(incidents[0]).toMatchObject({ kind: "unreachable", host: "shop.test" });
  });
});
