import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { HostResolver } from "../../../core/net-guard/index.ts";
import { runCheckContract } from "../contract.ts";
import { startHttpTarget, type HttpTarget } from "../test-support/http-target.ts";
import { closedPort, startSilentServer, type Stoppable } from "../test-support/loopback-servers.ts";
import { createTestPki, type TestPki } from "../test-support/test-pki.ts";
import type { CheckContext } from "../types.ts";
import { httpCheck } from "./http.ts";
import type { HttpConfig } from "./http-schema.ts";

let plain: HttpTarget;
let secure: HttpTarget;
let expired: HttpTarget;
let selfSigned: HttpTarget;
let silent: Stoppable;
let refusedPort: number;
let pki: TestPki;

beforeAll(async () => {
  pki = createTestPki();
  secure = startHttpTarget(pki.leaf(90));
  plain = startHttpTarget(undefined, () => secure.url.replace("127.0.0.1", "localhost"));
  expired = startHttpTarget(pki.leaf(-1));
  selfSigned = startHttpTarget(pki.selfSigned(30));
  silent = await startSilentServer();
  refusedPort = await closedPort();
});

afterAll(async () => {
  await Promise.all([plain.stop(), secure.stop(), expired.stop(), selfSigned.stop(), silent.stop()]);
  pki.cleanup();
});

/** Maps a few test names; anything else is unknown. */
const testResolver: HostResolver = async (host) => {
  const table: Record<string, string> = { localhost: "127.0.0.1", "app.test": "127.0.0.1", "metadata.test": "169.254.169.254", "intranet.test": "10.20.30.40" };
  if (!table[host]) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
  return [{ address: table[host], family: 4 }];
};

function ctx(extra: Partial<CheckContext> = {}): CheckContext {
  return { timeoutMs: 5000, guard: { allowPrivate: true, ipv6: false, resolver: testResolver }, endpoints: { trustedCa: [pki.caPem] }, ...extra };
}

const run = (config: HttpConfig, extra?: Partial<CheckContext>) => httpCheck.run(config, ctx(extra));

runCheckContract(httpCheck, {
  context: () => ({ endpoints: { trustedCa: [pki.caPem] } }),
  reachable: () => ({ url: `${plain.url}/` }),
  failing: () => ({ url: `http://127.0.0.1:${refusedPort}/` }),
  hanging: () => ({ url: `http://127.0.0.1:${silent.port}/` }),
  invalid: [{}, { url: "ftp://example.com/" }, { url: "http://x.test/", method: "TRACE" }, { url: "http://x.test/", expected_status: ["2x"] }, { url: "http://x.test/", extra: 1 }],
});

