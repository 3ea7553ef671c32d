import { expect } from "bun:test";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";
import { startDnsServer, type TestDnsServer, type ZoneEntry } from "../../runner/checks/test-support/dns-server.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { spawnRole, type RoleProcess } from "../support/processes.ts";
import { injectScript, launchChromium, screenshot, watchConsole } from "./browser.ts";
import { freePort } from "../support/free-port.ts";

const require = createRequire(import.meta.url);
export const AXE_PATH = require.resolve("axe-core/axe.min.js");
export const JSQR_PATH = require.resolve("jsqr/dist/jsQR.js");

export interface JourneyEnv {
  base: string;
  /** The in-process billing simulator (its admin endpoints move time and fail payments). */
  simUrl: string;
  db: TestDatabase;
  server: RoleProcess;
  chromium: Awaited<ReturnType<typeof launchChromium>>;
  page: Page;
  /** Console errors, page errors and HTTP responses ≥ 400 seen by the page. */
  errors: string[];
  /** DNS zone served to the API for custom-domain TXT lookups (mutable). */
  zone: Record<string, ZoneEntry>;
  dns: TestDnsServer;
  stop(): Promise<void>;
}

/**
 * The real all-in-one server (`scripts/start.ts`: API, scheduler, worker, alerting, billing with its
 * simulator, BILLING=simulator) on a test database, and Debian Chromium with a fresh profile.
 */
export async function startJourney(tag: string, env: Record<string, string> = {}): Promise<JourneyEnv> {
  const started: { stop(): Promise<unknown> | unknown }[] = [];
  const stopAll = async () => {
    for (const s of started.splice(0).reverse()) await Promise.resolve(s.stop()).catch(() => {});
  };
  try {
    const db = await phase("test database", 20_000, createTestDatabase);
    started.push({ stop: () => db.drop() });
    const zone: Record<string, ZoneEntry> = {};
    const dns = await startDnsServer(zone);
    started.push(dns);
    const port = freePort();
    const simPort = freePort();
    const server = spawnRole("scripts/start.ts", {
      DATABASE_URL: db.url,
      PORT: String(port),
      HOST: "127.0.0.1",
      ALLOW_PRIVATE_IPS: "true",
      DATA_DIR: `/tmp/wp-web-${tag}-${port}`,
      // The journeys buy plans: the hosted setup with the demo payment simulator, set explicitly.
      BILLING: "simulator",
      BILLING_SIM_PORT: String(simPort),
      STATUS_PAGE_DNS_SERVERS: dns.address,
      RUNNER_IMAGE_REGISTRY: "ghcr.io/acme/watchpost",
      // The journeys sign several people up and in from one address, and their signed-out screens (session check,
      // setup probe, invitation lookups) all count against that address's anonymous budget (10 a minute by default:
      // a slow run packed enough of them into one minute to get a sign-up refused with 429).
      RATE_LIMIT_SIGNUP_PER_IP: "100",
      RATE_LIMIT_SIGNIN_PER_IP: "100",
      RATE_LIMIT_PER_IP: "1000",
      ...env,
    });
    started.push({ stop: () => server.stop(5000) });
    await server.waitForLog("API listening", 45_000);
    const chromium = await phase("Chromium start", 45_000, () => launchChromium());
    started.push({ stop: () => chromium.close() });
    const page = chromium.context.pages()[0] ?? (await chromium.context.newPage());
    const errors = watchConsole(page);
    return {
      base: `http://127.0.0.1:${port}`,
      simUrl: `http://127.0.0.1:${simPort}`,
      db,
      server,
      chromium,
      page,
      errors,
      zone,
      dns,
      stop: stopAll,
    };
  } catch (err) {
    // A set-up that fails half-way must not leave its server and browser running into the next file.
    await stopAll();
    throw err;
  }
}

/**
 * Runs one step of a journey's set-up with its own deadline, so a stalled step fails by name well
 * inside the test hook's limit instead of as an anonymous hook timeout.
 */
