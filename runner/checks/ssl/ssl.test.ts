import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { HostResolver } from "../../../core/net-guard/index.ts";
import { runCheckContract } from "../contract.ts";
import { startHttpTarget, type HttpTarget } from "../test-support/http-target.ts";
import { closedPort, startSilentServer, startTcpServer, startUnacceptingListener, type Stoppable } from "../test-support/loopback-servers.ts";
import { createTestPki, type TestPki } from "../test-support/test-pki.ts";
import type { CheckContext } from "../types.ts";
import { sslCheck } from "./ssl.ts";
import type { SslConfig } from "./ssl-schema.ts";

let pki: TestPki;
let valid: HttpTarget;
let expiring: HttpTarget;
let expired: HttpTarget;
let selfSigned: HttpTarget;
let silent: Stoppable;
let refusedPort: number;
let unaccepting: { port: number; stop(): void };
/** Closes each connection (FIN) once the ClientHello has arrived, and resets each one at once. */
let closing: Stoppable;
let resetting: Stoppable;

beforeAll(async () => {
  pki = createTestPki();
  valid = startHttpTarget(pki.leaf(90));
  expiring = startHttpTarget(pki.leaf(10));
  expired = startHttpTarget(pki.leaf(-1));
  selfSigned = startHttpTarget(pki.selfSigned(90));
  silent = await startSilentServer();
  refusedPort = await closedPort();
  unaccepting = await startUnacceptingListener();
  closing = await startTcpServer((socket) => socket.once("data", () => socket.end()));
  resetting = await startTcpServer((socket) => socket.resetAndDestroy());
});

afterAll(async () => {
  unaccepting.stop();
  await Promise.all([valid.stop(), expiring.stop(), expired.stop(), selfSigned.stop(), silent.stop(), closing.stop(), resetting.stop()]);
  pki.cleanup();
});

// Name resolution is the one step loopback cannot make hang, so a test resolver does.
const resolver: HostResolver = async (host) => (host === "hang.test" ? new Promise(() => {}) : [{ address: "127.0.0.1", family: 4 }]);
const ctx = (): CheckContext => ({ timeoutMs: 5000, guard: { allowPrivate: true, ipv6: false, resolver }, endpoints: { trustedCa: [pki.caPem] } });
const run = (config: SslConfig) => sslCheck.run(config, ctx());

runCheckContract(sslCheck, {
  context: () => ({ endpoints: { trustedCa: [pki.caPem] } }),
  reachable: () => ({ host: "localhost", port: valid.port }),
  failing: () => ({ host: "127.0.0.1", port: refusedPort }),
  hanging: () => ({ host: "127.0.0.1", port: silent.port }),
  invalid: [{ port: 443 }, { host: "example.com", warn_days: 0 }, { host: "example.com", sni: "a b" }],
});

