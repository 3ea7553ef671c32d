import type { Sql } from "../../db/client.ts";
import { uptimePct } from "../results/uptime.ts";
import { ninetyDayBars } from "./bar-history.ts";
import { windowStateNow } from "../maintenance/service.ts";
import { coversMonitor } from "../maintenance/window.ts";
import { listWindows } from "../../db/queries/maintenance-windows.ts";
import { incidentsForPage, type IncidentRow, updatesFor } from "../../db/queries/incidents.ts";
import { type ComponentRow, monitorsForComponents, type PageMonitorRow, type StatusPageRow } from "../../db/queries/status-pages.ts";
import { findTheme } from "../../db/queries/themes.ts";
import { loadLayout } from "./service.ts";
import { BUILT_IN_THEMES, customThemeView, isBuiltInTheme, type ThemeView } from "./themes.ts";
import { type ComponentStatus, groupStatus, monitorStatus, OVERALL_TEXT, worst } from "../../schemas/status-pages/component-status.ts";

export type { ComponentStatus } from "../../schemas/status-pages/component-status.ts";
export { STATUS_TEXT } from "../../schemas/status-pages/component-status.ts";
const IMPACT_STATUS: Record<IncidentRow["impact"], ComponentStatus | null> = { none: null, minor: "degraded", major: "partial_outage", critical: "major_outage" };

export interface PublicBar {
  date: string;
  uptime_pct: number | null;
  checks: number;
  failed: number;
}

export interface PublicComponent {
  id: string;
  name: string;
  description: string;
  status: ComponentStatus;
  uptime_90d_pct: number | null;
  bars: PublicBar[];
}

export interface PublicIncident {
  id: string;
  title: string;
  impact: IncidentRow["impact"];
  status: IncidentRow["status"];
  components: string[];
  created_at: string;
  updated_at: string;
  resolved_at: string | null;
  updates: { status: string; message: string; created_at: string }[];
}

interface PublicMaintenance {
  id: string;
  name: string;
  description: string;
  state: "active" | "upcoming";
  starts_at: string | null;
  ends_at: string | null;
}

export interface PublicPage {
  page: { id: string; name: string; slug: string; description: string; updated_at: string };
  status: { indicator: ComponentStatus; description: string };
  sections: { name: string; components: PublicComponent[] }[];
  incidents: { active: PublicIncident[]; recent: PublicIncident[] };
  maintenance: PublicMaintenance[];
  generated_at: string;
}

const RECENT_INCIDENT_DAYS = 14;
const UPCOMING_MAINTENANCE_DAYS = 30;

const members = (c: ComponentRow, monitors: PageMonitorRow[]) => (c.monitor_id ? monitors.filter((m) => m.id === c.monitor_id) : monitors.filter((m) => m.tags.includes(c.tag!)));

export async function themeOf(sql: Sql, page: StatusPageRow): Promise<ThemeView> {
  if (isBuiltInTheme(page.theme_id)) return BUILT_IN_THEMES[page.theme_id];
  const row = await findTheme(sql, page.org_id, page.theme_id);
  return row ? customThemeView(row) : BUILT_IN_THEMES.light;
}

