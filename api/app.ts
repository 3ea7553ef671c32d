import { Elysia } from "elysia";
import type { Metrics } from "../core/metrics.ts";
import { type ApiDeps, requestMeta } from "./context.ts";
import { buildOpenApiDocument } from "./openapi/document.ts";
import { webStatic } from "./web/static.ts";
import { cliDownload } from "./web/cli-download.ts";
import { apiReference } from "./web/docs.ts";
import { openApiComponents, typedConfigRefs } from "./openapi/components.ts";
import { auditPlugin } from "./middleware/audit.ts";
import { errorsPlugin } from "./middleware/errors.ts";
import { type RouteLike, routeTableOf } from "./middleware/route-table.ts";
import { apiKeyRoutes } from "./routes/api-keys/api-keys-routes.ts";
import { auditLogRoutes } from "./routes/audit-log/audit-log-routes.ts";
import { authRoutes } from "./routes/auth/auth-routes.ts";
import { setupRoutes } from "./routes/setup/setup-routes.ts";
import { entitlementRoutes } from "./routes/entitlements/entitlements-routes.ts";
import { billingRoutes } from "./routes/billing/billing-routes.ts";
import { myInvitationRoutes } from "./routes/invitations/invitations-routes.ts";
import { orgRoutes } from "./routes/org/org-routes.ts";
import { orgsRoutes } from "./routes/orgs/orgs-routes.ts";
import { systemRoutes } from "./routes/system/system-routes.ts";
import { userRoutes } from "./routes/user/user-routes.ts";
import { monitorRoutes } from "./routes/monitors/monitors-routes.ts";
import { monitorGroupRoutes } from "./routes/monitor-groups/monitor-groups-routes.ts";
import { metricsRoutes } from "./routes/metrics/metrics-routes.ts";
import { monitorUptimeRoutes } from "./routes/monitor-uptime/monitor-uptime-routes.ts";
import { monitorOverviewRoutes } from "./routes/monitor-overview/monitor-overview-routes.ts";
import { monitorResultRoutes } from "./routes/monitor-results/monitor-results-routes.ts";
import { retentionRoutes } from "./routes/retention/retention-routes.ts";
import { checkScreenshotRoutes } from "./routes/check-screenshots/check-screenshots-routes.ts";
import { pluginRoutes } from "./routes/flow-plugins/flow-plugin-routes.ts";
import { alertChannelRoutes } from "./routes/alert-channels/alert-channels-routes.ts";
import { alertRuleRoutes } from "./routes/alert-rules/alert-rules-routes.ts";
import { escalationPolicyRoutes } from "./routes/escalation-policies/escalation-policies-routes.ts";
import { notificationRoutes } from "./routes/notifications/notifications-routes.ts";
import { alertHistoryRoutes } from "./routes/alerts/alerts-routes.ts";
import { alertCapabilityRoutes } from "./routes/alert-capabilities/alert-capabilities-routes.ts";
import { eventRoutes } from "./routes/events/events-routes.ts";
import { heartbeatRoutes } from "./routes/heartbeat/heartbeat-routes.ts";
import { runnerRoutes } from "./routes/runners/runners-routes.ts";
import { runnerProtocolRoutes } from "./routes/runner-protocol/runner-protocol-routes.ts";
import { maintenanceWindowRoutes } from "./routes/maintenance-windows/maintenance-windows-routes.ts";
import { monitorMaintenanceRoutes } from "./routes/maintenance-windows/monitor-spans-routes.ts";
import { regionRoutes } from "./routes/regions/regions-routes.ts";
import { locationRoutes } from "./routes/locations/locations-routes.ts";
import { statusPageRoutes } from "./routes/status-pages/status-pages-routes.ts";
import { themeRoutes } from "./routes/themes/themes-routes.ts";
import { incidentRoutes } from "./routes/incidents/incidents-routes.ts";
import { unsubscribeRoutes } from "./routes/unsubscribe/unsubscribe-routes.ts";
import { reportRoutes } from "./routes/reports/reports-routes.ts";
import { reportUnsubscribeRoutes } from "./routes/reports/report-unsubscribe-routes.ts";
import { publicRoutes } from "./public/index.ts";

/** Every /api/v1 resource; a new resource adds one line here. */
const resources = [
  authRoutes,
  setupRoutes,
  userRoutes,
  orgsRoutes,
  orgRoutes,
  myInvitationRoutes,
  apiKeyRoutes,
  auditLogRoutes,
  entitlementRoutes,
  billingRoutes,
  monitorUptimeRoutes,
  monitorOverviewRoutes,
  metricsRoutes,
  monitorResultRoutes,
  checkScreenshotRoutes,
  pluginRoutes,
  monitorRoutes,
  retentionRoutes,
  monitorGroupRoutes,
  maintenanceWindowRoutes,
  monitorMaintenanceRoutes,
  regionRoutes,
  locationRoutes,
  eventRoutes,
  alertChannelRoutes,
  alertRuleRoutes,
  escalationPolicyRoutes,
  alertHistoryRoutes,
  alertCapabilityRoutes,
  notificationRoutes,
  heartbeatRoutes,
  runnerRoutes,
  runnerProtocolRoutes,
  statusPageRoutes,
  themeRoutes,
  incidentRoutes,
  unsubscribeRoutes,
  reportUnsubscribeRoutes,
  reportRoutes,
];

export function createApp(deps: ApiDeps, metrics: Metrics) {
  const started = new WeakMap<Request, number>();
  let openApiDocument: string | null = null;
  const serveDocument = () =>
    new Response((openApiDocument ??= buildOpenApiDocument(app, openApiComponents, typedConfigRefs)), { headers: { "content-type": "application/json; charset=utf-8", "cache-control": "public, max-age=60" } });

  const routes = routeTableOf((): RouteLike[] => app.routes);
  const v1 = new Elysia({ prefix: "/api/v1" });
  for (const resource of resources) v1.use(resource(deps));
  v1.get("/openapi.json", serveDocument, { detail: { hide: true } });

  const app = new Elysia({ normalize: false })
    .use(errorsPlugin(deps.log, routes, deps.databaseUnreachable))
    .onRequest(({ request }) => {
      started.set(request, performance.now());
    })
    .onAfterResponse({ as: "global" }, ({ request, route, set }) => {
      const t0 = started.get(request);
      if (t0 === undefined) return;
      const labels = { method: request.method, route: route || "unmatched", status: String(set.status ?? 200) };
      const seconds = (performance.now() - t0) / 1000;
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, seconds);
      // The access log (LOG_LEVEL=debug): the route template, never the URL (tokens travel in some paths).
      if (deps.log.isLevelEnabled("debug")) {
        const id = requestMeta.get(request)?.identity;
        deps.log.debug(
          { op: "api.request", ...labels, ms: Math.round(seconds * 1000), orgId: id?.orgId ?? undefined, userId: id?.userId, keyId: id?.kind === "api_key" ? id.keyId : undefined },
          "request",
        );
      }
    })
    .use(auditPlugin(deps.sql, deps.log))
    .use(systemRoutes(deps))
    .use(publicRoutes(deps))
    .get("/openapi.json", serveDocument, { detail: { hide: true } })
    .use(v1)
    .use(apiReference())
    .use(cliDownload())
    .use(webStatic());
  return app;
}
