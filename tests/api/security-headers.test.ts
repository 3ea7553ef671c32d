/**
 * Browser-facing headers on every kind of answer of a running API: the dashboard's strict CSP
 * (no inline script, not framable), the status pages' CSP (their own theme, nothing else),
 * nosniff / Referrer-Policy / frame denial everywhere, and HSTS only behind an https PUBLIC_BASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createHash } from "node:crypto";
import { client, startTestApi, type TestApi } from "../support/api.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { orgWithPage } from "../status-pages/support.ts";

let db: TestDatabase;
let api: TestApi;
let https: TestApi;
beforeAll(async () => {
  db = await createTestDatabase();
  api = await startTestApi({ PUBLIC_BASE_URL: "http://127.0.0.1" }, db);
  https = await startTestApi({ PUBLIC_BASE_URL: "https://status.example.com" }, db);
}, 60_000);
afterAll(async () => {
  await https?.stop();
  await api?.stop();
  await db?.drop();
});

const HTML = { accept: "text/html,application/xhtml+xml,*/*;q=0.8" };

/** The directives of a Content-Security-Policy header, by name. */
function directives(csp: string | null): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const part of (csp ?? "").split(";")) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) out.set(name.toLowerCase(), values);
  }
  return out;
}

describe("security headers", () => {
  it("sends a strict CSP without inline script and frame-ancestors 'none' on the dashboard", async () => {
    for (const path of ["/", "/monitors", "/status-pages/sp_1/edit"]) {
      const res = await fetch(`${api.url}${path}`, { headers: HTML });
      expect(res.status).toBe(200);
      const csp = directives(res.headers.get("content-security-policy"));
      expect({ path, script: csp.get("script-src") }).toEqual({ path, script: ["'self'"] });
      expect(csp.get("default-src")).toEqual(["'self'"]);
      expect(csp.get("object-src")).toEqual(["'none'"]);
      expect(csp.get("base-uri")).toEqual(["'none'"]);
      expect(csp.get("frame-ancestors")).toEqual(["'none'"]);
      expect(csp.get("form-action")).toEqual(["'self'"]);
      for (const values of csp.values()) expect(values).not.toContain("'unsafe-inline'");
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
      // The dashboard itself holds no inline script that such a policy would block.
      expect(await res.text()).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    }
  });

  it("sends a status page CSP that allows its own theme (its one stylesheet, https images) and nothing else", async () => {
    const { slug } = await orgWithPage(api, { access: { mode: "password", password: "page password 1" } });
    const { slug: open } = await orgWithPage(api);
    for (const path of [`/status/${open}`, `/status/${slug}`, "/status/no-such-page"]) {
      const res = await fetch(`${api.url}${path}`, { headers: HTML });
      const body = await res.text();
      const csp = directives(res.headers.get("content-security-policy"));
      expect({ path, def: csp.get("default-src") }).toEqual({ path, def: ["'none'"] });
      // Exactly the page's own <style> element, by its hash; no other inline style applies.
      const style = /<style>([\s\S]*?)<\/style>/.exec(body)?.[1];
      const allowed = style === undefined ? "'none'" : `'sha256-${createHash("sha256").update(style).digest("base64")}'`;
      expect({ path, style: csp.get("style-src") }).toEqual({ path, style: [allowed] });
      expect(body).not.toContain(" style=");
      expect(csp.get("img-src")).toEqual(["https:", "data:"]);
      expect(csp.get("script-src")).toBeUndefined();
      expect(csp.get("frame-ancestors")).toEqual(["'none'"]);
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("referrer-policy")).toBe("same-origin");
    }
  });

  it("sends nosniff, a referrer policy, frame denial and a no-content CSP on every other kind of answer", async () => {
    const { slug, org, apiMon } = await orgWithPage(api);
    const call = client(api.url, { key: org.api_key });
    const html = await (await fetch(`${api.url}/`, { headers: HTML })).text();
    const script = /src="([^"]+\.js)"/.exec(html)![1]!;
    const answers: [string, Response][] = [
      ["api json", await fetch(`${api.url}/api/v1/monitors`, { headers: { authorization: `Bearer ${org.api_key}` } })],
      ["api 401", await fetch(`${api.url}/api/v1/monitors`)],
      ["api 404", await fetch(`${api.url}/api/v1/no-such-route`)],
      ["api 413", await fetch(`${api.url}/api/v1/auth/signin`, { method: "POST", headers: { "content-type": "application/json" }, body: "x".repeat(2_000_000) })],
      ["openapi", await fetch(`${api.url}/openapi.json`)],
      ["healthz", await fetch(`${api.url}/healthz`)],
      ["dashboard asset", await fetch(`${api.url}${script}`)],
      ["status json", await fetch(`${api.url}/status/${slug}/index.json`)],
      ["status json 404", await fetch(`${api.url}/status/no-such-page/index.json`)],
      ["feed", await fetch(`${api.url}/status/${slug}/feed.rss`)],
      ["badge", await fetch(`${api.url}/badge/${apiMon}/status.svg`)],
      ["unsubscribe 400", await fetch(`${api.url}/api/v1/unsubscribe?token=x`)],
    ];
    expect((await call("GET", "/api/v1/monitors")).status).toBe(200);
    for (const [what, res] of answers) {
      expect({ what, nosniff: res.headers.get("x-content-type-options") }).toEqual({ what, nosniff: "nosniff" });
      expect({ what, referrer: !!res.headers.get("referrer-policy") }).toEqual({ what, referrer: true });
      expect({ what, frame: res.headers.get("x-frame-options") }).toEqual({ what, frame: "DENY" });
      const csp = directives(res.headers.get("content-security-policy"));
      expect({ what, ancestors: csp.get("frame-ancestors") }).toEqual({ what, ancestors: ["'none'"] });
      // Nothing but the dashboard may run script, whatever a browser makes of the answer.
      if (what !== "dashboard asset") expect({ what, script: (csp.get("script-src") ?? csp.get("default-src"))?.join(" ") }).toEqual({ what, script: "'none'" });
    }
  });

  it("keeps API answers out of shared and browser caches, and isolates the dashboard's window", async () => {
    const { org } = await orgWithPage(api);
    const call = client(api.url, { key: org.api_key });
    // The one-time secret of a new key must not sit in a cache.
    const created = await call("POST", "/api/v1/api-keys", { name: "cache test", scopes: ["monitors:read"] });
    expect(created.status).toBe(201);
    for (const res of [created, await call("GET", "/api/v1/monitors"), await call("GET", "/api/v1/no-such-route")]) {
      expect(res.headers.get("cache-control")).toBe("no-store");
    }
    // What sets its own caching keeps it (the public OpenAPI document).
    expect((await fetch(`${api.url}/api/v1/openapi.json`)).headers.get("cache-control")).toBe("public, max-age=60");
    const dashboard = await fetch(`${api.url}/`, { headers: HTML });
    expect(dashboard.headers.get("cross-origin-opener-policy")).toBe("same-origin");
  });

  it("sends HSTS only when PUBLIC_BASE_URL is https", async () => {
    for (const path of ["/", "/api/v1/monitors", "/healthz", "/status/none"]) {
      const secure = await fetch(`${https.url}${path}`, { headers: HTML });
      expect({ path, hsts: secure.headers.get("strict-transport-security") }).toEqual({ path, hsts: "max-age=31536000; includeSubDomains" });
      const plain = await fetch(`${api.url}${path}`, { headers: HTML });
      expect({ path, hsts: plain.headers.get("strict-transport-security") }).toEqual({ path, hsts: null });
    }
  });
});
