/**
 * The API reference at /docs (Scalar, served from our own files): it renders the operations of the
 * same OpenAPI document the API serves, in a real browser that can reach nothing but loopback, under
 * its Content-Security-Policy with no violation; and its HTML and scripts answer from this server.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { chromium as playwright } from "playwright-core";
import { CHROMIUM_ARGS } from "../../runner/checks/browser/engines.ts";
import { startTestApi, type TestApi } from "../support/api.ts";
import { CHROMIUM, launchChromium } from "./browser.ts";

let api: TestApi;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
beforeAll(async () => {
  api = await startTestApi({}, undefined, undefined, { workerRegions: [], alerting: false });
  chromium = await launchChromium();
}, 90_000);
afterAll(async () => {
  await chromium?.close();
  await api?.stop();
}, 30_000);

const LOOPBACK = /^(https?|wss?):\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?\//;

describe("API reference at /docs", () => {
  it("renders the operation list offline with no CSP violation", async () => {
    const page = await chromium.context.newPage();
    const blocked: string[] = [];
    await page.route(
      (url) => !LOOPBACK.test(url.href) && !url.href.startsWith("data:") && !url.href.startsWith("blob:"),
      (route) => {
        blocked.push(route.request().url());
        return route.abort("blockedbyclient");
      },
    );
    const violations: string[] = [];
    page.on("console", (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(`console: ${m.text()}`);
    });
    page.on("pageerror", (e) => violations.push(`pageerror: ${e.message}`));
    await page.exposeFunction("__cspViolation", (v: string) => violations.push(v));
    await page.addInitScript(() => {
      document.addEventListener("securitypolicyviolation", (e) => (window as unknown as { __cspViolation(v: string): void }).__cspViolation(`${e.violatedDirective} ${e.blockedURI}`));
    });
    const res = await page.goto(`${api.url}/docs`);
    expect(res?.status()).toBe(200);
    expect(res?.headers()["content-security-policy"]).toContain("script-src 'self'");
    // The sidebar lists the tags of /openapi.json; the monitors group opens onto its operations.
    const group = page.getByRole("button", { name: /^Open Group - monitors$/i });
    await group.waitFor({ timeout: 30_000 });
    await group.click();
    await page.getByText(/^Create a monitor/i).first().waitFor({ timeout: 15_000 });
    await page.getByText(/^List monitors/i).first().waitFor({ timeout: 15_000 });
    await page.waitForTimeout(500);
    expect(violations).toEqual([]);
    expect(blocked).toEqual([]);
    // The policy is in force: an inline script does not run.
    const ran = await page.evaluate(() => {
      const s = document.createElement("script");
      s.textContent = "window.__inline = true";
      document.body.append(s);
      return (window as unknown as { __inline?: boolean }).__inline === true;
    });
    expect(ran).toBe(false);
    await page.close();
  }, 90_000);

  it("answers the same reference at /docs/ (trailing slash), in a browser too", async () => {
    for (const path of ["/docs/", "/docs/?tag=monitors"]) {
      const res = await fetch(`${api.url}${path}`, { redirect: "manual" });
      expect(`${path} ${res.status} ${res.headers.get("content-type")}`).toBe(`${path} 200 text/html; charset=utf-8`);
      expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
      expect(await res.text()).toContain("<title>Watchpost API reference</title>");
    }
    const page = await chromium.context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    const res = await page.goto(`${api.url}/docs/`);
    expect(res?.status()).toBe(200);
    await page.getByRole("button", { name: /^Open Group - monitors$/i }).waitFor({ timeout: 30_000 });
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it("is linked from the dashboard's header", async () => {
    const page = await chromium.context.newPage();
    await page.goto(`${api.url}/signup`);
    await page.getByLabel("Your name").fill("Dana");
    await page.getByLabel("Email").fill(`dana-${Date.now()}@example.test`);
    await page.getByLabel("Password").fill("correct horse battery");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByRole("navigation", { name: "Main" }).waitFor({ timeout: 20_000 });
    await page.getByRole("link", { name: "API reference" }).click();
    await page.waitForURL(`${api.url}/docs`, { timeout: 15_000 });
    await page.getByRole("button", { name: /^Open Group - monitors$/i }).waitFor({ timeout: 30_000 });
    await page.close();
  }, 90_000);

  it("sends its test requests to this server, not through a proxy, when reached by a host name", async () => {
    // Scalar can send requests through proxy.scalar.com (refused here by connect-src 'self'); a deployment is
    // reached by its name, not loopback, and "Test Request" must reach it directly.
    const browser = await playwright.launch({ executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_ARGS, "--host-resolver-rules=MAP watchpost.test 127.0.0.1"] });
    try {
      const origin = `http://watchpost.test:${new URL(api.url).port}`;
      const page = await browser.newPage();
      const elsewhere: string[] = [];
      await page.route(
        (url) => url.origin !== origin && !url.href.startsWith("data:") && !url.href.startsWith("blob:"),
        (route) => {
          elsewhere.push(route.request().url());
          return route.abort("blockedbyclient");
        },
      );
      await page.goto(`${origin}/docs`);
      await page.getByRole("button", { name: /Test Request/i }).first().click();
      // Whichever operation the reference lists first: its test request must go straight to this server.
      const sent = page.waitForRequest((r) => r.url().startsWith(`${origin}/api/v1/`) && r.resourceType() !== "document" && !r.url().endsWith("/openapi.json"), { timeout: 20_000 });
      await page.getByRole("button", { name: /^Send/i }).first().click();
      await sent;
      expect(elsewhere).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 60_000);

  it("answers HTML whose scripts are served by this server, outside the API rate limits", async () => {
    const res = await fetch(`${api.url}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.headers.get("x-ratelimit-limit")).toBeNull();
    const html = await res.text();
    // Styles: a <style> element only with this load's nonce (the one the page hands to Scalar); no inline script, no eval.
    const nonce = html.match(/<meta property="csp-nonce" content="([^"]+)">/)![1]!;
    const csp = res.headers.get("content-security-policy")!;
    expect(csp).toContain(`style-src-elem 'self' 'nonce-${nonce}'`);
    expect(csp).toContain("script-src 'self';");
    expect(csp).not.toMatch(/unsafe-eval|style-src-elem[^;]*unsafe-inline|script-src[^;]*unsafe-inline/);
    const again = await (await fetch(`${api.url}/docs`)).text();
    expect(again).not.toContain(nonce);
    const scripts = [...html.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts.length).toBeGreaterThan(0);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    let served = "";
    for (const src of scripts) {
      expect(src.startsWith("/")).toBe(true);
      const asset = await fetch(`${api.url}${src}`);
      expect(asset.status).toBe(200);
      expect(asset.headers.get("content-type")).toContain("javascript");
      expect(asset.headers.get("x-ratelimit-limit")).toBeNull();
      served += await asset.text();
    }
    expect(served).toContain("createApiReference");
    // The document it reads is the one the API serves.
    expect(served).toContain('"url":"/openapi.json"');
    expect((await fetch(`${api.url}/openapi.json`)).status).toBe(200);
  }, 30_000);
});
