import type { Server } from "bun";
import { previousSecretKeys } from "../core/crypto/secret-key.ts";
import { SecretBox } from "../core/crypto/secrets.ts";
import type { Sql } from "../db/client.ts";
import type { Logger } from "../core/log.ts";
import { createMetrics, type Metrics } from "../core/metrics.ts";
import { startMetricsServer } from "../core/process/metrics-server.ts";
import { createApp } from "./app.ts";
import { registerFleetMetrics } from "./fleet-metrics.ts";
import type { ApiConfig } from "./config.ts";
import type { ApiDeps } from "./context.ts";
import { createEdge } from "./edge/edge.ts";
import { securityHeaders } from "./edge/security-headers.ts";
import { routeTableOf } from "./middleware/route-table.ts";
import { RateLimiter } from "./edge/rate-limiter.ts";
import { IdentityCache } from "./edge/identity-cache.ts";
import { type Bus, createMemoryBus } from "../core/bus/index.ts";
import { EventHub } from "./events/event-hub.ts";
import { setBillingEnabled } from "../db/queries/billing.ts";
import { domainResolver } from "../domain/status-pages/domain.ts";
import { sealPlaintextMonitorSecrets } from "../domain/monitors/seal-plaintext.ts";
import { sealPlaintextSubscriberWebhooks } from "../domain/status-pages/seal-plaintext.ts";
import { startApiPresence } from "./presence.ts";
import { ClaimWatch, recheckClaims } from "../domain/runners/claim-watch.ts";
import { type Unheard, unheardStretches } from "../domain/runners/runner-job-expiry.ts";
import { apiTierAbsences } from "../db/queries/api-presence.ts";
import type { ApiPresence } from "./presence.ts";

export interface ApiServer {
  url: string;
  port: number;
  server: Server<unknown>;
  deps: ApiDeps;
  /** The /metrics and /healthz listener (METRICS_PORT); undefined when METRICS_PORT is unset. */
  metricsUrl?: string;
  /** Stops accepting, lets in-flight requests finish (up to `graceMs`), then closes. */
  stop(graceMs?: number): Promise<void>;
}

/** The API tier's absences and interruptions from the database, and this process's own interruption not yet recorded. */
async function runnersUnheard(sql: Sql, presence: ApiPresence | null): Promise<Unheard[]> {
  const gaps = await apiTierAbsences(sql)();
  const own = presence?.unrecordedS() ?? null;
  return unheardStretches({ gaps: own === null ? gaps : [...gaps, { fromAgoS: own, toAgoS: 0 }] }, Date.now());
}

export function buildApiDeps(input: { sql: Sql; config: ApiConfig; log: Logger; secretKey: string; bus?: Bus }): ApiDeps {
  const previousKeys = previousSecretKeys(input.config.SECRET_KEY_PREVIOUS);
  const { sql, config, log } = input;
  let readyAt = 0;
  const identityCache = new IdentityCache();
  const bus = input.bus ?? createMemoryBus();
  // A runner session deleted anywhere (session/end, revoke) notifies wp_identity: its claim long-polls here end.
  const runnerClaims = new ClaimWatch();
  identityCache.onInvalidated(() => recheckClaims(runnerClaims, sql, log, (tokens) => Promise.all(tokens.map((t) => bus.nakJob(t)))));
  if (config.STATUS_PAGE_DNS_SERVERS) domainResolver.servers = config.STATUS_PAGE_DNS_SERVERS.split(",");
  return {
    sql,
    config,
    log,
    box: new SecretBox(input.secretKey, previousKeys),
    limiter: new RateLimiter(sql),
    identityCache,
    runnerClaims,
    runnersUnheard: () => runnersUnheard(sql, null),
    bus,
    publicBaseUrl: config.PUBLIC_BASE_URL ?? `http://${config.HOST}:${config.PORT}`,
    events: new EventHub(config.SSE_KEEPALIVE_SECONDS * 1000),
    databaseUnreachable: new Set(),
    async isReady() {
      if (Date.now() - readyAt < 1000) return true;
      try {
        const [row] = await sql`select count(*)::int as n from schema_migrations`;
        if (row!.n > 0) readyAt = Date.now();
        return row!.n > 0;
      } catch {
        return false;
      }
    },
  };
}

