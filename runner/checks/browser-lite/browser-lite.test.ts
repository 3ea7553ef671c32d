import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expectWellFormed } from "../contract.ts";
import type { BrowserPool } from "../browser/browser-pool.ts";
import { browserCtx, html, never, startPageServer, testPool } from "../browser/test-support.ts";
import { runCheck } from "../registry.ts";
import { closedPort } from "../test-support/loopback-servers.ts";
import { createTestPki } from "../test-support/test-pki.ts";
import { CheckAbortedError, CheckUnavailableError, type CheckResult } from "../types.ts";
import { browserLiteCheck } from "./browser-lite.ts";
import type { BrowserLiteConfig } from "./browser-lite-schema.ts";

// Real browsers on a machine shared with other work: generous per-test time.
setDefaultTimeout(60_000);

let pool: BrowserPool;
let site: ReturnType<typeof startPageServer>;
/** Stands for a private service: the guard must keep every request away from it. */
let secret: ReturnType<typeof startPageServer>;

beforeAll(async () => {
  secret = startPageServer(
    {
      "/secret.png": () => new Response("private", { headers: { "content-type": "image/png" } }),
      "/data": () => Response.json({ private: true }),
      "/ws": (req, srv) => (srv.upgrade(req, { data: undefined }) ? undefined : new Response("no", { status: 400 })),
      "/landing": () => html("<p>private landing</p>"),
    },
    "127.0.0.2",
  );
  site = startPageServer({
    "/": () => html("<title>Shop</title><h1>Welcome to the shop</h1><img src='/logo.svg'>"),
    "/logo.svg": () => new Response("<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'/>", { headers: { "content-type": "image/svg+xml" } }),
    "/console": () => html("<p>hello</p><script>console.error('widget failed'); setTimeout(() => { throw new Error('late boom') }, 0)</script>"),
    "/broken-assets": () => html("<p>hello</p><img src='/missing.png'><script src='/gone.js'></script>"),
    "/error": () => html("<p>Internal error</p>", { status: 503 }),
    "/hang": never,
    "/slow-image": () => html("<p>content is here</p><img src='/hang'>"),
    "/redirect-private": () => Response.redirect(secret.url("/landing"), 302),
    "/reaches-private": () =>
      html(`<p>public page</p>
        <img src="${secret.url("/secret.png")}">
        <img src="/redirect-private">
        <script>
          fetch("${secret.url("/data")}").catch(() => {});
          try { new WebSocket("ws://127.0.0.2:${secret.port}/ws"); } catch {}
        </script>`),
  });
  pool = await testPool({ size: 2 });
});
afterAll(async () => {
  await pool?.close();
  site?.stop();
  secret?.stop();
});

const lite = (config: Partial<BrowserLiteConfig> & { url: string }, o: Parameters<typeof browserCtx>[1] = {}): Promise<CheckResult> =>
  browserLiteCheck.run(Value.Default(browserLiteCheck.configSchema, config) as BrowserLiteConfig, browserCtx(pool, o));
const isJpeg = (data: Uint8Array) => data[0] === 0xff && data[1] === 0xd8;