export async function phase<T>(name: string, ms: number, run: () => Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`journey set-up: ${name} did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([run(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** How long a journey file's beforeAll may take: the server, Chromium and the sign-up at their limits. */
export const SETUP_TIMEOUT_MS = 180_000;

/** Signs a new person up through the app's own form; lands on the empty monitors overview. */
export async function signUpInBrowser(env: JourneyEnv, name: string, email: string, password = "correct horse battery") {
  const { page } = env;
  await phase("sign-up in the browser", 45_000, async () => {
    await page.goto(`${env.base}/signup`);
    await page.getByLabel("Your name").fill(name);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByRole("heading", { name: "Watch your first site in under a minute" }).waitFor({ timeout: 15_000 });
  });
}

/** A cookie-authenticated API call from the page's own session (cookies, X-CSRF-Token, X-Org-Id). */
export async function apiCall<T = any>(env: JourneyEnv, method: string, path: string, data?: unknown, expectOk = true): Promise<T> {
  const cookies = await env.page.context().cookies();
  const csrf = cookies.find((c) => c.name === "wp_csrf")?.value ?? "";
  const org = await env.page.evaluate(() => localStorage.getItem("wp_org")).catch(() => null);
  const res = await env.page.request.fetch(`${env.base}${path}`, { method, data, headers: { "x-csrf-token": decodeURIComponent(csrf), ...(org ? { "x-org-id": org } : {}) } });
  if (expectOk) expect(res.status(), `${method} ${path}: ${await res.text()}`).toBeLessThan(300);
  return (res.status() === 204 ? null : await res.json()) as T;
}

/** The billing simulator's admin endpoints (`/sim/*`). */
export async function sim<T = any>(env: JourneyEnv, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${env.simUrl}${path}`, { method, headers: { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  expect(res.status, `${method} ${path}`).toBeLessThan(300);
  return (await res.json()) as T;
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/**
 * Runs axe-core on the page as it is now and fails on any serious or critical violation,
 * naming the rule, the elements and why.
 */
export async function checkA11y(page: Page, screen: string): Promise<void> {
  const loaded = await page.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe !== "undefined");
  if (!loaded) await injectScript(page, AXE_PATH);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, opts: object): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ["violations"] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })) }));
  });
  const bad = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  if (bad.length > 0) {
    const text = bad.map((v) => `${v.impact} ${v.id}: ${v.help}\n${v.nodes.map((n) => `  ${n.target.join(" ")} — ${n.failureSummary ?? ""}`).join("\n")}`).join("\n");
    throw new Error(`axe found ${bad.length} serious/critical violation(s) on ${screen}:\n${text}`);
  }
}

/** Screenshot into test-artifacts/ and the accessibility check, in both colour themes. */
export async function captureScreen(page: Page, name: string): Promise<void> {
  await screenshot(page, name);
  await checkA11y(page, name);
  const theme = await page.evaluate(() => document.documentElement.dataset.theme);
  await page.evaluate(() => {
    document.documentElement.dataset.theme = document.documentElement.dataset.theme === "dark" ? "light" : "dark";
  });
  try {
    await checkA11y(page, `${name} (${theme === "dark" ? "light" : "dark"} theme)`);
  } finally {
    await page.evaluate((t) => {
      document.documentElement.dataset.theme = t ?? "light";
    }, theme);
  }
}

/** Follows a link of the main navigation, opening the menu it folds into on a narrow screen first. */
export async function nav(page: Page, name: string): Promise<void> {
  const menu = page.getByRole("button", { name: "Menu" });
  if ((await menu.isVisible()) && (await menu.getAttribute("aria-expanded")) !== "true") await menu.click();
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name, exact: true }).click();
}

/** Waits for `locator`; on a timeout, saves a screenshot and reports what the page logged. */
export async function waitOrShoot(env: JourneyEnv, locator: ReturnType<Page["locator"]>, name: string, timeout = 10_000): Promise<void> {
  await locator.waitFor({ timeout }).catch(async (err) => {
    await screenshot(env.page, `fail-${name}`);
    throw new Error(`${err}\nlogged: ${env.errors.join("\n")}`);
  });
}
