import { existsSync, readdirSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "../core/config/parse-env.ts";
import { browserEngines, type RunnerConfig } from "./config.ts";

type Engine = ReturnType<typeof browserEngines>[number];

/**
 * Where each engine is looked for. Chromium: CHROMIUM_PATH (the images set /usr/bin/chromium).
 * Firefox and WebKit: Playwright's own builds under PLAYWRIGHT_BROWSERS_PATH (the images set
 * /ms-playwright; Playwright's default is ~/.cache/ms-playwright).
 */
function engineLocation(engine: Engine, env: Record<string, string | undefined>): { path: string; found: boolean } {
  if (engine === "chromium") {
    const path = env.CHROMIUM_PATH || "/usr/bin/chromium";
    return { path, found: existsSync(path) };
  }
  const dir = env.PLAYWRIGHT_BROWSERS_PATH || join(homedir(), ".cache", "ms-playwright");
  let found = false;
  try {
    found = readdirSync(dir).some((name) => name.startsWith(`${engine}-`));
  } catch {
    found = false;
  }
  return { path: join(dir, `${engine}-*`), found };
}

/** BROWSERS must name only engines this machine (image variant) ships; otherwise the runner does not start. */
export function assertBrowsersShipped(setting: RunnerConfig["BROWSERS"], env: Record<string, string | undefined>): void {
  const missing = browserEngines(setting)
    .map((engine) => ({ engine, ...engineLocation(engine, env) }))
    .filter((e) => !e.found);
  if (missing.length === 0) return;
  const where = missing.map((m) => `${m.engine} (looked for ${m.path})`).join(", ");
  throw new ConfigError(
    `Invalid environment variable BROWSERS=${JSON.stringify(setting)}: this runner does not ship ${where}; use the image variant that has the engine (runner-chromium, runner-firefox, runner-webkit, runner-full) or BROWSERS=none`,
  );
}