/** Everything a public view of the page shows (HTML, JSON, feeds), read in a handful of queries. */
export async function buildPublicPage(sql: Sql, page: StatusPageRow, now = new Date()): Promise<PublicPage> {
  const layout = await loadLayout(sql, page.id);
  const components = layout.sections.flatMap((s) => s.components);
  const monitorIds = [...new Set(components.flatMap((c) => (c.monitor_id ? [c.monitor_id] : [])))];
  const tags = [...new Set(components.flatMap((c) => (c.tag ? [c.tag] : [])))];
  const since = new Date(now.getTime() - RECENT_INCIDENT_DAYS * 86_400_000);
  const [monitors, incidents, windows] = await Promise.all([
    monitorsForComponents(sql, page.org_id, monitorIds, tags),
    incidentsForPage(sql, page.org_id, page.id, since),
    listWindows(sql, page.org_id),
  ]);
  const [bars, updates] = await Promise.all([
    ninetyDayBars(sql, page.org_id, monitors.map((m) => m.id), now),
    updatesFor(sql, page.org_id, incidents.map((i) => i.id)),
  ]);
  const t = now.getTime();
  const windowStates = windows.map((w) => ({ w, s: windowStateNow(w, t) }));
  const inMaintenance = (m: PageMonitorRow) => windowStates.some(({ w, s }) => s.state === "active" && coversMonitor(w, m.id, m.tags));
  const active = incidents.filter((i) => i.status !== "resolved");

  const componentView = (c: ComponentRow): PublicComponent => {
    const ms = members(c, monitors);
    let status = c.monitor_id ? (ms[0] ? monitorStatus(ms[0], inMaintenance(ms[0])) : "unknown") : groupStatus(ms.map((m) => monitorStatus(m, inMaintenance(m))));
    for (const i of active) if (i.component_ids.includes(c.id) && IMPACT_STATUS[i.impact]) status = worst(status, IMPACT_STATUS[i.impact]!);
    const perDay = Array.from({ length: 90 }, (_, d) => {
      const sum = { up: 0, down: 0, degraded: 0, timeout: 0, date: "" };
      for (const m of ms) {
        const b = (bars as Record<string, { date: string; up: number; down: number; degraded: number; timeout: number }[]>)[m.id]?.[d];
        if (!b) continue;
        sum.date = b.date;
        sum.up += b.up;
        sum.down += b.down;
        sum.degraded += b.degraded;
        sum.timeout += b.timeout;
      }
      if (!sum.date) sum.date = new Date(Math.floor(t / 86_400_000) * 86_400_000 - (89 - d) * 86_400_000).toISOString().slice(0, 10);
      return sum;
    });
    const total = perDay.reduce((a, b) => ({ up: a.up + b.up, down: a.down + b.down, degraded: a.degraded + b.degraded, timeout: a.timeout + b.timeout }), { up: 0, down: 0, degraded: 0, timeout: 0 });
    return {
      id: c.id,
      name: c.display_name,
      description: c.description,
      status,
      uptime_90d_pct: round(uptimePct(total)),
      bars: perDay.map((b) => ({ date: b.date, uptime_pct: round(uptimePct(b)), checks: b.up + b.down + b.degraded + b.timeout, failed: b.down + b.timeout })),
    };
  };

  const sections = layout.sections.map((s) => ({ name: s.name, components: s.components.map(componentView) }));
  let overall: ComponentStatus = sections.flatMap((s) => s.components).reduce((acc, c) => worst(acc, c.status), "operational" as ComponentStatus);
  for (const i of active) if (IMPACT_STATUS[i.impact]) overall = worst(overall, IMPACT_STATUS[i.impact]!);
  const incidentView = (i: IncidentRow): PublicIncident => ({
    id: i.id,
    title: i.title,
    impact: i.impact,
    status: i.status,
    components: components.filter((c) => i.component_ids.includes(c.id)).map((c) => c.display_name),
    created_at: i.created_at.toISOString(),
    updated_at: i.updated_at.toISOString(),
    resolved_at: i.resolved_at?.toISOString() ?? null,
    updates: updates.filter((u) => u.incident_id === i.id).map((u) => ({ status: u.status, message: u.message, created_at: u.created_at.toISOString() })),
  });
  const maintenance: PublicMaintenance[] = windowStates
    .filter(({ w }) => monitors.some((m) => coversMonitor(w, m.id, m.tags)))
    .filter(({ s }) => s.state === "active" || (s.nextStartsAt !== null && s.nextStartsAt - t < UPCOMING_MAINTENANCE_DAYS * 86_400_000))
    .map(({ w, s }) => {
      const start = s.state === "active" ? null : s.nextStartsAt;
      const end = s.state === "active" ? s.currentEndsAt : start !== null && w.duration_minutes ? start + w.duration_minutes * 60_000 : (w.ends_at?.getTime() ?? null);
      return { id: w.id, name: w.name, description: w.description, state: s.state as "active" | "upcoming", starts_at: iso(start), ends_at: iso(end) };
    })
    .sort((a, b) => (a.starts_at ?? "").localeCompare(b.starts_at ?? ""));
  if (overall === "operational" && maintenance.some((m) => m.state === "active")) overall = "maintenance";
  return {
    page: { id: page.id, name: page.name, slug: page.slug, description: page.description, updated_at: page.updated_at.toISOString() },
    status: { indicator: overall, description: OVERALL_TEXT[overall] },
    sections,
    incidents: { active: active.map(incidentView), recent: incidents.filter((i) => i.status === "resolved").map(incidentView) },
    maintenance,
    generated_at: now.toISOString(),
  };
}

const round = (x: number | null) => (x === null ? null : Math.round(x * 1000) / 1000);
const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());
