import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { dockerRunLine } from "../../web/src/screens/runners/install-commands.ts";
import { client } from "../support/api.ts";
import { apiCall, captureScreen, nav, phase, type JourneyEnv, signUpInBrowser, startJourney, SETUP_TIMEOUT_MS } from "./journey-support.ts";

let env: JourneyEnv;
const email = `runner-owner-${Date.now()}@example.test`;

beforeAll(async () => {
  env = await startJourney("runners");
  await phase("clipboard permission", 10_000, () => env.chromium.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: env.base }));
  await signUpInBrowser(env, "Rita", email);
}, SETUP_TIMEOUT_MS);
afterAll(() => env?.stop(), 30_000);

/** Buys a plan through the simulator's hosted checkout, as the billing screen does. */
async function buyPlan(plan: string) {
  const { checkout_url } = await apiCall(env, "POST", "/api/v1/billing/checkout", { plan, cycle: "monthly" });
  const pay = await fetch(`${checkout_url}/pay`, { method: "POST" });
  expect(pay.status).toBe(200);
  // The webhook lands asynchronously; the entitlement follows it.
  for (let i = 0; i < 50; i++) {
    if ((await apiCall(env, "GET", "/api/v1/entitlements")).plan.id === plan) return;
    await Bun.sleep(100);
  }
  throw new Error(`plan ${plan} never became active`);
}

