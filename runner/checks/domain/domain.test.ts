import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { runCheckContract } from "../contract.ts";
import { startLineServer, startSilentServer, type Stoppable } from "../test-support/loopback-servers.ts";
import { DAY_MS } from "../shared/timing.ts";
import type { CheckContext, CheckEndpoints } from "../types.ts";
import { domainCheck } from "./domain.ts";

const inDays = (days: number) => new Date(Date.now() + days * DAY_MS + 3600_000).toISOString();

function rdapDomain(name: string, expiry: string | null, registrar = "Example Registrar, Inc.") {
  return {
    objectClassName: "domain",
    ldhName: name.toUpperCase(),
    events: [{ eventAction: "registration", eventDate: "2001-01-01T00:00:00Z" }, ...(expiry ? [{ eventAction: "expiration", eventDate: expiry }] : [])],
    entities: [
      { objectClassName: "entity", handle: "9999", roles: ["registrar"], vcardArray: ["vcard", [["version", {}, "text", "4.0"], ["fn", {}, "text", registrar]]] },
    ],
  };
}

let rdap: ReturnType<typeof Bun.serve>;
let whois: Stoppable & { queries: string[] };
let iana: Stoppable & { queries: string[] };
let silent: Stoppable;

beforeAll(async () => {
  const records: Record<string, unknown> = {
    "example.test": rdapDomain("example.test", inDays(400)),
    "soon.test": rdapDomain("soon.test", inDays(10)),
    "expired.test": rdapDomain("expired.test", inDays(-5)),
    "noexpiry.test": rdapDomain("noexpiry.test", null, "Registrar From RDAP"),
    "shop.co.test": rdapDomain("shop.co.test", inDays(100), "Second Level Registry"),
  };
  rdap = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      const base = `http://127.0.0.1:${rdap.port}`;
      if (path === "/dns.json") {
        return Response.json({
          version: "1.0",
          services: [
            [["test"], [`${base}/rdap/`]],
            [["co.test"], [`${base}/rdap-co`]],
            [["hang"], [`http://127.0.0.1:${silent.port}/`]],
          ],
        });
      }
      const m = /^\/rdap(-co)?\/domain\/(.+)$/.exec(path);
      if (m?.[2] === "broken.test") return new Response("oops", { status: 500 });
      if (m && records[m[2]]) return Response.json(records[m[2]], { headers: { "content-type": "application/rdap+json" } });
      return Response.json({ errorCode: 404, title: "Not Found" }, { status: 404 });
    },
  });
  whois = await startLineServer((query) => {
    if (query === "example.whoisonly") {
      return `Domain Name: EXAMPLE.WHOISONLY\r\nRegistrar: Whois Registrar Ltd\r\nRegistry Expiry Date: ${inDays(200)}\r\n`;
    }
    if (query === "noexpiry.test") return `Domain Name: NOEXPIRY.TEST\r\nRegistry Expiry Date: ${inDays(60)}\r\n`;
    if (query === "broken.test") return "domain: BROKEN.TEST\r\nregistrar: Old School Registry\r\npaid-till: 2099.03.14\r\n";
    if (query === "discover.viaiana") return `Registrar: Found Via IANA\r\nExpiration Date: 14-Mar-2098\r\n`;
    return `No match for "${query.toUpperCase()}".\r\n>>> Last update of whois database <<<\r\n`;
  });
  iana = await startLineServer((query) => (query === "viaiana" ? `domain: VIAIANA\r\n\r\nrefer: 127.0.0.1\r\n` : "% no such TLD\r\n"));
  silent = await startSilentServer();
});

afterAll(async () => {
  await Promise.all([rdap.stop(true), whois.stop(), iana.stop(), silent.stop()]);
});

const endpoints = (): CheckEndpoints => ({
  rdapBootstrapUrl: `http://127.0.0.1:${rdap.port}/dns.json`,
  whoisServer: { host: "127.0.0.1", port: whois.port },
});
const ctx = (extra: Partial<CheckEndpoints> = {}): CheckContext => ({
  timeoutMs: 5000,
  guard: { allowPrivate: true, ipv6: false },
  endpoints: { ...endpoints(), ...extra },
});

runCheckContract(domainCheck, {
  context: () => ({ endpoints: endpoints() }),
  reachable: () => ({ domain: "example.test" }),
  failing: () => ({ domain: "missing.test" }),
  hanging: () => ({ domain: "example.hang" }),
  invalid: [{ domain: "localhost" }, { domain: "-bad-.test" }, { domain: "example.test", warn_days: 0 }],
});

