import type { ApiDeps } from "../context.ts";
import { uptimeForMonitors } from "../../domain/results/uptime.ts";
import { BADGE_PERIODS, type BadgeKind, type BadgePeriod, componentStatusBadge, monitorStatusBadge, responseTimeBadge, uptimeBadge } from "../../domain/status-pages/badges.ts";
import { averageDurationMs, findComponentPublic, findPageById, pagesShowingMonitor, type StatusPageRow } from "../../db/queries/status-pages.ts";
import { findMonitor } from "../../db/queries/monitors.ts";
import { monitorsForComponents } from "../../db/queries/status-pages.ts";
import { notFoundResponse, rendered, serveRendered } from "./respond.ts";
import type { StatusSite } from "./status-site.ts";

const svgNotFound = () => new Response("Not found", { status: 404, headers: { "content-type": "text/plain", "cache-control": "no-store" } });

/**
 * Badges of a monitor (`mon_…`) or of a status-page component (`spc_…`). A monitor's badge is
 * readable only by callers who may read some page showing it (directly or through a tag group);
 * a component's, by callers who may read its page. Everyone else gets 404.
 */
export function createBadges(deps: ApiDeps, site: StatusSite) {
  const TTL_SHARED_SECONDS = 60;

  async function readablePage(request: Request, pages: StatusPageRow[]): Promise<StatusPageRow | null> {
    for (const p of pages) if ((await site.access(request, p)) === "allow") return p;
    return null;
  }

  const svg = (body: string) => rendered(body, "image/svg+xml; charset=utf-8");

  async function badge(request: Request, id: string, kind: BadgeKind): Promise<Response> {
    const url = new URL(request.url);
    const period = (url.searchParams.get("period") ?? "30d") as BadgePeriod;
    if (kind === "uptime" && !BADGE_PERIODS.includes(period)) {
      return new Response(JSON.stringify({ error: `period must be one of ${BADGE_PERIODS.join(", ")}`, code: "VALIDATION_ERROR" }), { status: 400, headers: { "content-type": "application/json" } });
    }
    let page: StatusPageRow | null = null;
    let orgId: string;
    let monitorIds: string[];
    let componentId: string | null = null;
    if (id.startsWith("spc_")) {
      const c = await findComponentPublic(deps.sql, id);
      const p = c ? await findPageById(deps.sql, c.page_id) : undefined;
      page = p ? await readablePage(request, [p]) : null;
      if (!c || !page) return svgNotFound();
      orgId = c.org_id;
      componentId = c.id;
      monitorIds = (await monitorsForComponents(deps.sql, c.org_id, c.monitor_id ? [c.monitor_id] : [], c.tag ? [c.tag] : [])).map((m) => m.id);
    } else {
      page = await readablePage(request, await pagesShowingMonitor(deps.sql, id));
      if (!page) return svgNotFound();
      orgId = page.org_id;
      monitorIds = [id];
    }
    const shared = page.access_mode === "public" && page.ip_allowlist.length === 0;
    const key = `badge:${id}:${kind}:${kind === "uptime" ? period : ""}`;
    const r = await site.cache.get(key, orgId, async () => {
      if (kind === "status") {
        if (componentId) {
          const model = await site.model(page!);
          const comp = model.sections.flatMap((s) => s.components).find((c) => c.id === componentId);
          return svg(componentStatusBadge(comp?.status ?? "unknown"));
        }
        const m = await findMonitor(deps.sql, orgId, id);
        return svg(monitorStatusBadge(m?.paused ? "paused" : (m?.status ?? "unknown")));
      }
      if (kind === "uptime") {
        const ups = await uptimeForMonitors(deps.sql, orgId, monitorIds, period);
        const sum = Object.values(ups).reduce((a, u) => ({ good: a.good + u.up + u.degraded, all: a.all + u.up + u.degraded + u.down + u.timeout }), { good: 0, all: 0 });
        return svg(uptimeBadge(period, sum.all === 0 ? null : (sum.good / sum.all) * 100));
      }
      return svg(responseTimeBadge(monitorIds.length ? await averageDurationMs(deps.sql, orgId, monitorIds, new Date(Date.now() - 86_400_000)) : null));
    });
    return serveRendered(request, r, shared, shared ? TTL_SHARED_SECONDS : 0);
  }

  return { badge, notFound: notFoundResponse };
}
