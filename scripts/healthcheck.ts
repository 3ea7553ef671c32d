/**
 * The HEALTHCHECK of the service image (infra/service/Dockerfile), for every role: exits 0 when the role's
 * /healthz answers 2xx within 4 s, 1 otherwise. The roles with METRICS_PORT (scheduler, alerting, worker; the
 * api too when it is set) serve /healthz there (core/process/metrics-server.ts); without one (or with 0, a
 * random port) the api's own /healthz on PORT (default 3000) is asked. No imports: it starts in milliseconds.
 */
export {};

const env = process.env;
const metricsPort = env.METRICS_PORT && env.METRICS_PORT !== "0" ? env.METRICS_PORT : undefined;
const host = (configured: string | undefined) => (!configured || configured === "0.0.0.0" || configured === "::" ? "127.0.0.1" : configured);
const url = metricsPort ? `http://${host(env.METRICS_HOST)}:${metricsPort}/healthz` : `http://${host(env.HOST)}:${env.PORT || "3000"}/healthz`;

try {
  const res = await fetch(url, { signal: AbortSignal.timeout(4000) });
  if (!res.ok) console.error(`healthcheck: ${url} answered ${res.status}`);
  process.exit(res.ok ? 0 : 1);
} catch (err) {
  console.error(`healthcheck: ${url}: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
