import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { Page } from "playwright-core";
import { apiCall, type JourneyEnv, SETUP_TIMEOUT_MS, startJourney, waitOrShoot } from "./journey-support.ts";

/**
 * A monitor inside a maintenance window: its page says so (the status page does, and a paused monitor's
 * page otherwise shows its last status as if it were still checked), and says nothing once it ended.
 */
let env: JourneyEnv;
let page: Page;

beforeAll(async () => {
  env = await startJourney("maintenance-now", { BILLING: "false" });
  page = env.page;
  await page.goto(`${env.base}/`);
  await page.getByLabel("Your name").fill("Mia Ops");
  await page.getByLabel("Email").fill("mia@example.test");
  await page.getByLabel("Password").fill("correct horse battery");
  await page.getByLabel("Organisation name").fill("Mia's Team");
  await page.getByRole("button", { name: "Create account" }).click();
  await waitOrShoot(env, page.getByRole("heading", { name: "Watch your first site in under a minute" }), "maintenance-now-setup", 15_000);
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await env?.stop();
}, 30_000);

const inMinutes = (m: number) => new Date(Date.now() + m * 60_000).toISOString();

describe("a monitor's page during maintenance", () => {
  it("names the window in progress, its end and whether checks are paused", async () => {
    const mon = await apiCall(env, "POST", "/api/v1/monitors", { name: "Checkout", type: "http", config: { url: "http://127.0.0.1:9/" }, tags: ["shop"] });
    const other = await apiCall(env, "POST", "/api/v1/monitors", { name: "Blog", type: "http", config: { url: "http://127.0.0.1:9/" } });
    const ends = inMinutes(30);
    await apiCall(env, "POST", "/api/v1/maintenance-windows", { name: "Database upgrade", starts_at: inMinutes(-5), ends_at: ends, tags: ["shop"], pause_monitors: true });
    await apiCall(env, "POST", "/api/v1/maintenance-windows", { name: "Later", starts_at: inMinutes(60), ends_at: inMinutes(90), tags: ["shop"] });
    await page.goto(`${env.base}/monitors/${mon.id}`);
    const note = page.getByTestId("maintenance-now");
    await waitOrShoot(env, note, "maintenance-now-note");
    const text = await note.innerText();
    expect(text).toContain("Database upgrade");
    expect(text).toContain("checks paused");
    expect(text).not.toContain("Later");
    await page.goto(`${env.base}/monitors/${other.id}`);
    await page.getByRole("heading", { name: "Blog" }).waitFor();
    await page.getByText("Daily uptime, last 90 days").waitFor();
    expect(await page.getByTestId("maintenance-now").count()).toBe(0);
  }, 60_000);
});