describe("runners", () => {
  it("explains that the Free plan has no runner slot instead of failing", async () => {
    const { page } = env;
    await nav(page, "Runners");
    await page.getByRole("heading", { name: "Self-hosted runners" }).waitFor();
    await page.getByRole("heading", { name: "No runners yet" }).waitFor();
    await page.getByTestId("runner-quota").waitFor();
    expect(await page.getByRole("button", { name: "Create runner" }).isDisabled()).toBe(true);
    await captureScreen(page, "p2-runners-01-free");
    expect(env.errors).toEqual([]);
  }, 30_000);

  it("creates a runner and shows its token once, with a copy button and the docker run line of every image variant", async () => {
    const { page } = env;
    await buyPlan("pro");
    await page.reload();
    await page.getByTestId("runner-usage").filter({ hasText: "0 of 3 runner slots used" }).waitFor();
    await page.getByLabel("Name").fill("Office rack");
    await page.getByLabel("Location (optional)").fill("Berlin office");
    await page.getByRole("button", { name: "Create runner" }).click();
    const token = (await page.getByTestId("secret-value").textContent())!;
    expect(token).toMatch(/^rt_[A-Za-z0-9_-]{20,}$/);

    await page.getByRole("button", { name: "Copy token for office rack" }).click();
    await page.getByText("Copied").waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);

    const apiUrl = env.base;
    for (const [id, browsers] of [
      ["standard", "none"],
      ["chromium", "chromium"],
      ["firefox", "firefox"],
      ["webkit", "webkit"],
      ["full", "all"],
    ] as const) {
      await page.getByRole("radio", { name: new RegExp(`^${id}`) }).check();
      const shown = await page.getByTestId("docker-run").textContent();
      expect(shown).toBe(dockerRunLine({ id, browsers }, { apiUrl, token, registry: "ghcr.io/acme/watchpost" }));
    }
    await page.getByRole("radio", { name: /^chromium/ }).check();
    await page.getByText("Or with Docker Compose").click();
    const compose = (await page.getByTestId("compose").textContent())!;
    expect(compose).toContain("image: ghcr.io/acme/watchpost/runner-chromium:latest");
    expect(compose).toContain(`SERVICE_TOKEN: "${token}"`);
    expect(compose).toContain("shm_size: 512m");
    // All-in-one answers over plain HTTP: the screen says runners will refuse it.
    await page.getByText("runners refuse plain HTTP").waitFor();
    await captureScreen(page, "p2-runners-02-token");

    await page.getByRole("button", { name: "I have saved the token" }).click();
    expect(await page.getByTestId("secret-value").count()).toBe(0);
    const row = page.locator("tr", { hasText: "Office rack" });
    await row.locator("[data-status=offline]").waitFor();
    await row.getByText("never").first().waitFor();
    // The token is not in any later answer.
    expect(JSON.stringify(await apiCall(env, "GET", "/api/v1/runners"))).not.toContain(token);
    expect(env.errors).toEqual([]);
  }, 60_000);

  it("shows a runner online with when it was last seen once it sends heartbeats", async () => {
    const { page } = env;
    // Stand-in for the runner's heartbeat (the protocol needs TLS, which all-in-one does not serve).
    await env.db.sql`update runners set last_seen_at = now() - interval '2 minutes', heartbeat_interval_ms = 60000, last_check_at = now() - interval '3 minutes' where name = 'Office rack'`;
    await page.reload();
    const row = page.locator("tr", { hasText: "Office rack" });
    await row.locator("[data-status=online]").waitFor();
    await row.getByText("2 minutes ago").waitFor();
    await row.getByText("3 minutes ago").waitFor();
    await captureScreen(page, "p2-runners-03-online");
    expect(env.errors).toEqual([]);
  }, 30_000);

  it("shows each runner's region, version and checks in flight while online, and since when it is offline", async () => {
    const { page } = env;
    await env.db.sql`update runners set region = 'lab-3', version = '1.4.2', in_flight = 2, last_seen_at = now() - interval '10 seconds' where name = 'Office rack'`;
    await page.reload();
    const row = page.locator("tr", { hasText: "Office rack" });
    await row.locator("[data-status=online]").waitFor();
    await row.getByRole("cell", { name: "lab-3" }).waitFor();
    await row.getByRole("cell", { name: "1.4.2" }).waitFor();
    expect(await row.getByTestId("runner-in-flight").textContent()).toBe("2");
    expect(await row.getByTestId("runner-since").count()).toBe(0);

    // Stopped on purpose (SIGTERM): offline at once, saying since when; its last report of checks in flight is stale.
    await env.db.sql`update runners set stopped_at = now() - interval '2 minutes', in_flight = 0 where name = 'Office rack'`;
    await page.reload();
    await row.locator("[data-status=offline]").waitFor();
    expect(await row.getByTestId("runner-since").textContent()).toContain("stopped 2 minutes ago");
    expect(await row.getByTestId("runner-in-flight").textContent()).toBe("—");
    await row.getByRole("cell", { name: "1.4.2" }).waitFor();
    await captureScreen(page, "p2-runners-05-stopped");

    // Silent instead: since its last heartbeat.
    await env.db.sql`update runners set stopped_at = null, last_seen_at = now() - interval '3 hours' where name = 'Office rack'`;
    await page.reload();
    await row.locator("[data-status=offline]").waitFor();
    expect(await row.getByTestId("runner-since").textContent()).toContain("last heartbeat 3 hours ago");
    await env.db.sql`update runners set last_seen_at = now() - interval '2 minutes' where name = 'Office rack'`;
    expect(env.errors).toEqual([]);
  }, 30_000);

  it("renames a runner in place, and says what is wrong with a name the API refuses", async () => {
    const { page } = env;
    await page.reload();
    await page.getByRole("button", { name: "Rename Office rack" }).click();
    const input = page.getByLabel("New name for Office rack");
    // Only spaces: the browser lets it through (it is not empty), the API answers 400 naming the field.
    await input.fill("   ");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByRole("alert").filter({ hasText: "Name" }).waitFor();
    const unexpected = env.errors.filter((e) => !e.includes("400"));
    expect(unexpected).toEqual([]);
    env.errors.length = 0;
    await captureScreen(page, "p2-runners-06-rename-refused");

    await input.fill("Rack two");
    await page.getByRole("button", { name: "Save" }).click();
    await page.locator("tr", { hasText: "Rack two" }).locator("[data-status]").waitFor();
    expect(await page.getByLabel("New name for Office rack").count()).toBe(0);
    expect((await apiCall(env, "GET", "/api/v1/runners")).data[0].name).toBe("Rack two");

    // Cancel leaves it as it is.
    await page.getByRole("button", { name: "Rename Rack two" }).click();
    await page.getByLabel("New name for Rack two").fill("Not this");
    await page.getByRole("button", { name: "Cancel" }).click();
    await page.getByRole("button", { name: "Rename Rack two" }).waitFor();
    expect((await apiCall(env, "GET", "/api/v1/runners")).data[0].name).toBe("Rack two");

    await apiCall(env, "PATCH", `/api/v1/runners/${(await apiCall(env, "GET", "/api/v1/runners")).data[0].id}`, { name: "Office rack" });
    await page.reload();
    await page.getByRole("button", { name: "Rename Office rack" }).waitFor();
    expect(env.errors).toEqual([]);
  }, 30_000);

  it("revokes a runner only after confirmation", async () => {
    const { page } = env;
    await page.getByRole("button", { name: "Revoke Office rack" }).click();
    const dialog = page.getByRole("dialog", { name: "Revoke Office rack?" });
    await dialog.waitFor();
    await captureScreen(page, "p2-runners-04-revoke-dialog");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "detached" });
    expect((await apiCall(env, "GET", "/api/v1/runners")).data[0].status).not.toBe("revoked");

    await page.getByRole("button", { name: "Revoke Office rack" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Revoke runner" }).click();
    await page.locator("tr", { hasText: "Office rack" }).locator("[data-status=revoked]").waitFor();
    expect(await page.getByRole("button", { name: "Revoke Office rack" }).count()).toBe(0);
    expect((await apiCall(env, "GET", "/api/v1/runners")).data[0].status).toBe("revoked");
    expect(env.errors).toEqual([]);
  }, 30_000);

  it("shows a viewer the runners without the controls their role cannot use (rename, revoke, create)", async () => {
    const { page } = env;
    await apiCall(env, "POST", "/api/v1/runners", { name: "Lab runner" });
    const viewerEmail = `runner-viewer-${Date.now()}@example.test`;
    const invite = await apiCall(env, "POST", "/api/v1/org/invitations", { email: viewerEmail, role_id: "viewer" });
    const joined = await client(env.base)("POST", "/api/v1/auth/signup", { email: viewerEmail, password: "correct horse battery", name: "Vera Viewer", invitation_token: invite.token });
    expect(joined.status).toBe(201);
    await page.context().clearCookies();
    await page.goto(`${env.base}/signin`);
    await page.getByLabel("Email").fill(viewerEmail);
    await page.getByLabel("Password").fill("correct horse battery");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByRole("navigation", { name: "Main" }).waitFor();
    await nav(page, "Runners");
    const row = page.locator("tr", { hasText: "Lab runner" });
    await row.locator("[data-status=offline]").waitFor();
    await page.getByTestId("runners-read-only").waitFor();
    expect(await page.getByRole("button", { name: /^Rename/ }).count()).toBe(0);
    expect(await page.getByRole("button", { name: /^Revoke/ }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Create runner" }).count()).toBe(0);
    await captureScreen(page, "p2-runners-07-viewer");
    expect(env.errors).toEqual([]);
  }, 30_000);
});
