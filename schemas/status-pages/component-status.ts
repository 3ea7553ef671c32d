/**
 * How a status page reads its components from their monitors (pure: the public page in domain/status-pages and the
 * dashboard's layout preview both use it, so the preview says what visitors will see).
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

/** The page's banner text: "All systems operational" when nothing is worse (or nothing is known). */
export const OVERALL_TEXT: Record<ComponentStatus, string> = { ...STATUS_TEXT, operational: "All systems operational", unknown: "All systems operational" };

const SEVERITY: Record<ComponentStatus, number> = { unknown: 0, operational: 0, maintenance: 1, degraded: 2, partial_outage: 3, major_outage: 4 };

export const worst = (a: ComponentStatus, b: ComponentStatus): ComponentStatus => (SEVERITY[b] > SEVERITY[a] || (a === "unknown" && b !== "unknown") ? b : a);

/** One monitor: paused is no data, a maintenance window wins, then its current status. */
export function monitorStatus(m: { status: string; paused: boolean }, inMaintenance: boolean): ComponentStatus {
  if (m.paused) return "unknown";
  if (inMaintenance) return "maintenance";
  return m.status === "up" ? "operational" : m.status === "degraded" ? "degraded" : m.status === "down" || m.status === "timeout" ? "major_outage" : "unknown";
}

/** A tag group: all down is a major outage, some down a partial one. */
export function groupStatus(statuses: ComponentStatus[]): ComponentStatus {
  const known = statuses.filter((s) => s !== "unknown");
  if (known.length === 0) return "unknown";
  const down = known.filter((s) => s === "major_outage").length;
  if (down === known.length) return "major_outage";
  if (down > 0) return "partial_outage";
  return known.reduce(worst, "operational");
}
