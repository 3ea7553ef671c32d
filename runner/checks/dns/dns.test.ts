import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import dgram from "node:dgram";
import { runCheckContract } from "../contract.ts";
import { startDnsServer, type TestDnsServer } from "../test-support/dns-server.ts";
import type { CheckContext } from "../types.ts";
import { dnsCheck } from "./dns.ts";
import type { DnsConfig } from "./dns-schema.ts";

let server: TestDnsServer;

const name = "example.test";
beforeAll(async () => {
  server = await startDnsServer({
    [name]: [
      { type: "A", name, ttl: 60, data: "192.0.2.10" },
      { type: "A", name, ttl: 60, data: "192.0.2.11" },
      { type: "AAAA", name, ttl: 60, data: "2001:db8::10" },
      { type: "MX", name, ttl: 60, data: { preference: 10, exchange: "mail.example.test" } },
      { type: "TXT", name, ttl: 60, data: ["v=spf1 ", "-all"] },
      { type: "NS", name, ttl: 60, data: "ns1.example.test" },
      { type: "SOA", name, ttl: 60, data: { mname: "ns1.example.test", rname: "hostmaster.example.test", serial: 2026112201, refresh: 7200, retry: 900, expire: 1209600, minimum: 300 } },
      { type: "CAA", name, ttl: 60, data: { flags: 0, tag: "issue", value: "letsencrypt.org" } },
    ],
    "www.example.test": [{ type: "CNAME", name: "www.example.test", ttl: 60, data: "example.test" }],
    "_sip._tcp.example.test": [{ type: "SRV", name: "_sip._tcp.example.test", ttl: 60, data: { priority: 10, weight: 5, port: 5060, target: "sip.example.test" } }],
    "big.example.test": { tcpOnly: [{ type: "TXT", name: "big.example.test", ttl: 60, data: ["x".repeat(200), "y".repeat(200)] }] },
    "broken.example.test": "SERVFAIL",
    "slow.example.test": "silent",
  });
});

afterAll(() => server.stop());

/** A loopback UDP port nobody listens on: the kernel answers a query with ICMP port unreachable. */
async function closedUdpPort(): Promise<number> {
  const socket = dgram.createSocket("udp4");
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(resolve));
  return port;
}

const ctx: CheckContext = { timeoutMs: 3000, guard: { allowPrivate: true, ipv6: false } };
const run = (config: Omit<DnsConfig, "resolver">) => dnsCheck.run({ resolver: server.address, ...config }, ctx);

runCheckContract(dnsCheck, {
  reachable: (): DnsConfig => ({ name, record_type: "A", resolver: server.address }),
  failing: (): DnsConfig => ({ name: "missing.example.test", record_type: "A", resolver: server.address }),
  hanging: (): DnsConfig => ({ name: "slow.example.test", record_type: "A", resolver: server.address }),
  invalid: [{ name, record_type: "PTR" }, { record_type: "A" }, { name, record_type: "A", resolver: "dns.google" }],
});

