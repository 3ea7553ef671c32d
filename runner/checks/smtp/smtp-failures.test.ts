import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { HostResolver } from "../../../core/net-guard/index.ts";
import { closedPort, startSilentServer, startUnacceptingListener, type Stoppable } from "../test-support/loopback-servers.ts";
import type { CheckContext } from "../types.ts";
import { startScriptedServer } from "../test-support/scripted-smtp-server.ts";
import { smtpCheck } from "./smtp.ts";

const GREETING = "220 mx.test ready\r\n";
const EHLO_WITH_STARTTLS = "250-mx.test\r\n250 STARTTLS\r\n";

// Name resolution is the one step loopback cannot make hang, so a test resolver does.
const resolver: HostResolver = async (host) => {
  if (host === "hang.test") return new Promise(() => {});
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
};

const ctx = (timeoutMs = 5000): CheckContext => ({ timeoutMs, guard: { allowPrivate: true, ipv6: false, resolver } });
const at = (port: number) => ({ host: "127.0.0.1", port });

let refusedPort: number;
let unaccepting: { port: number; stop(): void };
let silent: Stoppable;
const servers: Stoppable[] = [];
const scripted = async (...args: Parameters<typeof startScriptedServer>) => {
  const server = await startScriptedServer(...args);
  servers.push(server);
  return server;
};

beforeAll(async () => {
  refusedPort = await closedPort();
  unaccepting = await startUnacceptingListener();
  silent = await startSilentServer();
});

afterAll(async () => {
  unaccepting.stop();
  await Promise.all([silent.stop(), ...servers.map((s) => s.stop())]);
});

describe("smtp check: what a failed connection says", () => {
  it("says the connection was refused, with the address and no connect time", async () => {
    const result = await smtpCheck.run(at(refusedPort), ctx());
    expect(result.status).toBe("down");
    expect(result.error).toBe(`connection refused (127.0.0.1:${refusedPort})`);
    expect(result.data).toMatchObject({ ip: "127.0.0.1", dns_ms: 0, connect_ms: null });
  });

  it("says which address it timed out connecting to, keeping the address it resolved", async () => {
    const result = await smtpCheck.run(at(unaccepting.port), ctx(300));
    expect(result.status).toBe("timeout");
    expect(result.error).toBe(`no TCP connection to 127.0.0.1:${unaccepting.port} within 300 ms`);
    expect(result.data).toMatchObject({ ip: "127.0.0.1", dns_ms: 0, connect_ms: null, banner_ms: null });
  });

  it("says which name it timed out resolving", async () => {
    const result = await smtpCheck.run({ host: "hang.test", port: 25 }, ctx(300));
    expect(result.status).toBe("timeout");
    expect(result.error).toBe("no DNS answer for hang.test within 300 ms");
    expect(result.data).toMatchObject({ ip: null, dns_ms: null });
  });

  it("names a host that does not resolve", async () => {
    const result = await smtpCheck.run({ host: "missing.test", port: 25 }, ctx());
    expect(result.status).toBe("down");
    expect(result.error).toBe("could not resolve missing.test: no such host (ENOTFOUND)");
  });

  it("keeps the connect time when the server accepts and never greets", async () => {
    const result = await smtpCheck.run(at(silent.port), ctx(300));
    expect(result.status).toBe("timeout");
    expect(result.error).toBe("no SMTP greeting (220) within 300 ms");
    expect(result.data.ip).toBe("127.0.0.1");
    expect(result.data.connect_ms).toBeGreaterThanOrEqual(0);
  });

  it("says the server closed the connection before greeting, and where", async () => {
    const server = await scripted((socket) => socket.end(), {});
    const result = await smtpCheck.run(at(server.port), ctx());
    expect(result.status).toBe("down");
    expect(result.error).toBe(`connection closed by the server (127.0.0.1:${server.port}) while waiting for the SMTP greeting (220)`);
    expect(result.data.connect_ms).toBeGreaterThanOrEqual(0);
  });

  it("says the server reset the connection, and at which step", async () => {
    const atGreeting = await scripted((socket) => socket.resetAndDestroy(), {});
    const atEhlo = await scripted(GREETING, { EHLO: (socket) => socket.resetAndDestroy() });
    const first = await smtpCheck.run(at(atGreeting.port), ctx());
    expect(first.status).toBe("down");
    expect(first.error).toBe(`connection reset by the peer (127.0.0.1:${atGreeting.port}) while waiting for the SMTP greeting (220)`);
    const second = await smtpCheck.run(at(atEhlo.port), ctx());
    expect(second.error).toBe(`connection reset by the peer (127.0.0.1:${atEhlo.port}) while waiting for the reply to EHLO`);
    expect(second.data.banner_ms).toBeGreaterThanOrEqual(0);
  });

  it("says the connection ended during the TLS handshake after STARTTLS was accepted", async () => {
    const server = await scripted(GREETING, { EHLO: EHLO_WITH_STARTTLS, STARTTLS: (socket) => socket.end("220 go ahead\r\n") });
    const result = await smtpCheck.run(at(server.port), ctx());
    expect(result.status).toBe("down");
    // Whether our ClientHello crosses the server's FIN (a reset) or not (a close) is a race; both are said in words.
    const ended = new RegExp(`^connection (closed by the server|reset by the peer) \\(127\\.0\\.0\\.1:${server.port}\\) while waiting for the TLS handshake after STARTTLS$`);
    expect(result.error).toMatch(ended);
  });

  it("says in words that the server did not speak TLS after STARTTLS, keeping the phases before it", async () => {
    const server = await scripted(GREETING, {
      EHLO: EHLO_WITH_STARTTLS,
      STARTTLS: (socket) => {
        socket.write("220 go ahead\r\n");
        socket.once("data", () => socket.write("500 this is not TLS\r\n"));
      },
    });
    const result = await smtpCheck.run(at(server.port), ctx());
    expect(result.status).toBe("down");
    expect(result.error).toBe(`TLS handshake after STARTTLS failed: the server did not answer in TLS (127.0.0.1:${server.port})`);
    expect(result.data.ehlo_ms).toBeGreaterThanOrEqual(0);
    expect(result.data.starttls_ms).toBeNull();
  });

  it("says which reply was not SMTP", async () => {
    const server = await scripted("HTTP/1.1 400 Bad Request\r\n\r\n", {});
    const result = await smtpCheck.run(at(server.port), ctx());
    expect(result.status).toBe("down");
    expect(result.error).toBe(`not an SMTP reply while waiting for the SMTP greeting (220): "HTTP/1.1 400 Bad Request" (127.0.0.1:${server.port})`);
  });
});
