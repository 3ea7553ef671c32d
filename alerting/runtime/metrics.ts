import { Counter, Histogram, type Registry } from "prom-client";

/** The alerting metrics of a process (shared when several alerting consumers run in one process). */
export function createAlertingMetrics(registry: Registry) {
  const reuse = <M>(name: string, make: () => M): M => (registry.getSingleMetric(name) as M | undefined) ?? make();
  return {
    evaluated: reuse(
      "watchpost_alerting_results_evaluated_total",
      () => new Counter({ name: "watchpost_alerting_results_evaluated_total", help: "Check results matched against the alert rules", registers: [registry] }),
    ),
    deliveries: reuse(
      "watchpost_alerting_deliveries_total",
      () =>
        new Counter({
          name: "watchpost_alerting_deliveries_total",
          help: "Delivery attempts by kind (alert, escalation, reminder, recovery, acknowledgement) and outcome (sent, retrying, failed)",
          labelNames: ["kind", "outcome"] as const,
          registers: [registry],
        }),
    ),
    sendSeconds: reuse(
      "watchpost_alerting_send_seconds",
      () =>
        new Histogram({
          name: "watchpost_alerting_send_seconds",
          help: "Time one delivery attempt took the channel (webhook, chat, e-mail ...)",
          labelNames: ["outcome"] as const,
          buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
          registers: [registry],
        }),
    ),
    latency: reuse(
      "watchpost_alerting_notify_latency_seconds",
      () =>
        new Histogram({
          name: "watchpost_alerting_notify_latency_seconds",
          help: "From the event (the check that fired or cleared an alert, an escalation or reminder coming due) to its delivery being sent",
          labelNames: ["kind"] as const,
          buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
          registers: [registry],
        }),
    ),
  };
}

export type DispatcherMetrics = ReturnType<typeof createAlertingMetrics>;
