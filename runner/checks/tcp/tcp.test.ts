import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import net from "node:net";
import type { HostResolver } from "../../../core/net-guard/index.ts";
import { runCheckContract } from "../contract.ts";
import { closedPort, startSilentServer, startUnacceptingListener, type Stoppable } from "../test-support/loopback-servers.ts";
import type { CheckContext } from "../types.ts";
import { tcpCheck } from "./tcp.ts";

let listener: Stoppable;
let refusedPort: number;
let unaccepting: { port: number; stop(): void };

beforeAll(async () => {
  listener = await startSilentServer();
  refusedPort = await closedPort();
  unaccepting = await startUnacceptingListener();
});

afterAll(async () => {
  unaccepting.stop();
  await listener.stop();
});

// Name resolution hangs through this resolver (the contract's timeout and abort cases use it).
const resolver: HostResolver = async (host) => {
  if (host === "hang.test") return new Promise(() => {});
  if (host === "db.test") return [{ address: "127.0.0.1", family: 4 }];
  if (host === "db.internal.test") return [{ address: "172.16.5.4", family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
};

const ctx = (extra: Partial<CheckContext["guard"]> = {}): CheckContext => ({
  timeoutMs: 5000,
  guard: { allowPrivate: true, ipv6: false, resolver, ...extra },
});

runCheckContract(tcpCheck, {
  context: () => ({ guard: { allowPrivate: true, ipv6: false, resolver } }),
  reachable: () => ({ host: "127.0.0.1", port: listener.port }),
  failing: () => ({ host: "127.0.0.1", port: refusedPort }),
  hanging: () => ({ host: "hang.test", port: 80 }),
  invalid: [{ host: "127.0.0.1" }, { host: "127.0.0.1", port: 70000 }, { host: "a b", port: 80 }],
});

describe("tcp check", () => {
  it("reports up with the connect time and address for a listening port", async () => {
    const result = await tcpCheck.run({ host: "127.0.0.1", port: listener.port }, ctx());
    expect(result.status).toBe("up");
    expect(result.data.ip).toBe("127.0.0.1");
    expect(result.data.connect_ms).toBeGreaterThanOrEqual(0);
  });

  it("reports down when the connection is refused", async () => {
    const result = await tcpCheck.run({ host: "127.0.0.1", port: refusedPort }, ctx());
    expect(result.status).toBe("down");
    expect(result.error).toBe(`connection refused (127.0.0.1:${refusedPort})`);
    expect(result.data).toMatchObject({ ip: "127.0.0.1", dns_ms: 0, connect_ms: null });
  });

  it("resolves a host name and connects to the address it resolved to", async () => {
    const result = await tcpCheck.run({ host: "db.test", port: listener.port }, ctx());
    expect(result.status).toBe("up");
    expect(result.data.ip).toBe("127.0.0.1");
  });

  it("reports down for a host name that does not resolve", async () => {
    const result = await tcpCheck.run({ host: "missing.test", port: 80 }, ctx());
    expect(result.status).toBe("down");
    expect(result.error).toContain("could not resolve missing.test");
  });

  it("refuses a host name that resolves to a private address on a cloud region", async () => {
    const result = await tcpCheck.run({ host: "db.internal.test", port: 5432 }, ctx({ allowPrivate: false }));
    expect(result.status).toBe("down");
    expect(result.error).toContain("refused to contact db.internal.test (172.16.5.4): private address");
  });

  it("connects over IPv6 on a runner that allows it, and refuses IPv6 on an IPv4-only region", async () => {
    const server = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, "::1", resolve));
    const port = (server.address() as net.AddressInfo).port;
    try {
      const v6 = await tcpCheck.run({ host: "::1", port }, ctx({ ipv6: true }));
      expect(v6.status).toBe("up");
      expect(v6.data.ip).toBe("::1");
      const v4only = await tcpCheck.run({ host: "[::1]", port }, ctx());
      expect(v4only.status).toBe("down");
      expect(v4only.error).toContain("this region does not check IPv6 targets");
    } finally {
      server.close();
    }
  });

  it("says which name it timed out resolving", async () => {
    const result = await tcpCheck.run({ host: "hang.test", port: 80 }, { ...ctx(), timeoutMs: 200 });
    expect(result.status).toBe("timeout");
    expect(result.error).toBe("no DNS answer for hang.test within 200 ms");
    expect(result.data).toMatchObject({ ip: null, dns_ms: null, connect_ms: null });
  });

  it("says which address it timed out connecting to, keeping the address and DNS time", async () => {
    const result = await tcpCheck.run({ host: "127.0.0.1", port: unaccepting.port }, { ...ctx(), timeoutMs: 300 });
    expect(result.status).toBe("timeout");
    expect(result.error).toBe(`no TCP connection to 127.0.0.1:${unaccepting.port} within 300 ms`);
    expect(result.data).toMatchObject({ ip: "127.0.0.1", dns_ms: 0, connect_ms: null });
  });
});
