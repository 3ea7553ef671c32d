import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { AddressInfo } from "node:net";
import { SMTPServer, type SMTPServerOptions } from "smtp-server";
import { runCheckContract } from "../contract.ts";
import { closedPort, startSilentServer, type Stoppable } from "../test-support/loopback-servers.ts";
import { createTestPki, type TestPki } from "../test-support/test-pki.ts";
import type { CheckContext } from "../types.ts";
import { startScriptedServer } from "../test-support/scripted-smtp-server.ts";
import { smtpCheck } from "./smtp.ts";
import type { SmtpConfig } from "./smtp-schema.ts";

interface MailServer {
  port: number;
  stop(): Promise<void>;
}

/** A real SMTP server on loopback (smtp-server): STARTTLS with `tls`, none without. */
async function startMailServer(tls?: { key: string; cert: string }, extra: Partial<SMTPServerOptions> = {}): Promise<MailServer> {
  const server = new SMTPServer({
    logger: false,
    disableReverseLookup: true,
    banner: "mx.test ready",
    authOptional: true,
    ...(tls ? { key: tls.key, cert: tls.cert } : { disabledCommands: ["STARTTLS"] }),
    ...extra,
  });
  server.on("error", () => {});
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { port, stop: () => new Promise<void>((r) => server.close(() => r())) };
}

let pki: TestPki;
let withTls: MailServer;
let expiring: MailServer;
let untrusted: MailServer;
let plain: MailServer;
let silent: Stoppable;
let refusedPort: number;

beforeAll(async () => {
  pki = createTestPki();
  withTls = await startMailServer(pki.leaf(90));
  expiring = await startMailServer(pki.leaf(5));
  untrusted = await startMailServer(pki.selfSigned(90));
  plain = await startMailServer();
  silent = await startSilentServer();
  refusedPort = await closedPort();
});

afterAll(async () => {
  await Promise.all([withTls.stop(), expiring.stop(), untrusted.stop(), plain.stop(), silent.stop()]);
  pki.cleanup();
});

const ctx = (): CheckContext => ({ timeoutMs: 5000, guard: { allowPrivate: true, ipv6: false }, endpoints: { trustedCa: [pki.caPem] } });
const run = (config: SmtpConfig) => smtpCheck.run(config, ctx());

runCheckContract(smtpCheck, {
  context: () => ({ endpoints: { trustedCa: [pki.caPem] } }),
  reachable: () => ({ host: "localhost", port: withTls.port }),
  failing: () => ({ host: "127.0.0.1", port: refusedPort }),
  hanging: () => ({ host: "127.0.0.1", port: silent.port }),
  invalid: [{ port: 25 }, { host: "mx.example.com", starttls: "maybe" }, { host: "mx.example.com", port: 0 }, { host: "mx.example.com", ehlo_name: "a b" }],
});

describe("smtp check", () => {
  it("greets, upgrades with STARTTLS and reports the certificate and every phase", async () => {
    const result = await run({ host: "localhost", port: withTls.port });
    expect(result.status).toBe("up");
    expect(result.error).toBeUndefined();
    expect(result.data.banner).toContain("mx.test ready");
    expect(result.data.ip).toBe("127.0.0.1");
    expect(result.data.tls_version).toMatch(/^TLSv1\.[23]$/);
    expect(result.data.cert_days_left).toBeOneOf([89, 90]);
    expect(Date.parse(result.data.cert_expires_at as string)).toBeGreaterThan(Date.now());
    for (const phase of ["connect_ms", "banner_ms", "ehlo_ms", "starttls_ms"]) expect(result.data[phase]).toBeGreaterThanOrEqual(0);
  });

  it("stays in plain text with starttls off, and without STARTTLS on offer in auto mode", async () => {
    for (const config of [{ host: "localhost", port: withTls.port, starttls: "off" as const }, { host: "127.0.0.1", port: plain.port }]) {
      const result = await run(config);
      expect(result.status).toBe("up");
      expect(result.data.starttls_ms).toBeNull();
      expect(result.data.tls_version).toBeNull();
      expect(result.data.ehlo_ms).toBeGreaterThanOrEqual(0);
    }
  });

  it("is down when STARTTLS is required but the server does not offer it", async () => {
    const result = await run({ host: "127.0.0.1", port: plain.port, starttls: "required" });
    expect(result.status).toBe("down");
    expect(result.error).toBe("the server does not offer STARTTLS (starttls: required)");
  });

  it("is down for an untrusted certificate unless tls_verify is off", async () => {
    const strict = await run({ host: "localhost", port: untrusted.port });
    expect(strict.status).toBe("down");
    expect(strict.error).toContain("STARTTLS certificate is not trusted");
    const lax = await run({ host: "localhost", port: untrusted.port, tls_verify: false });
    expect(lax.status).toBe("up");
    expect(lax.data.tls_version).not.toBeNull();
  });

  it("is degraded when the certificate expires within cert_expiry_days", async () => {
    const result = await run({ host: "localhost", port: expiring.port, cert_expiry_days: 14 });
    expect(result.status).toBe("degraded");
    expect(result.error).toMatch(/^STARTTLS certificate expires in [45] days/);
    expect((await run({ host: "localhost", port: expiring.port })).status).toBe("up");
  });

  it("is down when the greeting is not 220", async () => {
    const busy = await startMailServer(undefined, {
      onConnect(_session, callback) {
        callback(Object.assign(new Error("too busy, try later"), { responseCode: 421 }));
      },
    });
    try {
      const result = await run({ host: "127.0.0.1", port: busy.port });
      expect(result.status).toBe("down");
      expect(result.error).toContain("421");
    } finally {
      await busy.stop();
    }
  });

  it("says which reply it was waiting for when the deadline passes", async () => {
    const noEhlo = await startScriptedServer("220 mx.test ready\r\n", {});
    const noStarttls = await startScriptedServer("220 mx.test ready\r\n", { EHLO: "250-mx.test\r\n250 STARTTLS\r\n" });
    const short = { ...ctx(), timeoutMs: 300 };
    try {
      const cases: Array<[number, string]> = [
        [silent.port, "no SMTP greeting (220) within 300 ms"],
        [noEhlo.port, "no reply to EHLO within 300 ms"],
        [noStarttls.port, "no reply to STARTTLS within 300 ms"],
      ];
      for (const [port, error] of cases) {
        const result = await smtpCheck.run({ host: "127.0.0.1", port }, short);
        expect(result.status).toBe("timeout");
        expect(result.error).toBe(error);
      }
    } finally {
      await Promise.all([noEhlo.stop(), noStarttls.stop()]);
    }
  });
});
