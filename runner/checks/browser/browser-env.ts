import { Type } from "@sinclair/typebox";
import type { Logger } from "../../../core/log.ts";
import { ConfigError } from "../../../core/config/parse-env.ts";
import { BrowserPool } from "./browser-pool.ts";
import { browserEngines, type BrowsersSetting, EngineUnavailableError } from "./engines.ts";

/**
 * Browser settings of the processes that run browser checks besides the self-hosted runner
 * (whose own table is the spec's): cloud workers (`bun run worker`) and the API's run-now.
 */
export const browserEnv = {
  BROWSERS: Type.Union([Type.Literal("none"), Type.Literal("chromium"), Type.Literal("firefox"), Type.Literal("webkit"), Type.Literal("all")], {
    default: "none",
    description: "browser engines this process runs browser checks with: none, chromium, firefox, webkit or all; each must be installed",
  }),
  BROWSER_POOL_SIZE: Type.Integer({ minimum: 1, maximum: 20, default: 2, description: "warm browsers per engine, which is also the browser checks run at once per engine, 1-20" }),
  BROWSER_MEMORY_CAP_MB: Type.Integer({ minimum: 128, maximum: 16_384, default: 1024, description: "memory one browser check may use (the browser's processes), 128-16384 MB" }),
  BROWSER_MAX_USES: Type.Integer({ minimum: 1, maximum: 10_000, default: 50, description: "checks a browser runs before it is replaced by a fresh one, 1-10000" }),
  CHROMIUM_PATH: Type.Optional(Type.String({ minLength: 1, description: "Chromium executable; default /usr/bin/chromium" })),
};

export interface BrowserSettings {
  BROWSERS: BrowsersSetting;
  BROWSER_POOL_SIZE: number;
  BROWSER_MEMORY_CAP_MB?: number;
  BROWSER_MAX_USES?: number;
  CHROMIUM_PATH?: string;
  /** The extra CAs the process trusts (the role's config, checked at start): Chromium's TLS is then relayed and verified by the guard proxy. */
  NODE_EXTRA_CA_CERTS?: string;
}

/** The pool for BROWSERS, warm; null for BROWSERS=none. A ConfigError names BROWSERS when an engine is not installed. */
export async function startBrowserPool(s: BrowserSettings, log: Logger, opts: { warm?: boolean } = {}): Promise<BrowserPool | null> {
  const engines = browserEngines(s.BROWSERS);
  if (engines.length === 0) return null;
  const pool = await BrowserPool.start(
    {
      engines,
      size: s.BROWSER_POOL_SIZE,
      memoryCapMb: s.BROWSER_MEMORY_CAP_MB,
      maxUses: s.BROWSER_MAX_USES,
      executablePaths: s.CHROMIUM_PATH ? { chromium: s.CHROMIUM_PATH } : undefined,
      // Bun reads this variable itself for every other check; Chromium does not, so the guard proxy verifies for it.
      relayTls: Boolean(s.NODE_EXTRA_CA_CERTS),
      log,
    },
    opts,
  ).catch((err: unknown) => {
    if (err instanceof EngineUnavailableError) throw new ConfigError(`Invalid environment variable BROWSERS=${JSON.stringify(s.BROWSERS)}: ${err.message}`);
    throw err;
  });
  log.info({ op: "browser.pool", engines, size: s.BROWSER_POOL_SIZE }, "browser pool ready");
  return pool;
}
