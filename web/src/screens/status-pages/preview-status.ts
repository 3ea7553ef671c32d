/**
 * What the public page says of each component and of the whole page, from the monitors' current statuses: the
 * rules of domain/status-pages/public-model.ts (which the dashboard cannot import), without open incidents and
 * maintenance windows, which the layout editor does not load.
 */

export type ComponentStatus = "operational" | "degraded" | "partial_outage" | "major_outage" | "maintenance" | "unknown";

export const STATUS_TEXT: Record<ComponentStatus, string> = {
  operational: "Operational",
  degraded: "Degraded performance",
  partial_outage: "Partial outage",
  major_outage: "Major outage",
  maintenance: "Under maintenance",
  unknown: "No data",
};

/** The theme colour each status is shown in (as the public page's stylesheet). */
export const STATUS_COLOUR: Record<ComponentStatus, string> = { operational: "up", degraded: "degraded", partial_outage: "degraded", major_outage: "down", maintenance: "maintenance", unknown: "muted" };

const SEVERITY: Record<ComponentStatus, number> = { unknown: 0, operational: 0, maintenance: 1, degraded: 2, partial_outage: 3, major_outage: 4 };
const worst = (a: ComponentStatus, b: ComponentStatus): ComponentStatus => (SEVERITY[b] > SEVERITY[a] || (a === "unknown" && b !== "unknown") ? b : a);

export interface PreviewMonitor {
  id: string;
  status: string;
  paused: boolean;
  tags: string[];
}

function monitorStatus(m: PreviewMonitor): ComponentStatus {
  if (m.paused) return "unknown";
  return m.status === "up" ? "operational" : m.status === "degraded" ? "degraded" : m.status === "down" || m.status === "timeout" ? "major_outage" : "unknown";
}

/** A component: its monitor's status, or for a group (tag) a major outage when all are down, a partial one when some are. */
export function componentStatus(c: { monitor_id?: string | null; tag?: string | null }, monitors: PreviewMonitor[]): ComponentStatus {
  if (c.monitor_id) {
    const m = monitors.find((x) => x.id === c.monitor_id);
    return m ? monitorStatus(m) : "unknown";
  }
  const known = monitors.filter((m) => c.tag && m.tags.includes(c.tag)).map(monitorStatus).filter((s) => s !== "unknown");
  if (known.length === 0) return "unknown";
  const down = known.filter((s) => s === "major_outage").length;
  if (down === known.length) return "major_outage";
  if (down > 0) return "partial_outage";
  return known.reduce(worst, "operational");
}

/** The page's banner: the worst component ("All systems operational" when none is worse, or there are none). */
export function overallStatus(statuses: ComponentStatus[]): { status: ComponentStatus; text: string } {
  const status = statuses.reduce(worst, "operational");
  return { status, text: status === "operational" || status === "unknown" ? "All systems operational" : STATUS_TEXT[status] };
}