describe("domain check", () => {
  it("reports up with the expiry and registrar from RDAP", async () => {
    const result = await domainCheck.run({ domain: "example.test" }, ctx());
    expect(result.status).toBe("up");
    expect(result.data).toMatchObject({ source: "rdap", registrar: "Example Registrar, Inc.", domain_days_remaining: 400 });
    expect(Date.parse(result.data.expiry_date as string)).toBeGreaterThan(Date.now());
  });

  it("finds the RDAP server of a second-level suffix before the TLD's", async () => {
    const result = await domainCheck.run({ domain: "shop.co.test" }, ctx());
    expect(result.status).toBe("up");
    expect(result.data.registrar).toBe("Second Level Registry");
  });

  it("reports degraded when the domain expires within warn_days", async () => {
    const result = await domainCheck.run({ domain: "soon.test" }, ctx());
    expect(result.status).toBe("degraded");
    expect(result.data.domain_days_remaining).toBe(10);
    expect((await domainCheck.run({ domain: "soon.test", warn_days: 7 }, ctx())).status).toBe("up");
  });

  it("reports down for an expired domain", async () => {
    const result = await domainCheck.run({ domain: "expired.test" }, ctx());
    expect(result.status).toBe("down");
    expect(result.error).toContain("expired.test expired on");
    expect(result.data.domain_days_remaining).toBe(-5);
  });

  it("reports down for a domain RDAP does not know, without asking WHOIS", async () => {
    const before = whois.queries.length;
    const result = await domainCheck.run({ domain: "missing.test" }, ctx());
    expect(result.status).toBe("down");
    expect(result.error).toBe("missing.test is not registered (RDAP answered 404)");
    expect(whois.queries.length).toBe(before);
  });

  it("falls back to WHOIS for a TLD without an RDAP server", async () => {
    const result = await domainCheck.run({ domain: "example.whoisonly" }, ctx());
    expect(result.status).toBe("up");
    expect(result.data).toMatchObject({ source: "whois", registrar: "Whois Registrar Ltd", domain_days_remaining: 200 });
  });

  it("falls back to WHOIS when RDAP has no expiration event, keeping RDAP's registrar", async () => {
    const result = await domainCheck.run({ domain: "noexpiry.test" }, ctx());
    expect(result.status).toBe("up");
    expect(result.data).toMatchObject({ source: "whois", registrar: "Registrar From RDAP", domain_days_remaining: 60 });
  });

  it("falls back to WHOIS when the RDAP server fails, reading registry-specific date formats", async () => {
    const result = await domainCheck.run({ domain: "broken.test" }, ctx());
    expect(result.status).toBe("up");
    expect(result.data).toMatchObject({ source: "whois", registrar: "Old School Registry", expiry_date: "2099-03-14T00:00:00.000Z" });
  });

  it("reports down when WHOIS finds no match", async () => {
    const result = await domainCheck.run({ domain: "gone.whoisonly" }, ctx());
    expect(result.status).toBe("down");
    expect(result.error).toBe("gone.whoisonly is not registered (WHOIS found no match)");
  });

  it("discovers the TLD's WHOIS server through IANA when none is configured", async () => {
    const result = await domainCheck.run(
      { domain: "discover.viaiana" },
      ctx({ whoisServer: undefined, whoisIanaServer: { host: "127.0.0.1", port: iana.port }, whoisPort: whois.port }),
    );
    expect(result.status).toBe("up");
    expect(result.data).toMatchObject({ source: "whois", registrar: "Found Via IANA", expiry_date: "2098-03-14T00:00:00.000Z" });
    expect(iana.queries).toContain("viaiana");
  });

  it("reports down naming both sources when neither RDAP nor WHOIS can be reached", async () => {
    const result = await domainCheck.run({ domain: "example.test" }, ctx({ rdapBootstrapUrl: "http://127.0.0.1:1/dns.json", whoisServer: { host: "127.0.0.1", port: 1 } }));
    expect(result.status).toBe("down");
    expect(result.error).toMatch(/^no expiry date found for example\.test \(RDAP: connection refused.*; WHOIS: connection refused/);
  });

  it("reports timeout when the RDAP bootstrap never answers", async () => {
    const result = await domainCheck.run({ domain: "example.test" }, { ...ctx({ rdapBootstrapUrl: `http://127.0.0.1:${silent.port}/dns.json` }), timeoutMs: 300 });
    expect(result.status).toBe("timeout");
  });
});