describe("browser_lite check", () => {
  it("loads a page and reports it up with navigation timings, transfer size, title and no screenshot", async () => {
    const r = await lite({ url: site.url("/"), keyword: "Welcome" });
    expectWellFormed(browserLiteCheck, r);
    expect(r.status).toBe("up");
    expect(r.error).toBeUndefined();
    expect(r.data).toMatchObject({ engine: "chromium", http_status: 200, title: "Shop", keyword_found: true, console_errors: 0, failed_requests: 0, final_url: site.url("/") });
    for (const f of ["ttfb_ms", "dom_content_loaded_ms", "load_ms"] as const) expect(r.data[f]).toBeGreaterThan(0);
    expect(r.data.load_ms as number).toBeGreaterThanOrEqual(r.data.dom_content_loaded_ms as number);
    expect(r.data.transfer_bytes as number).toBeGreaterThan(100);
    expect(r.data.request_count).toBe(2);
    expect(r.data.browser_memory_mb as number).toBeGreaterThan(10);
    expect(r.data.screenshots).toBeNull();
    expect(r.artifacts).toBeUndefined();
    expect(r.data.response_time).toBe(r.duration_ms);
  });

  it("degrades a page with console errors or uncaught exceptions, listing them", async () => {
    const r = await lite({ url: site.url("/console") });
    expectWellFormed(browserLiteCheck, r);
    expect(r.status).toBe("degraded");
    expect(r.error).toContain("console error");
    expect(r.data.console_errors).toBe(2);
    expect(r.data.console_error_messages).toEqual(["widget failed", "uncaught Error: late boom"]);
  });

  it("degrades a page whose subresources fail, and lets the monitor ignore both kinds of noise", async () => {
    const r = await lite({ url: site.url("/broken-assets") });
    expect(r.status).toBe("degraded");
    expect(r.data.failed_requests).toBe(2);
    expect((r.data.failed_request_details as string[]).join("\n")).toContain(`GET ${site.url("/missing.png")}: HTTP 404`);
    const quiet = await lite({ url: site.url("/broken-assets"), degrade_on_failed_requests: false });
    expect(quiet.status).toBe("up");
    const calm = await lite({ url: site.url("/console"), degrade_on_console_errors: false });
    expect(calm.status).toBe("up");
  });

  it("degrades a page slower than degraded_above_ms", async () => {
    const r = await lite({ url: site.url("/"), degraded_above_ms: 1 });
    expect(r.status).toBe("degraded");
    expect(r.error).toContain("above degraded_above_ms 1");
  });

  it("is down with a failure screenshot when the keyword is missing", async () => {
    const r = await lite({ url: site.url("/"), keyword: "Sold out" });
    expectWellFormed(browserLiteCheck, r);
    expect(r.status).toBe("down");
    expect(r.error).toBe('keyword not found in the rendered page: "Sold out"');
    expect(r.data.keyword_found).toBe(false);
    expect(r.data.screenshots).toEqual(["failure"]);
    expect(r.artifacts).toHaveLength(1);
    expect(r.artifacts![0]!.content_type).toBe("image/jpeg");
    expect(isJpeg(r.artifacts![0]!.data)).toBe(true);
  });

  it("is down for a main-document status outside expected_status, and up when it is expected", async () => {
    const r = await lite({ url: site.url("/error") });
    expect(r.status).toBe("down");
    expect(r.error).toBe("unexpected status 503 (expected 200-399)");
    expect(r.data.http_status).toBe(503);
    expect((await lite({ url: site.url("/error"), expected_status: [503] })).status).toBe("up");
  });

  it("times out on a page that never loads, with what it waited for and a screenshot", async () => {
    const started = performance.now();
    const r = await lite({ url: site.url("/hang") }, { timeoutMs: 1500 });
    expectWellFormed(browserLiteCheck, r);
    expect(r.status).toBe("timeout");
    expect(r.error).toBe("not finished within 1500 ms (waiting for the page's load)");
    expect(r.duration_ms).toBeGreaterThanOrEqual(1490);
    expect(performance.now() - started).toBeLessThan(8000);
    expect(r.data.screenshots).toEqual(["failure"]);
  });

  it("times out when a subresource never finishes and wait_until is load, but not with domcontentloaded", async () => {
    expect((await lite({ url: site.url("/slow-image") }, { timeoutMs: 1500 })).status).toBe("timeout");
    const r = await lite({ url: site.url("/slow-image"), wait_until: "domcontentloaded", keyword: "content is here" }, { timeoutMs: 3000 });
    expect(r.status).toBe("up");
    expect(r.data.load_ms).toBeNull();
  });

  it("refuses its loopback target when private addresses are not allowed", async () => {
    const before = site.total();
    const r = await lite({ url: site.url("/") }, { guard: { allowPrivate: false, ipv6: false } });
    expectWellFormed(browserLiteCheck, r);
    expect(r.status).toBe("down");
    expect(r.error).toContain("refused to contact 127.0.0.1");
    expect(site.total()).toBe(before);
  });

  it("keeps every request of a page away from a private address while private addresses are refused", async () => {
    const page = `http://shop.test:${site.port}/reaches-private`;
    const r = await lite({ url: page }, { guard: { allowPrivate: false, ipv6: false, resolver: (await import("../browser/test-support.ts")).publicResolver }, standIns: ["shop.test"] });
    expectWellFormed(browserLiteCheck, r);
    // The image, the redirect hop (never seen by route handlers), fetch() and the WebSocket: none reached it.
    expect(secret.total()).toBe(0);
    expect(site.hits.get("/redirect-private")).toBe(1);
    expect(r.status).toBe("degraded");
    expect(r.error).toContain("private-address guard refused");
    const blocked = (r.data.blocked_requests as string[]).join("\n");
    expect(blocked).toContain(`http://127.0.0.2:${secret.port}/secret.png: refused to contact 127.0.0.2: loopback address`);
    expect(blocked).toContain(`http://127.0.0.2:${secret.port}/landing`);
    expect(r.data.failed_requests).toBe(0);
  });

  it("is down when the page's URL redirects to a refused private address", async () => {
    const r = await lite({ url: `http://shop.test:${site.port}/redirect-private` }, { guard: { allowPrivate: false, ipv6: false, resolver: (await import("../browser/test-support.ts")).publicResolver }, standIns: ["shop.test"] });
    expect(r.status).toBe("down");
    expect(r.error).toContain("refused to contact 127.0.0.2");
    expect(secret.hits.get("/landing") ?? 0).toBe(0);
  });

  it("is down when the host does not resolve", async () => {
    const r = await lite({ url: "http://nowhere.invalid/" });
    expect(r.status).toBe("down");
    expect(r.error).toContain("could not resolve nowhere.invalid");
    expect(r.data.http_status).toBeNull();
  });

  it("is down naming the page's untrusted certificate, not a request the browser made in the background", async () => {
    const pki = createTestPki();
    const untrusted = Bun.serve({ hostname: "127.0.0.1", port: 0, tls: pki.selfSigned(30), fetch: () => html("<p>secret shop</p>") });
    try {
      const r = await lite({ url: `https://127.0.0.1:${untrusted.port}/` });
      expect(r.status).toBe("down");
      expect(r.error).toBe(`TLS certificate rejected: not issued by a trusted authority (ERR_CERT_AUTHORITY_INVALID) at https://127.0.0.1:${untrusted.port}/`);
    } finally {
      untrusted.stop(true);
      pki.cleanup();
    }
  });

  it("is down when the connection is refused, with no HTTP status: the guard's own answer is not the site's", async () => {
    const port = await closedPort();
    const r = await lite({ url: `http://127.0.0.1:${port}/` });
    expect(r.status).toBe("down");
    expect(r.error).toBe(`connection refused (127.0.0.1:${port})`);
    expect(r.data.http_status).toBeNull();
    expect(r.data.transfer_bytes).toBe(0);
  });

  it("cannot run without a browser of its engine: CheckUnavailableError, not a down result", async () => {
    await expect(browserLiteCheck.run({ url: site.url("/") }, { ...browserCtx(pool), browsers: undefined })).rejects.toBeInstanceOf(CheckUnavailableError);
    await expect(runCheck({ type: "browser_lite", config: { url: site.url("/"), engine: "webkit" }, timeoutMs: 5000, allowPrivate: true, ipv6: false }, { browsers: pool })).rejects.toThrow(
      "no webkit browser here (BROWSERS=chromium)",
    );
  });

  it("rejects with CheckAbortedError soon after the caller aborts", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const started = performance.now();
    await expect(lite({ url: site.url("/hang") }, { signal: controller.signal })).rejects.toBeInstanceOf(CheckAbortedError);
    expect(performance.now() - started).toBeLessThan(3000);
  });

  it("runs through the registry with its config validated", async () => {
    const r = await runCheck({ type: "browser_lite", config: { url: site.url("/") }, timeoutMs: 5000, allowPrivate: true, ipv6: false }, { browsers: pool, endpoints: {} });
    expect(r.status).toBe("up");
    await expect(runCheck({ type: "browser_lite", config: { url: site.url("/"), script: "alert(1)" }, timeoutMs: 5000, allowPrivate: true, ipv6: false }, { browsers: pool })).rejects.toThrow("invalid browser_lite config");
  });
});

