/**
 * Prometheus metrics are not for the internet: the API's public listener (the one the reverse proxy
 * forwards to) does not answer /metrics; the API serves them, with /healthz, on METRICS_PORT, a
 * separate listener on METRICS_HOST (127.0.0.1 unless set) that the proxy never reaches.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { startTestApi, type TestApi } from "../support/api.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";

let db: TestDatabase;
let plain: TestApi;
let scraped: TestApi;
beforeAll(async () => {
  db = await createTestDatabase();
  plain = await startTestApi({}, db);
  scraped = await startTestApi({ METRICS_PORT: "0" }, db);
}, 60_000);
afterAll(async () => {
  await scraped?.stop();
  await plain?.stop();
  await db?.drop();
});

describe("the API's metrics listener", () => {
  it("does not serve /metrics on the public listener", async () => {
    for (const api of [plain, scraped]) {
      await fetch(`${api.url}/healthz`);
      for (const path of ["/metrics", "/metrics/"]) {
        const res = await fetch(`${api.url}${path}`, { headers: { accept: "text/plain" } });
        expect({ path, status: res.status }).toEqual({ path, status: 404 });
        expect(await res.text()).not.toContain("watchpost_");
      }
      // /api/v1/metrics is the organisation's own per-monitor scrape (docs/metrics.md): never without a credential.
      const org = await fetch(`${api.url}/api/v1/metrics`, { headers: { accept: "text/plain" } });
      expect(org.status).toBe(401);
      expect(await org.text()).not.toContain("watchpost_");
    }
  });

  it("serves the API's metrics and /healthz on METRICS_PORT, and nothing of the API there", async () => {
    const metricsUrl = scraped.server.metricsUrl!;
    expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(metricsUrl).not.toBe(scraped.url);
    await fetch(`${scraped.url}/healthz`);
    const res = await fetch(`${metricsUrl}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    expect(await res.text()).toContain('watchpost_http_requests_total{method="GET",route="/healthz",status="200",role="api"}');
    expect((await fetch(`${metricsUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${metricsUrl}/api/v1/monitors`)).status).toBe(404);
    // Without METRICS_PORT the API opens no second listener.
    expect(plain.server.metricsUrl).toBeUndefined();
  });
});
