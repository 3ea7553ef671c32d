/**
 * What the public page says of each component and of the whole page, from the monitors' current statuses: the
 * public page's own rules (schemas/status-pages/component-status.ts), without open incidents and maintenance windows,
 * which the layout editor does not load.
 */

import { type ComponentStatus, groupStatus, monitorStatus as statusOf, OVERALL_TEXT, STATUS_TEXT, worst } from "../../../../schemas/status-pages/component-status.ts";

export { type ComponentStatus, STATUS_TEXT };

/** The theme colour each status is shown in (as the public page's stylesheet). */
export const STATUS_COLOUR: Record<ComponentStatus, string> = { operational: "up", degraded: "degraded", partial_outage: "degraded", major_outage: "down", maintenance: "maintenance", unknown: "muted" };

export interface PreviewMonitor {
  id: string;
  status: string;
  paused: boolean;
  tags: string[];
}

/** A component: its monitor's status, or a group's (tag) from its monitors' statuses. */
export function componentStatus(c: { monitor_id?: string | null; tag?: string | null }, monitors: PreviewMonitor[]): ComponentStatus {
  if (c.monitor_id) {
    const m = monitors.find((x) => x.id === c.monitor_id);
    return m ? statusOf(m, false) : "unknown";
  }
  return groupStatus(monitors.filter((m) => c.tag && m.tags.includes(c.tag)).map((m) => statusOf(m, false)));
}

/** The page's banner: the worst component ("All systems operational" when none is worse, or there are none). */
export function overallStatus(statuses: ComponentStatus[]): { status: ComponentStatus; text: string } {
  const status = statuses.reduce(worst, "operational");
  return { status, text: OVERALL_TEXT[status] };
}