describe("browser_lite check with a private CA", () => {
  let pki: ReturnType<typeof createTestPki>;
  let internal: ReturnType<typeof Bun.serve>;
  beforeAll(() => {
    pki = createTestPki();
    internal = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      tls: pki.leaf(30),
      fetch(req, srv) {
        const path = new URL(req.url).pathname;
        if (path === "/ws") return srv.upgrade(req, { data: undefined }) ? undefined : new Response("no", { status: 400 });
        if (path === "/logo.svg") return new Response("<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'/>", { headers: { "content-type": "image/svg+xml" } });
        return html(`<title>Intranet</title><h1 id="h">Internal status</h1><img src="/logo.svg">
          <script>const ws = new WebSocket("wss://" + location.host + "/ws"); ws.onmessage = (e) => { document.getElementById("h").textContent += " " + e.data }</script>`);
      },
      websocket: {
        open: (ws) => void ws.send("socket-ok"),
        message() {},
      },
    });
  });
  afterAll(() => {
    internal?.stop(true);
    pki?.cleanup();
  });
  const url = () => `https://127.0.0.1:${internal.port}/`;

  it("trusts the extra CAs the http check trusts (trustedCa): page, subresource and wss load", async () => {
    const r = await lite({ url: url(), keyword: "socket-ok", wait_until: "networkidle" }, { endpoints: { trustedCa: [pki.caPem] } });
    expectWellFormed(browserLiteCheck, r);
    expect(r.error).toBeUndefined();
    expect(r.status).toBe("up");
    expect(r.data.http_status).toBe(200);
    expect(r.data.failed_requests).toBe(0);
    expect(r.data.keyword_found).toBe(true);
  });

  it("still refuses an expired, a wrongly named and a self-signed certificate when extra CAs are trusted", async () => {
    const cases = [
      { tls: pki.leaf(-1), reason: "CERT_HAS_EXPIRED" },
      { tls: pki.leaf(30, ["DNS:intranet.example"]), reason: "ERR_TLS_CERT_ALTNAME_INVALID" },
      { tls: pki.selfSigned(30), reason: "DEPTH_ZERO_SELF_SIGNED_CERT" },
    ];
    for (const c of cases) {
      const bad = Bun.serve({ hostname: "127.0.0.1", port: 0, tls: c.tls, fetch: () => html("<p>should not load</p>") });
      try {
        const r = await lite({ url: `https://127.0.0.1:${bad.port}/` }, { endpoints: { trustedCa: [pki.caPem] } });
        expect(r.status).toBe("down");
        expect(r.error).toStartWith("TLS certificate rejected:");
        expect(r.error).toContain(c.reason);
        expect(r.data.http_status).toBeNull();
      } finally {
        bad.stop(true);
      }
    }
  });

  it("trusts NODE_EXTRA_CA_CERTS of the process, as the worker's config passes it to startBrowserPool", async () => {
    const dir = mkdtempSync(join(tmpdir(), "wp-extra-ca-"));
    try {
      writeFileSync(join(dir, "ca.pem"), pki.caPem);
      writeFileSync(
        join(dir, "run.ts"),
        `import { startBrowserPool } from ${JSON.stringify(join(import.meta.dir, "../browser/browser-env.ts"))};
import { loadWorkerConfig } from ${JSON.stringify(join(import.meta.dir, "../../cloud/config.ts"))};
import { silentLogger } from ${JSON.stringify(join(import.meta.dir, "../../../core/log.ts"))};
import { browserLiteCheck } from ${JSON.stringify(join(import.meta.dir, "browser-lite.ts"))};
const pool = await startBrowserPool(loadWorkerConfig(process.env, ["--region", "local"]), silentLogger);
const config = { url: ${JSON.stringify(url())}, engine: "chromium", wait_until: "load" };
const r = await browserLiteCheck.run(config as never, { timeoutMs: 15000, guard: { allowPrivate: true, ipv6: false }, browsers: pool! });
await pool!.close();
console.log(JSON.stringify({ status: r.status, error: r.error ?? null, http_status: r.data.http_status }));`,
      );
      const child = Bun.spawn(["bun", join(dir, "run.ts")], { env: { ...process.env, BROWSERS: "chromium", BROWSER_POOL_SIZE: "1", NODE_EXTRA_CA_CERTS: join(dir, "ca.pem") }, stdout: "pipe", stderr: "pipe" });
      const [out, err] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
      expect(err.trim()).toBe("");
      expect(JSON.parse(out.trim().split("\n").at(-1)!)).toEqual({ status: "up", error: null, http_status: 200 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
