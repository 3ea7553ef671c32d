import { existsSync } from "node:fs";
import type { Browser, BrowserType } from "playwright-core";
import type { Engine } from "../../../schemas/checks/browser-engines.ts";
import { chromiumTrustsGuardProxy } from "./tls-relay.ts";

export { browserEngines, isEngine } from "../../../schemas/checks/browser-engines.ts";
export type { BrowsersSetting, Engine } from "../../../schemas/checks/browser-engines.ts";

/**
 * Chromium flags for a container without a GPU, a sandbox-capable kernel or a large /dev/shm,
 * and without the background traffic (updates, sync, QUIC) a monitoring browser must not make.
 */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
] as const;

/** Debian's (and the chromium runner image's) Chromium; Playwright's own build is the fallback. */
const SYSTEM_CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser"];

/** The engine is not installed here: BROWSERS names an engine this image does not ship. */
export class EngineUnavailableError extends Error {
  override readonly name = "EngineUnavailableError";
  readonly permanent = true;
  constructor(
    readonly engine: Engine,
    readonly executablePath: string,
  ) {
    super(
      `the ${engine} engine is not installed (no executable at ${executablePath}); ` +
        `BROWSERS must match an image variant that ships it (runner-${engine} or runner-full)`,
    );
  }
}

type PlaywrightModule = typeof import("playwright-core");
let playwright: Promise<PlaywrightModule> | null = null;

/** playwright-core, loaded on first use so processes without browser checks never pay for it. */
function loadPlaywright(): Promise<PlaywrightModule> {
  playwright ??= import("playwright-core");
  return playwright;
}

async function launcherFor(engine: Engine): Promise<BrowserType> {
  const pw = await loadPlaywright();
  return pw[engine];
}

/**
 * Where the engine's executable is: an explicit path, else for Chromium the system package,
 * else Playwright's own build (PLAYWRIGHT_BROWSERS_PATH, as installed by `playwright install`).
 */
async function executablePathFor(engine: Engine, explicit?: string): Promise<string> {
  if (explicit) return explicit;
  if (engine === "chromium") {
    const system = SYSTEM_CHROMIUM.find((p) => existsSync(p));
    if (system) return system;
  }
  return (await launcherFor(engine)).executablePath();
}

/** The engine's executable, or EngineUnavailableError when it is missing. */
export async function requireEngine(engine: Engine, explicit?: string): Promise<string> {
  const path = await executablePathFor(engine, explicit);
  if (!existsSync(path)) throw new EngineUnavailableError(engine, path);
  return path;
}

export interface LaunchSettings {
  executablePath: string;
  /** Extra command-line switches (tests map host names to loopback with --host-resolver-rules). */
  extraArgs?: string[];
  /** Heap limit of each renderer's JavaScript, in MB (Chromium only). */
  jsHeapMb?: number;
  timeoutMs?: number;
}

/** Launches one browser of the engine with the flags this service always uses. */
export async function launchEngine(engine: Engine, s: LaunchSettings): Promise<Browser> {
  const launcher = await launcherFor(engine);
  const args = engine === "chromium" ? [...CHROMIUM_ARGS, chromiumTrustsGuardProxy(), ...(s.jsHeapMb ? [`--js-flags=--max-old-space-size=${s.jsHeapMb}`] : [])] : [];
  return launcher.launch({
    executablePath: s.executablePath,
    args: [...args, ...(s.extraArgs ?? [])],
    timeout: s.timeoutMs ?? 30_000,
    // The runner handles SIGTERM itself and closes the pool; Playwright must not kill browsers first.
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
    // Firefox: no telemetry, updates or captive-portal probes from a monitoring browser.
    firefoxUserPrefs:
      engine === "firefox"
        ? { "app.update.enabled": false, "network.captive-portal-service.enabled": false, "datareporting.policy.dataSubmissionEnabled": false, "network.dns.disablePrefetch": true, "network.http.speculative-parallel-limit": 0 }
        : undefined,
  });
}