describe("http check", () => {
  it("reports up with the status code, phase timings, address and body size for a 200 response", async () => {
    const result = await run({ url: `${plain.url}/` });
    expect(result.status).toBe("up");
    expect(result.error).toBeUndefined();
    expect(result.data).toMatchObject({ status_code: 200, ip: "127.0.0.1", redirects: 0, final_url: `${plain.url}/`, tls_ms: null });
    for (const key of ["dns_ms", "connect_ms", "ttfb_ms", "body_bytes"]) expect(result.data[key]).toBeGreaterThanOrEqual(0);
    expect(result.data.body_bytes).toBeGreaterThan(10);
    expect(result.data.response_time).toBe(result.duration_ms);
  });

  it("reports down for a status outside the default 200-399", async () => {
    const result = await run({ url: `${plain.url}/status/500` });
    expect(result.status).toBe("down");
    expect(result.error).toContain("unexpected status 500");
    expect(result.data.status_code).toBe(500);
  });

  it("accepts statuses listed in expected_status as codes, classes and ranges", async () => {
    expect((await run({ url: `${plain.url}/status/404`, expected_status: ["4xx"] })).status).toBe("up");
    expect((await run({ url: `${plain.url}/status/503`, expected_status: [200, 503] })).status).toBe("up");
    expect((await run({ url: `${plain.url}/status/204`, expected_status: ["200-204"] })).status).toBe("up");
    expect((await run({ url: `${plain.url}/`, expected_status: [201] })).status).toBe("down");
  });

  it("reports down when the connection is refused", async () => {
    const result = await run({ url: `http://127.0.0.1:${refusedPort}/` });
    expect(result.status).toBe("down");
    expect(result.error).toContain("connection refused");
  });

  it("reports timeout when the server accepts but never answers", async () => {
    const result = await run({ url: `http://127.0.0.1:${silent.port}/` }, { timeoutMs: 300 });
    expect(result.status).toBe("timeout");
    expect(result.data.connect_ms).toBeGreaterThanOrEqual(0);
    expect(result.data.status_code).toBeNull();
  });

  it("follows redirects and reports the final URL and how many were followed", async () => {
    const result = await run({ url: `${plain.url}/redirect/3` });
    expect(result.status).toBe("up");
    expect(result.data).toMatchObject({ status_code: 200, redirects: 3, final_url: `${plain.url}/` });
  });

  it("reports the redirect itself when follow_redirects is false", async () => {
    const result = await run({ url: `${plain.url}/redirect/1`, follow_redirects: false });
    expect(result.status).toBe("up");
    expect(result.data).toMatchObject({ status_code: 302, redirects: 0 });
    expect((await run({ url: `${plain.url}/redirect/1`, follow_redirects: false, expected_status: ["2xx"] })).status).toBe("down");
  });

  it("reports down after more redirects than max_redirects", async () => {
    const result = await run({ url: `${plain.url}/loop`, max_redirects: 2 });
    expect(result.status).toBe("down");
    expect(result.error).toContain("too many redirects");
    expect(result.data.redirects).toBe(2);
  });

  it("refuses a redirect to the cloud metadata address", async () => {
    const result = await run({ url: `${plain.url}/to-metadata` });
    expect(result.status).toBe("down");
    expect(result.error).toContain("refused to contact 169.254.169.254");
    expect(result.data.final_url).toBe("http://169.254.169.254/latest/meta-data/");
  });

  it("refuses a redirect to a host name that resolves to the metadata address", async () => {
    const result = await run({ url: `${plain.url}/to-metadata-name` });
    expect(result.status).toBe("down");
    expect(result.error).toContain("metadata.test (169.254.169.254)");
  });

  it("refuses a redirect to an IPv4-mapped IPv6 metadata address", async () => {
    const result = await run({ url: `${plain.url}/to-mapped-metadata` }, { guard: { allowPrivate: true, ipv6: true } });
    expect(result.status).toBe("down");
    expect(result.error).toContain("169.254.169.254 embedded in an IPv6 address");
  });

  it("refuses a redirect to a non-HTTP scheme", async () => {
    const result = await run({ url: `${plain.url}/to-ftp` });
    expect(result.status).toBe("down");
    expect(result.error).toContain("unsupported URL scheme ftp:");
  });

  it("refuses a host name that resolves to a private address when private targets are not allowed", async () => {
    const result = await run({ url: "http://intranet.test/" }, { guard: { allowPrivate: false, ipv6: false, resolver: testResolver } });
    expect(result.status).toBe("down");
    expect(result.error).toContain("intranet.test (10.20.30.40)");
    expect(result.data.connect_ms).toBeNull();
  });

  it("connects to the address the guard checked for a host name", async () => {
    const result = await run({ url: `http://app.test:${plain.port}/` });
    expect(result.status).toBe("up");
    expect(result.data.ip).toBe("127.0.0.1");
  });

  it("sends the method, headers, body and basic credentials it is configured with", async () => {
    const seen = await echo({
      url: `${plain.url}/echo`,
      method: "POST",
      headers: { "X-Custom": "yes" },
      body: "payload",
      auth: { type: "basic", username: "ann", password: "s3cret" },
    });
    expect(seen).toMatchObject({ method: "POST", body: "payload" });
    expect(seen.headers["x-custom"]).toBe("yes");
    expect(seen.headers.authorization).toBe(`Basic ${btoa("ann:s3cret")}`);
    expect(seen.headers["user-agent"]).toContain("Watchpost");
  });

  it("sends a bearer token", async () => {
    const seen = await echo({ url: `${plain.url}/echo`, auth: { type: "bearer", token: "tok_123" } });
    expect(seen.headers.authorization).toBe("Bearer tok_123");
  });

  it("sends the host name of the URL in the Host header while connecting to the checked address", async () => {
    const seen = await echo({ url: `http://app.test:${plain.port}/echo` });
    expect(seen.headers.host).toBe(`app.test:${plain.port}`);
  });

  it("turns a POST into a GET without body on a 303 redirect", async () => {
    const seen = await echo({ url: `${plain.url}/see-other`, method: "POST", body: "payload" });
    expect(seen).toMatchObject({ method: "GET", body: "" });
  });

  it("does not forward credentials on a redirect to another origin", async () => {
    const before = secure.echoed.length;
    const result = await run({ url: `${plain.url}/cross-origin`, auth: { type: "bearer", token: "tok_123" } });
    expect(result.status).toBe("up");
    const seen = secure.echoed[before];
    expect(seen.headers.host).toBe(`localhost:${secure.port}`);
    expect(seen.headers.authorization).toBeUndefined();
  });

  it("reports degraded when the response is slower than degraded_above_ms", async () => {
    const result = await run({ url: `${plain.url}/slow`, degraded_above_ms: 100 });
    expect(result.status).toBe("degraded");
    expect(result.error).toContain("above degraded_above_ms 100");
    expect((await run({ url: `${plain.url}/slow`, degraded_above_ms: 5000 })).status).toBe("up");
  });

  it("reads at most 1 MiB of the body", async () => {
    const result = await run({ url: `${plain.url}/big` });
    expect(result.status).toBe("up");
    expect(result.data.body_bytes).toBe(1024 * 1024);
  });

  it("reads no body for a HEAD request", async () => {
    const result = await run({ url: `${plain.url}/`, method: "HEAD" });
    expect(result.status).toBe("up");
    expect(result.data.body_bytes).toBe(0);
  });

  it("opens a fresh connection for every check", async () => {
    const before = plain.clientPorts.length;
    await run({ url: `${plain.url}/` });
    await run({ url: `${plain.url}/` });
    const ports = plain.clientPorts.slice(before);
    expect(ports.length).toBe(2);
    expect(ports[0]).not.toBe(ports[1]);
  });

  it("measures the TLS handshake of an https target with a trusted certificate", async () => {
    const result = await run({ url: `${secure.url}/` });
    expect(result.status).toBe("up");
    expect(result.data.tls_ms).toBeGreaterThan(0);
  });

  it("verifies the certificate against the host name in the URL", async () => {
    const result = await run({ url: `https://app.test:${secure.port}/` });
    expect(result.status).toBe("down");
    expect(result.error).toContain("ERR_TLS_CERT_ALTNAME_INVALID");
  });

  it("reports down for an expired certificate", async () => {
    const result = await run({ url: `${expired.url}/` });
    expect(result.status).toBe("down");
    expect(result.error).toContain("CERT_HAS_EXPIRED");
  });

  it("reports the DNS time, connect time and address measured before a TLS handshake that failed", async () => {
    const result = await run({ url: `${expired.url}/` });
    expect(result.status).toBe("down");
    expect(result.data).toMatchObject({ ip: "127.0.0.1", dns_ms: 0, tls_ms: null, ttfb_ms: null });
    expect(result.data.connect_ms).toBeGreaterThanOrEqual(0);
  });

  it("reports the DNS time, connect time and address when the server never completes the TLS handshake", async () => {
    const result = await run({ url: `https://127.0.0.1:${silent.port}/` }, { timeoutMs: 300 });
    expect(result.status).toBe("timeout");
    expect(result.data).toMatchObject({ ip: "127.0.0.1", dns_ms: 0, tls_ms: null });
    expect(result.data.connect_ms).toBeGreaterThanOrEqual(0);
  });

  it("reports the address it was refused by, with no connect time", async () => {
    const result = await run({ url: `http://127.0.0.1:${refusedPort}/` });
    expect(result.data).toMatchObject({ ip: "127.0.0.1", dns_ms: 0, connect_ms: null });
  });

  it("says in words that an https URL reached a server that does not speak TLS, not OpenSSL's code", async () => {
    const port = new URL(plain.url).port;
    const result = await run({ url: `https://127.0.0.1:${port}/` });
    expect(result.status).toBe("down");
    expect(result.error).toBe(`TLS handshake failed: the server did not answer in TLS (plain text on this port?) (127.0.0.1:${port})`);
  });

  it("reports 0 ms of DNS for an IP address and the lookup's time for a name", async () => {
    expect((await run({ url: `${plain.url}/` })).data.dns_ms).toBe(0);
    const named = await run({ url: `${plain.url.replace("127.0.0.1", "localhost")}/` });
    expect(named.status).toBe("up");
    expect(named.data.dns_ms).toBeNumber();
  });

  it("reports down for an untrusted self-signed certificate unless tls_verify is false", async () => {
    const strict = await run({ url: `${selfSigned.url}/` });
    expect(strict.status).toBe("down");
    expect(strict.error).toContain("TLS certificate rejected");
    expect((await run({ url: `${selfSigned.url}/`, tls_verify: false })).status).toBe("up");
  });
});

