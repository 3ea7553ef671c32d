import { Elysia } from "elysia";
import type { Metrics } from "../core/metrics.ts";
import { type ApiDeps, requestMeta } from "./context.ts";
import { buildOpenApiDocument } from "./openapi/document.ts";
import { webStatic } from "./web/static.ts";
import { openApiComponents, typedConfigRefs } from "./openapi/components.ts";
import { auditPlugin } from "./plugins/audit.ts";
import { errorsPlugin } from "./plugins/errors.ts";
import { type RouteLike, routeTableOf } from "./plugins/route-table.ts";
import { apiKeyRoutes } from "./routes/api-keys/index.ts";
import { auditLogRoutes } from "./routes/audit-log/index.ts";
import { authRoutes } from "./routes/auth/index.ts";
import { entitlementRoutes } from "./routes/entitlements/index.ts";
import { billingRoutes } from "./routes/billing/index.ts";
import { myInvitationRoutes } from "./routes/invitations/index.ts";
import { orgRoutes } from "./routes/org/index.ts";
import { orgsRoutes } from "./routes/orgs/index.ts";
import { systemRoutes } from "./routes/system/index.ts";
import { userRoutes } from "./routes/user/index.ts";
import { monitorRoutes } from "./routes/monitors/index.ts";
import { monitorGroupRoutes } from "./routes/monitor-groups/index.ts";
import { monitorUptimeRoutes } from "./routes/monitor-uptime/index.ts";
import { monitorResultRoutes } from "./routes/monitor-results/index.ts";
import { retentionRoutes } from "./routes/retention/index.ts";
import { checkScreenshotRoutes } from "./routes/check-screenshots/index.ts";
import { pluginRoutes } from "./routes/plugins/index.ts";
import { alertChannelRoutes } from "./routes/alert-channels/index.ts";
import { alertRuleRoutes } from "./routes/alert-rules/index.ts";
import { escalationPolicyRoutes } from "./routes/escalation-policies/index.ts";
import { notificationRoutes } from "./routes/notifications/index.ts";
import { alertHistoryRoutes } from "./routes/alerts/index.ts";
import { alertCapabilityRoutes } from "./routes/alert-capabilities/index.ts";
import { eventRoutes } from "./routes/events/index.ts";
import { heartbeatRoutes } from "./routes/heartbeat/index.ts";
import { runnerRoutes } from "./routes/runners/index.ts";
import { runnerProtocolRoutes } from "./routes/runner-protocol/index.ts";
import { maintenanceWindowRoutes } from "./routes/maintenance-windows/index.ts";
import { regionRoutes } from "./routes/regions/index.ts";
import { locationRoutes } from "./routes/locations/index.ts";
import { statusPageRoutes } from "./routes/status-pages/index.ts";
import { themeRoutes } from "./routes/themes/index.ts";
import { incidentRoutes } from "./routes/incidents/index.ts";
import { unsubscribeRoutes } from "./routes/unsubscribe/index.ts";
import { publicRoutes } from "./public/index.ts";

/** Every /api/v1 resource; a new resource adds one line here. */
const resources = [
  authRoutes,
  userRoutes,
  orgsRoutes,
  orgRoutes,
  myInvitationRoutes,
  apiKeyRoutes,
  auditLogRoutes,
  entitlementRoutes,
  billingRoutes,
  monitorUptimeRoutes,
  monitorResultRoutes,
  checkScreenshotRoutes,
  pluginRoutes,
  monitorRoutes,
  retentionRoutes,
  monitorGroupRoutes,
  maintenanceWindowRoutes,
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
    .use(errorsPlugin(deps.log, routes))
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
    .use(webStatic());
  return app;
}

export type App = ReturnType<typeof createApp>;
