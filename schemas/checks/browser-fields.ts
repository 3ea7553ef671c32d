import { Type } from "@sinclair/typebox";

/** Config fields shared by Lite and Flow. Importing this file loads no browser. */
export const BROWSER_DEFAULTS = {
  engine: "chromium",
  degrade_on_console_errors: true,
  degrade_on_failed_requests: true,
  screenshot_on_failure: true,
} as const;

const engineSchema = Type.Union([Type.Literal("chromium"), Type.Literal("firefox"), Type.Literal("webkit")], {
  default: BROWSER_DEFAULTS.engine,
  description: "Browser engine; the check runs only where a worker or runner offers it (BROWSERS)",
});

const viewportSchema = Type.Object(
  { width: Type.Integer({ minimum: 320, maximum: 3840 }), height: Type.Integer({ minimum: 240, maximum: 2160 }) },
  { additionalProperties: false, description: "Page size in CSS pixels; default 1280×720" },
);

export const DEFAULT_VIEWPORT = { width: 1280, height: 720 } as const;

export const browserCommonFields = {
  engine: Type.Optional(engineSchema),
  viewport: Type.Optional(viewportSchema),
  degraded_above_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: 600_000, description: "Degraded when the check takes longer than this, ms" })),
  degrade_on_console_errors: Type.Optional(
    Type.Boolean({ default: BROWSER_DEFAULTS.degrade_on_console_errors, description: "Degraded when the page logs console errors or throws uncaught exceptions" }),
  ),
  degrade_on_failed_requests: Type.Optional(
    Type.Boolean({ default: BROWSER_DEFAULTS.degrade_on_failed_requests, description: "Degraded when a subresource fails to load (network error or HTTP 4xx/5xx)" }),
  ),
  screenshot_on_failure: Type.Optional(
    Type.Boolean({ default: BROWSER_DEFAULTS.screenshot_on_failure, description: "Store a screenshot with a down or timeout result" }),
  ),
};

/** The engine a job needs: its config's engine for a browser check, null for any other type. */
export function browserEngineOf(type: string, config: Record<string, unknown> | null | undefined): "chromium" | "firefox" | "webkit" | null {
  if (type !== "browser_lite" && type !== "browser_flow") return null;
  const engine = config?.engine;
  return engine === "firefox" || engine === "webkit" ? engine : BROWSER_DEFAULTS.engine;
}