/** Runs the check against /echo and returns what the server saw. */
async function echo(config: HttpConfig) {
  const before = plain.echoed.length;
  const result = await run(config);
  expect(result.status).toBe("up");
  expect(plain.echoed.length).toBe(before + 1);
  return plain.echoed[before];
}

describe("http check assertions", () => {
  it("reports up with every assertion's outcome when all hold", async () => {
    const result = await run({
      url: `${plain.url}/json`,
      assertions: [
        { source: "status_code", operator: "equals", target: 200 },
        { source: "header", property: "x-version", operator: "matches", target: "^1\\." },
        { source: "json", property: "$.items[*].id", operator: "contains", target: 2 },
        { source: "body", operator: "not_contains", target: "error" },
      ],
    });
    expect(result.status).toBe("up");
    expect(result.data.assertions_failed).toBe(0);
    expect((result.data.assertions as Array<{ passed: boolean }>).map((o) => o.passed)).toEqual([true, true, true, true]);
  });

  it("reports down naming the failed assertion", async () => {
    const result = await run({ url: `${plain.url}/json`, assertions: [{ source: "json", property: "$.status", operator: "equals", target: "fine" }] });
    expect(result.status).toBe("down");
    expect(result.error).toBe('assertion failed: #1 json $.status equals "fine" (got "ok")');
    expect(result.data.assertions_failed).toBe(1);
  });

  it("reports degraded when the failed assertion says so", async () => {
    const result = await run({ url: `${plain.url}/slow`, assertions: [{ source: "response_time", operator: "less_than", target: 100, severity: "degraded" }] });
    expect(result.status).toBe("degraded");
    expect(result.error).toStartWith("assertion failed: #1 response_time less than 100");
  });

  it("lets a status_code assertion replace expected_status", async () => {
    const missing = await run({ url: `${plain.url}/nowhere`, assertions: [{ source: "status_code", operator: "equals", target: 404 }] });
    expect(missing.status).toBe("up");
    const plainMissing = await run({ url: `${plain.url}/nowhere`, assertions: [{ source: "body", operator: "contains", target: "not found" }] });
    expect(plainMissing.status).toBe("down");
    expect(plainMissing.error).toContain("unexpected status 404");
    expect(plainMissing.data.assertions_failed).toBe(0);
  });

  it("leaves the assertion fields null when the config has none", async () => {
    const result = await run({ url: `${plain.url}/json` });
    expect(result.data.assertions).toBeNull();
    expect(result.data.assertions_failed).toBeNull();
  });
});