describe("ssl check", () => {
  it("reports up with the certificate's details for a valid certificate", async () => {
    const result = await run({ host: "localhost", port: valid.port });
    expect(result.status).toBe("up");
    expect(result.data).toMatchObject({
      issuer: "CN=Watchpost Test CA, O=Watchpost",
      subject: "CN=localhost",
      sans: ["localhost", "127.0.0.1"],
      chain_valid: true,
      hostname_valid: true,
      ip: "127.0.0.1",
    });
    expect(result.data.ssl_days_remaining).toBeOneOf([89, 90]);
    expect(result.data.fingerprint_sha256).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect(result.data.serial).toMatch(/^[0-9A-F]+$/);
    expect(Date.parse(result.data.valid_to as string)).toBeGreaterThan(Date.now());
    expect(Date.parse(result.data.valid_from as string)).toBeLessThanOrEqual(Date.now());
  });

  it("checks an IP address against the certificate's IP names", async () => {
    const result = await run({ host: "127.0.0.1", port: valid.port });
    expect(result.status).toBe("up");
  });

  it("reports degraded when the certificate expires within warn_days", async () => {
    const result = await run({ host: "localhost", port: expiring.port });
    expect(result.status).toBe("degraded");
    expect(result.data.ssl_days_remaining).toBeOneOf([9, 10]);
    expect(result.error).toContain("certificate expires in");
    expect((await run({ host: "localhost", port: expiring.port, warn_days: 5 })).status).toBe("up");
  });

  it("reports down for an expired certificate and still reports its details", async () => {
    const result = await run({ host: "localhost", port: expired.port });
    expect(result.status).toBe("down");
    expect(result.error).toContain("certificate expired on");
    expect(result.data.ssl_days_remaining as number).toBeLessThan(0);
    expect(result.data.chain_valid).toBe(false);
    expect(result.data.subject).toBe("CN=localhost");
  });

  it("reports down when the chain is not trusted", async () => {
    const result = await run({ host: "localhost", port: selfSigned.port });
    expect(result.status).toBe("down");
    expect(result.error).toContain("certificate chain is not trusted");
    expect(result.data.chain_valid).toBe(false);
    expect(result.data.hostname_valid).toBe(true);
  });

  it("reports down when the certificate does not cover the SNI name", async () => {
    const result = await run({ host: "127.0.0.1", port: valid.port, sni: "shop.example.com" });
    expect(result.status).toBe("down");
    expect(result.error).toBe("certificate does not cover shop.example.com");
    expect(result.data).toMatchObject({ chain_valid: true, hostname_valid: false });
  });

  it("reports down when the connection is refused", async () => {
    const result = await run({ host: "127.0.0.1", port: refusedPort });
    expect(result.status).toBe("down");
    expect(result.error).toContain("connection refused");
  });

  it("says in words that the port does not speak TLS, and reports the address", async () => {
    const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { open: (s) => void s.write("HTTP/1.1 400 Bad Request\r\n\r\n"), data() {} } });
    try {
      const result = await run({ host: "127.0.0.1", port: server.port });
      expect(result.status).toBe("down");
      expect(result.error).toBe(`TLS handshake failed: the server did not answer in TLS (plain text on this port?) (127.0.0.1:${server.port})`);
      expect(result.data).toMatchObject({ ip: "127.0.0.1", tls_ms: null });
    } finally {
      server.stop(true);
    }
  });

  it("says with which address the handshake timed out, keeping the address", async () => {
    const result = await sslCheck.run({ host: "127.0.0.1", port: silent.port }, { ...ctx(), timeoutMs: 300 });
    expect(result.status).toBe("timeout");
    expect(result.error).toBe(`no TLS handshake with 127.0.0.1:${silent.port} within 300 ms`);
    expect(result.data).toMatchObject({ ssl_days_remaining: null, ip: "127.0.0.1", tls_ms: null });
  });

  it("says which address it timed out connecting to", async () => {
    const result = await sslCheck.run({ host: "127.0.0.1", port: unaccepting.port }, { ...ctx(), timeoutMs: 300 });
    expect(result.status).toBe("timeout");
    expect(result.error).toBe(`no TCP connection to 127.0.0.1:${unaccepting.port} within 300 ms`);
    expect(result.data).toMatchObject({ ip: "127.0.0.1", tls_ms: null });
  });

  it("says which name it timed out resolving", async () => {
    const result = await sslCheck.run({ host: "hang.test", port: 443 }, { ...ctx(), timeoutMs: 300 });
    expect(result.status).toBe("timeout");
    expect(result.error).toBe("no DNS answer for hang.test within 300 ms");
    expect(result.data.ip).toBeNull();
  });

  it("says the server closed or reset the connection during the handshake, and where", async () => {
    const closed = await run({ host: "127.0.0.1", port: closing.port });
    expect(closed.status).toBe("down");
    expect(closed.error).toBe(`connection closed by the server (127.0.0.1:${closing.port}) while waiting for the TLS handshake`);
    expect(closed.data).toMatchObject({ ip: "127.0.0.1", tls_ms: null });
    const reset = await run({ host: "127.0.0.1", port: resetting.port });
    expect(reset.status).toBe("down");
    expect(reset.error).toBe(`connection reset by the peer (127.0.0.1:${resetting.port}) while waiting for the TLS handshake`);
  });
});