export async function startApiServer(deps: ApiDeps, options: { tls?: { cert: string; key: string }; metrics?: Metrics } = {}): Promise<ApiServer> {
  const unlisten = await deps.identityCache.listen(deps.sql, deps.log).catch((err) => {
    deps.log.warn({ op: "identity-cache.listen", err }, "identity cache disabled: LISTEN failed");
    return async () => {};
  });
  deps.events.start(deps.bus);
  // Every process reads the billing mode from the database (entitlement checks run outside the API too).
  await setBillingEnabled(deps.sql, deps.config.BILLING).catch((err) => deps.log.warn({ op: "billing.mode", err }, "could not record the billing mode yet"));
  // Secrets older releases stored in clear (monitor header values, subscriber webhook URLs): sealed in the
  // background, idempotent; reads redact them meanwhile.
  void sealPlaintextMonitorSecrets(deps.sql, deps.box, deps.log)
    .then(() => sealPlaintextSubscriberWebhooks(deps.sql, deps.box))
    .catch((err) => deps.log.warn({ op: "secrets.seal-plaintext", err }, "could not seal plaintext secrets yet"));
  const metrics = options.metrics ?? createMetrics("api");
  registerFleetMetrics(metrics.registry, deps.sql);
  const app = createApp(deps, metrics);
  app.compile();
  const fetch = createEdge(deps, (request) => app.handle(request), routeTableOf(() => app.routes));
  const secure = securityHeaders({ https: deps.config.PUBLIC_BASE_URL?.startsWith("https://") ?? false });
  const server = Bun.serve({
    hostname: deps.config.HOST,
    port: deps.config.PORT,
    // The edge refuses oversized bodies with the error body before reading them; Bun's own bare 413 is only a backstop.
    maxRequestBodySize: Math.max(deps.config.MAX_BODY_BYTES * 2, 1 << 30),
    idleTimeout: 120,
    tls: options.tls,
    fetch: async (request, srv) => secure(await fetch(request, srv), request),
    error: (err) => {
      deps.log.error({ op: "api.server", err }, "unhandled server error");
      return secure(new Response(JSON.stringify({ error: "Internal server error", code: "INTERNAL_ERROR" }), { status: 500, headers: { "content-type": "application/json" } }));
    },
  });
  // Prometheus scrapes this listener inside the deployment's network; the public PORT has no /metrics.
  let metricsServer: ReturnType<typeof startMetricsServer> | null = null;
  try {
    if (deps.config.METRICS_PORT !== undefined) metricsServer = startMetricsServer({ host: deps.config.METRICS_HOST, port: deps.config.METRICS_PORT, registry: metrics.registry, healthy: () => true });
  } catch (err) {
    server.stop(true);
    throw err;
  }
  const scheme = options.tls ? "https" : "http";
  const host = deps.config.HOST.includes(":") ? `[${deps.config.HOST}]` : deps.config.HOST;
  const url = `${scheme}://${host === "0.0.0.0" ? "127.0.0.1" : host}:${server.port}`;
  deps.publicBaseUrl = deps.config.PUBLIC_BASE_URL ?? url;
  const metricsHost = deps.config.METRICS_HOST.includes(":") ? `[${deps.config.METRICS_HOST}]` : deps.config.METRICS_HOST;
  const metricsUrl = metricsServer ? `http://${metricsHost === "0.0.0.0" ? "127.0.0.1" : metricsHost}:${metricsServer.port}` : undefined;
  deps.log.info({ op: "api.listen", url, metricsUrl }, "API listening");
  const presence = startApiPresence(deps.sql, deps.log);
  deps.runnersUnheard = () => runnersUnheard(deps.sql, presence);
  const interrupted = () => presence.interrupted();
  deps.databaseUnreachable.add(interrupted);
  // Mail (invitations, resets, confirmations) and incident notices are outbox rows the API writes; the
  // alerting role sends them (alerting/outbox, alerting/notices).
  return {
    url,
    port: server.port!,
    server,
    deps,
    metricsUrl,
    async stop(graceMs = 10_000) {
      // Stop accepting, end the live streams (they never finish on their own; clients reconnect
      // elsewhere), then let the other in-flight requests finish.
      const graceful = server.stop(false);
      deps.events.stop();
      deps.databaseUnreachable.delete(interrupted);
      await presence.stop();
      await Promise.race([graceful, Bun.sleep(graceMs)]);
      await server.stop(true);
      await metricsServer?.stop();
      await unlisten().catch(() => {});
    },
  };
}
