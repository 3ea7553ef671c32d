import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { startTestApi, type TestApi } from "../support/api.ts";
import { orgWithPage, storeRun } from "./support.ts";

const ARTIFACTS = join(import.meta.dir, "..", "..", "test-artifacts");
const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"];

let api: TestApi;
let browser: Browser;
beforeAll(async () => {
  api = await startTestApi();
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
  mkdirSync(ARTIFACTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await api.stop();
});

describe("status page in a real browser", () => {
  it("loads with no console errors, is usable without JavaScript, and is saved as a screenshot", async () => {
    const { slug, org, apiMon, webMon, call, componentIds } = await orgWithPage(api);
    await storeRun(api, org.org_id, apiMon, "up", 5);
    await storeRun(api, org.org_id, webMon, "degraded", 5);
    await call("POST", "/api/v1/incidents", { title: "Elevated latency", impact: "minor", message: "Some requests are slow", component_ids: [componentIds[1]] });
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1100, height: 900 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    page.on("requestfailed", (r) => problems.push(`requestfailed: ${r.url()}`));
    const res = await page.goto(`${api.url}/status/${slug}`, { waitUntil: "load" });
    expect(res?.status()).toBe(200);
    expect(await page.title()).toBe("Acme Status status");
    expect(await page.locator("h1").textContent()).toBe("Acme Status");
    expect(await page.locator("[role=status]").textContent()).toBe("Degraded performance");
    expect(await page.locator("ol.bars").count()).toBe(3);
    expect(await page.locator("ol.bars li").count()).toBe(270);
    expect(await page.getByLabel("Email address for incident updates").count()).toBe(1);
    expect(await page.locator("article.incident h3").first().textContent()).toBe("Elevated latency");
    // The theme's colours arrive as CSS variables.
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor).catch(() => null);
    if (bg !== null) expect(bg).toBe("rgb(247, 248, 250)");
    await page.screenshot({ path: join(ARTIFACTS, "status-page.png"), fullPage: true });
    expect(problems).toEqual([]);
    await context.close();
  });

  it("renders badges as well-formed SVG", async () => {
    const { apiMon, org } = await orgWithPage(api);
    await storeRun(api, org.org_id, apiMon, "up", 2);
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${api.url}/status/none`).catch(() => {});
    for (const kind of ["status.svg", "uptime.svg?period=7d", "response-time.svg"]) {
      const text = await (await fetch(`${api.url}/badge/${apiMon}/${kind}`)).text();
      const parsed = await page.evaluate((svg) => {
        const doc = new DOMParser().parseFromString(svg, "image/svg+xml");
        return { error: doc.getElementsByTagName("parsererror").length, root: doc.documentElement.nodeName, title: doc.querySelector("title")?.textContent ?? "" };
      }, text);
      expect(parsed).toMatchObject({ error: 0, root: "svg" });
      expect(parsed.title.length).toBeGreaterThan(0);
    }
    await context.close();
  });
});
