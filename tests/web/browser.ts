import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { CHROMIUM_ARGS } from "../../runner/checks/browser/engines.ts";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const ARTIFACTS = join(import.meta.dir, "..", "..", "test-artifacts");

/**
 * Debian's Chromium, headless, with a fresh profile; nothing leaves loopback. A start that does not
 * answer within 20 s is killed and tried once more with a new profile: Chromium now and then stalls
 * before its DevTools endpoint comes up, and Playwright's own limit (180 s) outlasts every test hook.
 */
export async function launchChromium(viewport = { width: 1280, height: 900 }): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  for (let attempt = 1; ; attempt++) {
    const profile = mkdtempSync(join(tmpdir(), "wp-chromium-"));
    try {
      const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, viewport, headless: true, timeout: 20_000, args: [...CHROMIUM_ARGS] });
      return {
        context,
        async close() {
          await context.close();
          rmSync(profile, { recursive: true, force: true });
        },
      };
    } catch (err) {
      killProcessesNaming(profile);
      rmSync(profile, { recursive: true, force: true });
      if (attempt >= 2) throw new Error(`Chromium (${CHROMIUM}) did not start twice: ${err}`);
    }
  }
}

/** SIGKILLs every process whose command line names `arg` (a stalled Chromium Playwright gave up on keeps running). */
function killProcessesNaming(arg: string): void {
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(arg)) process.kill(Number(pid), "SIGKILL");
    } catch {
      // gone already, or not ours to read
    }
  }
}

/**
 * Loads a test library (axe-core, jsQR) into the page through DevTools rather than a <script>
 * element: the dashboard's CSP refuses inline script, as it must, and the journeys keep it in force.
 */
export async function injectScript(page: Page, path: string): Promise<void> {
  await page.evaluate(readFileSync(path, "utf8"));
}

/** Collects console errors and uncaught page errors; the journey fails on any. */
export function watchConsole(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  page.on("response", (r) => {
    if (r.status() >= 400) errors.push(`http ${r.status()}: ${r.request().method()} ${r.url()}`);
  });
  return errors;
}

export async function screenshot(page: Page, name: string) {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}
