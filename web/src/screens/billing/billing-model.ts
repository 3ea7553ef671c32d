/** Pure billing helpers: quota names, plan figures, what a downgrade would suspend, and the checkout cart. */

const QUOTA_LABELS: Record<string, string> = {
  monitors: "Monitors",
  monitors_fast: "Fast monitors (1 min)",
  monitors_realtime: "Real-time monitors (30 s)",
  min_interval_seconds: "Shortest interval",
  status_pages: "Status pages",
  members: "Team members",
  runners: "Self-hosted runners",
  alert_rules: "Alert rules",
  alert_channels: "Alert channels",
  lite_browser: "Lite browser checks",
  lite_browser_fast: "Fast Lite browser checks",
  lite_browser_realtime: "Real-time Lite browser checks",
  flow_browser: "Flow browser checks",
  flow_browser_fast: "Fast Flow browser checks",
  flow_browser_realtime: "Real-time Flow browser checks",
  self_hosted_browser: "Self-hosted browser checks",
  regions: "Regions per monitor",
  retention_days: "History kept",
  custom_domains: "Custom status-page domains",
};

/** The quotas the plan comparison lists, in this order. */
export const COMPARED = ["monitors", "min_interval_seconds", "status_pages", "members", "runners", "alert_rules", "alert_channels", "lite_browser", "flow_browser", "regions", "retention_days"];

/** Suspension applies to these when usage exceeds the new cap (the rest are refused on create). */
const SUSPENDABLE = new Set(["monitors", "monitors_fast", "monitors_realtime", "runners", "status_pages", "lite_browser", "flow_browser"]);

/** Usage rows in the order people look for them; unknown quotas last. */
export const quotaOrder = (a: string, b: string) => {
  const keys = Object.keys(QUOTA_LABELS);
  const rank = (k: string) => (keys.includes(k) ? keys.indexOf(k) : keys.length);
  return rank(a) - rank(b) || a.localeCompare(b);
};

export const quotaLabel = (key: string) => QUOTA_LABELS[key] ?? key.replace(/_/g, " ");

export function fmtQuota(key: string, value: number): string {
  if (value >= 100_000) return "Unlimited";
  if (key === "min_interval_seconds") return value >= 60 ? `every ${value / 60} min` : `every ${value} s`;
  if (key === "retention_days") return value >= 365 && value % 365 === 0 ? `${value / 365} year${value === 365 ? "" : "s"}` : `${value} days`;
  if (key === "custom_domains") return value > 0 ? "Yes" : "No";
  return String(value);
}

/** Percent saved by paying annually instead of twelve monthly payments (rounded). */
export const annualSaving = (monthlyCents: number | string, annualCents: number | string) =>
  Number(monthlyCents) === 0 ? 0 : Math.round((1 - Number(annualCents) / (Number(monthlyCents) * 12)) * 100);

/**
 * Quotas whose current use is above `quotas` (a plan's own caps plus what add-ons keep adding):
 * after a downgrade to it, the newest resources of each are suspended.
 */
export function overAfterChange(usage: Record<string, { used: number | string }>, quotas: Record<string, number>, addonExtra: Record<string, number> = {}) {
  return Object.entries(usage)
    .filter(([k]) => SUSPENDABLE.has(k) && quotas[k] !== undefined)
    .map(([k, u]) => ({ quota: k, used: Number(u.used), cap: quotas[k]! + (addonExtra[k] ?? 0) }))
    .filter((x) => x.used > x.cap);
}

export interface CartLine {
  id: string;
  name: string;
  quantity: number;
  unitCents: number;
}

export const cartTotal = (lines: CartLine[]) => lines.reduce((sum, l) => sum + l.quantity * l.unitCents, 0);

/**
 * Whether a past-due line belongs to a subscription that lapsed before something newer was bought:
 * the table then shows the new lines only, not the old unpaid one beside them.
 */
export const lapsedSince = (lines: { id: string; status: string; period_start: string }[], line: { id: string; period_start: string }) =>
  lines.some((o) => o.id !== line.id && o.status !== "past_due" && Date.parse(o.period_start) > Date.parse(line.period_start));
