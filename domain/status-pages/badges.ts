import { makeBadge } from "badge-maker";
import type { ComponentStatus } from "./public-model.ts";

export const BADGE_COLORS = {
  good: "#2da44e",
  fair: "#7bc043",
  warn: "#bf8700",
  bad: "#cf222e",
  info: "#0969da",
  none: "#8c959f",
} as const;

export type BadgeKind = "status" | "uptime" | "response-time";
export const BADGE_PERIODS = ["24h", "7d", "30d", "90d"] as const;
export type BadgePeriod = (typeof BADGE_PERIODS)[number];

const badgeSvg = (label: string, message: string, color: string) => makeBadge({ label, message, color, style: "flat" });

const MONITOR_STATUS: Record<string, [string, string]> = {
  up: ["up", BADGE_COLORS.good],
  degraded: ["degraded", BADGE_COLORS.warn],
  down: ["down", BADGE_COLORS.bad],
  timeout: ["timeout", BADGE_COLORS.bad],
  paused: ["paused", BADGE_COLORS.none],
  maintenance: ["maintenance", BADGE_COLORS.info],
};

export function monitorStatusBadge(status: string): string {
  const [message, color] = MONITOR_STATUS[status] ?? ["unknown", BADGE_COLORS.none];
  return badgeSvg("status", message, color);
}

const COMPONENT_STATUS: Record<ComponentStatus, [string, string]> = {
  operational: ["operational", BADGE_COLORS.good],
  degraded: ["degraded", BADGE_COLORS.warn],
  partial_outage: ["partial outage", BADGE_COLORS.warn],
  major_outage: ["major outage", BADGE_COLORS.bad],
  maintenance: ["maintenance", BADGE_COLORS.info],
  unknown: ["unknown", BADGE_COLORS.none],
};

export function componentStatusBadge(status: ComponentStatus): string {
  const [message, color] = COMPONENT_STATUS[status];
  return badgeSvg("status", message, color);
}

function uptimeColor(pct: number | null): string {
  if (pct === null) return BADGE_COLORS.none;
  if (pct >= 99.9) return BADGE_COLORS.good;
  if (pct >= 99) return BADGE_COLORS.fair;
  return pct >= 95 ? BADGE_COLORS.warn : BADGE_COLORS.bad;
}

/** Two decimals, trailing zeros dropped: 100%, 99.95%, 97.5%. */
const formatPct = (pct: number) => `${Number(pct.toFixed(pct >= 99.99 && pct < 100 ? 3 : 2))}%`;

export function uptimeBadge(period: BadgePeriod, pct: number | null): string {
  return badgeSvg(`uptime ${period}`, pct === null ? "no data" : formatPct(pct), uptimeColor(pct));
}

export function responseTimeBadge(ms: number | null): string {
  const color = ms === null ? BADGE_COLORS.none : ms < 300 ? BADGE_COLORS.good : ms < 1000 ? BADGE_COLORS.warn : BADGE_COLORS.bad;
  return badgeSvg("response time 24h", ms === null ? "no data" : `${Math.round(ms)} ms`, color);
}
