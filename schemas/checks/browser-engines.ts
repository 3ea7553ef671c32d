/** The browser engines a runner or worker can offer (`BROWSERS`). Pure: the scheduler and the dashboard use it. */
export const ENGINES = ["chromium", "firefox", "webkit"] as const;
export type Engine = (typeof ENGINES)[number];
const BROWSERS_SETTINGS = ["none", "chromium", "firefox", "webkit", "all"] as const;
export type BrowsersSetting = (typeof BROWSERS_SETTINGS)[number];

/** Engines offered for a `BROWSERS` value. */
export function browserEngines(setting: BrowsersSetting): Engine[] {
  if (setting === "none") return [];
  return setting === "all" ? [...ENGINES] : [setting];
}

export function isEngine(value: unknown): value is Engine {
  return typeof value === "string" && (ENGINES as readonly string[]).includes(value);
}
