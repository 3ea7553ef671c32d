import { collectDefaultMetrics, Counter, Histogram, Registry } from "prom-client";

/** One Prometheus registry per process, with the process metrics every role exposes. */
export function createMetrics(role: string) {
  const registry = new Registry();
  registry.setDefaultLabels({ role });
  collectDefaultMetrics({ register: registry });
  const httpRequests = new Counter({
    name: "watchpost_http_requests_total",
    help: "HTTP requests by method, route template and status",
    labelNames: ["method", "route", "status"] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: "watchpost_http_request_duration_seconds",
    help: "HTTP request latency by method, route template and status",
    labelNames: ["method", "route", "status"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  return { registry, httpRequests, httpDuration };
}

export type Metrics = ReturnType<typeof createMetrics>;
