import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { captureScreen, type JourneyEnv, SETUP_TIMEOUT_MS, signUpInBrowser, startJourney } from "./journey-support.ts";

let env: JourneyEnv;
const stamp = Date.now().toString(36);

beforeAll(async () => {
  env = await startJourney("metrics-scrape");
  await signUpInBrowser(env, "Mira", `mira-${stamp}@example.test`);
}, SETUP_TIMEOUT_MS);
afterAll(() => env?.stop(), 30_000);

describe("Prometheus scrape on the API-keys screen", () => {
  it("shows the scrape URL and job, which work with a monitors:read key made on the same screen", async () => {
    const { page } = env;
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(`${env.base}/org/api-keys`);
    const section = page.getByTestId("prometheus-scrape");
    await section.getByRole("heading", { name: "Prometheus metrics" }).waitFor();
    const url = (await section.getByTestId("scrape-url").textContent())!;
    expect(url).toBe(`${env.base}/api/v1/metrics`);
    const job = (await section.getByTestId("scrape-config").textContent())!;
    expect(job).toContain("    metrics_path: /api/v1/metrics\n");
    expect(job).toContain(`      - targets: ["${new URL(env.base).host}"]`);

    await page.getByLabel("Key name").fill("Prometheus");
    await page.getByRole("checkbox", { name: /Monitors: read/ }).check();
    await page.getByRole("button", { name: "Create key" }).click();
    const key = (await page.getByTestId("secret-value").textContent())!;
    await page.getByRole("button", { name: "I have saved the key" }).click();
    await section.getByTestId("scrape-config").scrollIntoViewIfNeeded();
    await section.getByText("scrape_configs:").waitFor();
    await page.screenshot({ path: "/tmp/metrics-api-keys.png" });
    await captureScreen(page, "p22-metrics-01-scrape");

    const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    expect(parsePrometheusTextFormat(await res.text()).map((f) => f.name)).toContain("watchpost_monitor_up");
    expect(env.errors).toEqual([]);
  }, 60_000);
});
