import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { apiCall, captureScreen, nav, type JourneyEnv, signUpInBrowser, sim, startJourney, waitOrShoot, SETUP_TIMEOUT_MS } from "./journey-support.ts";
import { screenshot } from "./browser.ts";

// Billing through the payment-provider simulator that the all-in-one mode runs with BILLING=simulator (journey-support sets it).
let env: JourneyEnv;

beforeAll(async () => {
  env = await startJourney("billing");
  await signUpInBrowser(env, "Bea", `bea-${Date.now()}@example.test`);
}, SETUP_TIMEOUT_MS);
afterAll(() => env?.stop(), 30_000);

/** Errors the simulator's own page causes (its favicon is a 404) are not the dashboard's. */
const dashboardErrors = () => env.errors.filter((e) => !e.includes(env.simUrl));
const addonRow = (id: string) => env.page.locator(`[data-addon="${id}"]`);
const line = (productId: string) => env.page.locator(`[data-line="${productId}"]`);

describe("billing", () => {
  it("shows the Free plan, usage bars and the plans with monthly and annual prices", async () => {
    const { page } = env;
    await nav(page, "Billing");
    await page.getByTestId("plan-name").filter({ hasText: "Free" }).waitFor();
    expect(await page.getByTestId("usage").getByRole("meter").count()).toBeGreaterThan(3);
    const monitors = page.getByRole("meter", { name: "Monitors", exact: true });
    expect(await monitors.getAttribute("aria-valuetext")).toBe("0 of 20");
    const pro = page.locator('[data-plan="pro"]');
    expect(await pro.locator(".price").textContent()).toBe("$29.99");
    await pro.getByText("or $24.99 / month billed yearly").waitFor();
    await captureScreen(page, "p2-billing-01-free");
    await page.getByRole("radiogroup", { name: "Billing cycle" }).getByText("Annual").click();
    expect(await pro.locator(".price").textContent()).toBe("$24.99");
    await pro.getByText("$299.88 billed yearly (save 17%)").waitFor();
    await captureScreen(page, "p2-billing-02-annual");
    await page.getByRole("radiogroup", { name: "Billing cycle" }).getByText("Monthly").click();
    expect(dashboardErrors()).toEqual([]);
  }, 30_000);

  it("buys Starter with add-ons in one hosted checkout and comes back to the new plan", async () => {
    const { page } = env;
    await page.locator('[data-plan="starter"]').getByLabel("Choose Starter").check();
    await addonRow("runner").getByRole("spinbutton").fill("1");
    await addonRow("monitors_standard").getByRole("spinbutton").fill("2");
    // A Pro-only add-on is not offered on Starter.
    expect(await addonRow("status_pages").getByRole("spinbutton").isDisabled()).toBe(true);
    expect(await page.getByTestId("cart-total").textContent()).toBe("$21.96");
    await captureScreen(page, "p2-billing-03-cart");
    await page.getByRole("button", { name: "Continue to checkout" }).click();
    await page.waitForURL(`${env.simUrl}/checkout/**`);
    await page.getByRole("heading", { name: "Simulated checkout" }).waitFor();
    expect(await page.textContent("body")).toContain("$21.96");
    await page.getByRole("button", { name: "Pay" }).click();
    await page.waitForURL(`${env.base}/billing?checkout=*`);
    await waitOrShoot(env, page.getByTestId("checkout-returned"), "checkout-return");
    await page.getByTestId("plan-name").filter({ hasText: "Starter" }).waitFor();
    await line("starter").locator("[data-status=active]").waitFor();
    await line("runner").getByText("+1 Self-hosted runner slot").waitFor();
    await line("monitors_standard").getByText("2 × +25 Standard uptime monitors").waitFor();
    expect(await page.getByRole("meter", { name: "Monitors", exact: true }).getAttribute("aria-valuetext")).toBe("0 of 100");
    await captureScreen(page, "p2-billing-04-starter");
    expect(dashboardErrors()).toEqual([]);
  }, 60_000);

  it("upgrades to Pro with the prorated charge shown first, then settles the overlap notices", async () => {
    const { page } = env;
    await page.getByRole("button", { name: "Upgrade to Pro" }).click();
    const dialog = page.getByRole("dialog", { name: "Upgrade to Pro?" });
    await dialog.getByTestId("proration").waitFor();
    expect(await dialog.textContent()).toMatch(/You pay \$\d+\.\d\d now/);
    await captureScreen(page, "p2-billing-05-upgrade-dialog");
    await dialog.getByRole("button", { name: "Upgrade to Pro" }).click();
    await page.getByTestId("plan-name").filter({ hasText: "Pro" }).waitFor();
    await page.getByTestId("billing-notice").getByText(/Upgraded to Pro/).waitFor();

    // Pro includes more runners and monitors than Starter: both add-ons overlap.
    const overlaps = page.getByTestId("overlap");
    await overlaps.nth(1).waitFor();
    await captureScreen(page, "p2-billing-06-overlaps");
    await overlaps.filter({ hasText: "+1 Self-hosted runner slot" }).getByRole("button", { name: "Keep add-on" }).click();
    await page.getByText("Kept: the add-on stays on top of your plan.").waitFor();
    await overlaps.filter({ hasText: "Standard uptime monitors" }).getByRole("button", { name: "Cancel add-on" }).click();
    await page.getByText(/Cancelled at the next renewal; \$\d+\.\d\d of unused balance is credited/).waitFor();
    await overlaps.first().waitFor({ state: "detached" });
    await line("monitors_standard").locator("[data-status=pending_cancellation]").waitFor();
    expect((await apiCall(env, "GET", "/api/v1/billing/overlaps")).data).toEqual([]);
    expect(dashboardErrors()).toEqual([]);
  }, 60_000);

  it("adds an add-on to the live subscription, cancels its line and resumes it", async () => {
    const { page } = env;
    await addonRow("members").getByRole("spinbutton").fill("1");
    await page.getByRole("button", { name: "Add to subscription" }).click();
    await page.getByTestId("billing-notice").getByText("Added to your subscription").waitFor();
    await line("members").locator("[data-status=active]").waitFor();

    await page.getByRole("button", { name: "Cancel +5 Team members" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Cancel at period end" }).click();
    await line("members").locator("[data-status=pending_cancellation]").waitFor();
    await line("members").getByText(/^Ends /).waitFor();
    await captureScreen(page, "p2-billing-07-pending-cancellation");
    await page.getByRole("button", { name: "Resume +5 Team members" }).click();
    await line("members").locator("[data-status=active]").waitFor();
    expect(dashboardErrors()).toEqual([]);
  }, 60_000);

  it("downgrades to Starter after warning which runners it suspends, and marks them suspended", async () => {
    const { page } = env;
    for (const name of ["Rack A", "Rack B", "Rack C"]) await apiCall(env, "POST", "/api/v1/runners", { name });
    // Every 30 s needs a real-time slot: Pro has them, Starter none.
    await apiCall(env, "POST", "/api/v1/monitors", { name: "Checkout fast", type: "tcp", config: { host: "127.0.0.1", port: 9 }, interval_seconds: 30 });
    await apiCall(env, "POST", "/api/v1/monitors", { name: "Blog", type: "tcp", config: { host: "127.0.0.1", port: 9 }, interval_seconds: 300 });
    await page.reload();
    await page.getByRole("button", { name: "Downgrade to Starter" }).click();
    const dialog = page.getByRole("dialog", { name: "Change to Starter?" });
    await dialog.getByTestId("proration").waitFor();
    // Starter's 1 runner plus the kept runner add-on: 3 in use, 2 allowed.
    await dialog.getByTestId("suspension-warning").getByText("Self-hosted runners: 3 in use, 2 allowed (1 suspended)").waitFor();
    await dialog.getByTestId("suspension-warning").getByText("Real-time monitors (30 s): 1 in use, 0 allowed (1 suspended)").waitFor();
    // What stays suspended is deleted after the new plan's grace: the dialog gives the date and time before anything happens.
    const deletedAt = dialog.getByTestId("deleted-at");
    await deletedAt.waitFor({ timeout: 5000 });
    const when = (await apiCall(env, "POST", "/api/v1/billing/change-plan", { plan: "starter", preview: true })).delete_suspended_at as string;
    const simNow = Date.parse((await sim<{ now: string }>(env, "GET", "/sim/state")).now);
    expect(Math.abs(Date.parse(when) - (simNow + 5 * 86_400_000))).toBeLessThan(120_000);
    const shown = new Date(when).toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" });
    expect(await deletedAt.textContent()).toContain("Still suspended on ");
    expect(await deletedAt.textContent()).toContain(shown);
    expect(await deletedAt.textContent()).toContain("(Starter's 5-day grace from now), they are deleted (runners revoked).");
    expect(await dialog.textContent()).toMatch(/\$\d+\.\d\d of unused time is credited/);
    await captureScreen(page, "p2-billing-08-downgrade-dialog");
    await dialog.getByRole("button", { name: "Downgrade to Starter" }).click();
    await page.getByTestId("plan-name").filter({ hasText: "Starter" }).waitFor();
    const suspended = page.getByTestId("suspended");
    await suspended.getByRole("link", { name: "Rack C" }).waitFor();
    await suspended.locator("[data-suspended=true]").first().waitFor();
    await captureScreen(page, "p2-billing-09-suspended");

    await nav(page, "Runners");
    const rackC = page.locator("tr", { hasText: "Rack C" });
    await rackC.locator("[data-suspended=true]").waitFor();
    expect(await page.locator("tr", { hasText: "Rack A" }).locator("[data-suspended=true]").count()).toBe(0);
    await captureScreen(page, "p2-billing-10-runners-suspended");

    await nav(page, "Monitors");
    await page.locator("[data-monitor-id]", { hasText: "Checkout fast" }).locator("[data-suspended=true]").waitFor();
    expect(await page.locator("[data-monitor-id]", { hasText: "Blog" }).locator("[data-suspended=true]").count()).toBe(0);
    await captureScreen(page, "p2-billing-11-monitors-suspended");
    // Picking runners for a monitor: the suspended one says so.
    await page.goto(`${env.base}/monitors/new`);
    await page.locator("label", { hasText: "Rack C" }).locator("[data-suspended=true]").waitFor();
    expect(await page.locator("label", { hasText: "Rack A" }).locator("[data-suspended=true]").count()).toBe(0);
    expect(dashboardErrors()).toEqual([]);
  }, 60_000);

  it("lists every kind of suspended resource on the billing screen and says when the plan deletes them", async () => {
    const { page } = env;
    await nav(page, "Billing");
    const suspended = page.getByTestId("suspended");
    await suspended.getByRole("link", { name: "Checkout fast" }).waitFor();
    await suspended.getByRole("link", { name: "Rack C" }).waitFor();
    // Starter's grace period is 5 days: what stays suspended that long is deleted (billing jobs), not after 30.
    expect(await suspended.textContent()).toContain("after 5 days suspended they are deleted");
    expect(await suspended.textContent()).not.toContain("30 days");
    expect(dashboardErrors()).toEqual([]);
  }, 30_000);

  it("shows the grace-period banner on every screen after a failed renewal, with the open invoice to pay, until it is paid", async () => {
    const { page } = env;
    await sim(env, "POST", "/sim/fail-next", {});
    // Earlier cancellations left credit: a renewal it covers charges nothing, so the card fails at the first one it does not.
    for (let month = 0; month < 12 && (await apiCall(env, "GET", "/api/v1/billing/subscription")).banner === null; month++) {
      await sim(env, "POST", "/sim/advance", { days: 31 });
      await sim(env, "POST", "/sim/drain");
      for (let i = 0; i < 20 && (await apiCall(env, "GET", "/api/v1/billing/subscription")).banner === null; i++) await Bun.sleep(100);
    }
    const { banner: state } = await apiCall(env, "GET", "/api/v1/billing/subscription");
    expect(state.invoice_url).toStartWith(`${env.simUrl}/invoices/`);
    await nav(page, "Monitors");
    await page.reload();
    const banner = page.getByTestId("grace-banner");
    await waitOrShoot(env, banner, "grace-banner");
    expect(await banner.textContent()).toContain("Your last payment failed.");
    // The banner offers the direct action (the open invoice) and keeps the way to the billing screen.
    expect(await banner.getByRole("link", { name: "Pay the open invoice" }).getAttribute("href")).toBe(state.invoice_url);
    await captureScreen(page, "p2-billing-12-grace-banner");
    await nav(page, "Status pages");
    await banner.waitFor();
    await banner.getByRole("link", { name: "Billing details" }).click();
    await page.getByTestId("grace-notice").waitFor();
    await line("starter").locator("[data-status=grace_period]").waitFor();
    // The billing screen's notice has both: the payment-method page (not the last paid invoice) and the open invoice.
    expect(await page.getByTestId("grace-notice").getByRole("link", { name: "Update payment method and pay" }).getAttribute("href")).toBe(state.payment_url);
    expect(await page.getByTestId("grace-notice").getByRole("link", { name: "Pay the open invoice with the card on file" }).getAttribute("href")).toBe(state.invoice_url);
    await captureScreen(page, "p2-billing-13-grace-billing");

    // From the banner to the invoice's hosted page: paying there ends the grace.
    await nav(page, "Monitors");
    await banner.getByRole("link", { name: "Pay the open invoice" }).click();
    await page.getByRole("heading", { name: /^Invoice txn_/ }).waitFor();
    expect(await page.textContent("main")).toContain("Status: Open");
    await screenshot(page, "p2-billing-14-open-invoice");
    await page.getByRole("button", { name: /^Pay \$/ }).click();
    await page.getByTestId("checkout-returned").waitFor();
    await line("starter").locator("[data-status=active]").waitFor();
    expect(await page.getByTestId("grace-banner").count()).toBe(0);
    const paid = await (await fetch(state.invoice_url)).text();
    expect(paid).toContain('data-status="paid"');
    expect(dashboardErrors()).toEqual([]);
  }, 60_000);

  it("drops the lines of a lapsed subscription from the table once a newer plan was bought", async () => {
    const { page } = env;
    await sim(env, "POST", "/sim/fail-next", {});
    await sim(env, "POST", "/sim/advance", { days: 31 });
    await sim(env, "POST", "/sim/drain");
    for (let i = 0; i < 50 && (await apiCall(env, "GET", "/api/v1/billing/subscription")).status !== "grace_period"; i++) await Bun.sleep(100);
    await sim(env, "POST", "/sim/advance", { days: 6 }); // past Starter's 5 grace days; the scheduler's billing jobs run every 30 s
    for (let i = 0; i < 400 && (await apiCall(env, "GET", "/api/v1/billing/subscription")).status !== "past_due"; i++) await Bun.sleep(100);
    const lapsed = await apiCall(env, "GET", "/api/v1/billing/subscription");
    expect(lapsed.status).toBe("past_due");
    await page.reload();
    await line("starter").locator("[data-status=past_due]").waitFor();
    const { checkout_url } = await apiCall(env, "POST", "/api/v1/billing/checkout", { plan: "pro", cycle: "monthly" });
    expect((await fetch(`${checkout_url}/pay`, { method: "POST" })).status).toBe(200);
    await sim(env, "POST", "/sim/drain");
    await page.reload();
    await line("pro").locator("[data-status=active]").waitFor();
    expect(await page.locator("[data-status=past_due]").count()).toBe(0);
    expect(dashboardErrors()).toEqual([]);
  }, 90_000);
});