describe("dns check", () => {
  const cases: Array<[DnsConfig["record_type"], string, string[]]> = [
    ["A", name, ["192.0.2.10", "192.0.2.11"]],
    ["AAAA", name, ["2001:db8::10"]],
    ["CNAME", "www.example.test", ["example.test"]],
    ["MX", name, ["10 mail.example.test"]],
    ["TXT", name, ["v=spf1 -all"]], // one record of two strings
    ["NS", name, ["ns1.example.test"]],
    ["SOA", name, ["ns1.example.test hostmaster.example.test 2026112201 7200 900 1209600 300"]],
    ["CAA", name, ["0 issue letsencrypt.org"]],
    ["SRV", "_sip._tcp.example.test", ["10 5 5060 sip.example.test"]],
  ];
  for (const [type, query, answers] of cases) {
    it(`reports the ${type} answers of ${query}`, async () => {
      const result = await run({ name: query, record_type: type });
      expect(result.status).toBe("up");
      expect(result.data.answers).toEqual(answers);
      expect(result.data.rcode).toBe("NOERROR");
      expect(result.data.dns_ms).toBeGreaterThanOrEqual(0);
      expect(result.data.resolver).toBe(server.address);
    });
  }

  it("reports up when every expected value is in the answer, ignoring case and a trailing dot", async () => {
    const result = await run({ name, record_type: "MX", expected: ["10 MAIL.example.test."] });
    expect(result.status).toBe("up");
  });

  it("reports down when an expected value is missing", async () => {
    const result = await run({ name, record_type: "A", expected: ["192.0.2.10", "192.0.2.99"] });
    expect(result.status).toBe("down");
    expect(result.error).toBe("expected A values missing: 192.0.2.99");
  });

  it("reports down with rcode NXDOMAIN for a name that does not exist", async () => {
    const result = await run({ name: "nothing-here.example.test", record_type: "A" });
    expect(result.status).toBe("down");
    expect(result.data.rcode).toBe("NXDOMAIN");
    expect(result.error).toBe("nothing-here.example.test does not exist (NXDOMAIN)");
  });

  it("reports down when the name has no records of the type", async () => {
    const result = await run({ name: "www.example.test", record_type: "MX" });
    expect(result.status).toBe("down");
    expect(result.data.rcode).toBe("NOERROR");
    expect(result.data.answers).toEqual([]);
  });

  it("reports down with the server's response code on SERVFAIL", async () => {
    const result = await run({ name: "broken.example.test", record_type: "A" });
    expect(result.status).toBe("down");
    expect(result.data.rcode).toBe("SERVFAIL");
  });

  it("reports timeout when the server never answers", async () => {
    const result = await dnsCheck.run({ name: "slow.example.test", record_type: "A", resolver: server.address }, { ...ctx, timeoutMs: 300 });
    expect(result.status).toBe("timeout");
    expect(result.data.rcode).toBeNull();
  });

  it("reports down at once when the resolver's port is closed, instead of waiting for the timeout", async () => {
    const port = await closedUdpPort();
    const result = await dnsCheck.run({ name, record_type: "A", resolver: `127.0.0.1:${port}` }, ctx);
    expect(result.status).toBe("down");
    expect(result.error).toBe(`DNS server 127.0.0.1:${port} refused the query (port closed)`);
    expect(result.duration_ms).toBeLessThan(500);
  });

  it("moves on to the next resolver at once when one refuses, and is down only when all refuse", async () => {
    const [first, second] = [await closedUdpPort(), await closedUdpPort()];
    const answered = await dnsCheck.run({ name, record_type: "A" }, { ...ctx, endpoints: { dnsServers: [`127.0.0.1:${first}`, server.address] } });
    expect(answered.status).toBe("up");
    expect(answered.duration_ms).toBeLessThan(500); // the resend timer is 1 s
    const refused = await dnsCheck.run({ name, record_type: "A" }, { ...ctx, endpoints: { dnsServers: [`127.0.0.1:${first}`, `127.0.0.1:${second}`] } });
    expect(refused.status).toBe("down");
    expect(refused.error).toBe(`DNS servers 127.0.0.1:${first}, 127.0.0.1:${second} refused the query (port closed)`);
  });

  it("asks again over TCP when the UDP answer is truncated", async () => {
    const result = await run({ name: "big.example.test", record_type: "TXT" });
    expect(result.status).toBe("up");
    expect(result.data.answers).toEqual(["x".repeat(200) + "y".repeat(200)]);
  });

  it("uses the endpoints' DNS servers when the config names no resolver", async () => {
    const result = await dnsCheck.run({ name, record_type: "A" }, { ...ctx, endpoints: { dnsServers: [server.address] } });
    expect(result.status).toBe("up");
    expect(result.data.resolver).toBe(server.address);
  });

  it("refuses a private or metadata resolver address like any other target", async () => {
    const cloud: CheckContext = { ...ctx, guard: { allowPrivate: false, ipv6: false } };
    const privateResolver = await dnsCheck.run({ name, record_type: "A", resolver: "10.0.0.53" }, cloud);
    expect(privateResolver.status).toBe("down");
    expect(privateResolver.error).toContain("refused to contact 10.0.0.53");
    const metadata = await dnsCheck.run({ name, record_type: "A", resolver: "169.254.169.254:53" }, ctx);
    expect(metadata.error).toContain("cloud metadata address");
  });
});
