import { Counter, Gauge, Histogram, type Registry } from "prom-client";

/** The scheduler's Prometheus metrics, registered on the process registry when one is given. */
export function createSchedulerMetrics(registry?: Registry) {
  const registers = registry ? [registry] : [];
  return {
    jobs: new Counter({ name: "watchpost_scheduler_jobs_published_total", help: "Check jobs published", labelNames: ["location_type"] as const, registers }),
    unavailable: new Counter({
      name: "watchpost_scheduler_unavailable_total",
      help: "Due checks the scheduler recorded as unavailable: their location could not run them, or the bus did not take them before they expired (bus_outage)",
      labelNames: ["reason"] as const,
      registers,
    }),
    skipped: new Counter({ name: "watchpost_scheduler_maintenance_skipped_total", help: "Due checks not scheduled because a maintenance window paused the monitor", registers }),
    publishErrors: new Counter({ name: "watchpost_scheduler_publish_errors_total", help: "Failed publish attempts (retried until the job expires, then recorded unavailable once the bus is back)", registers }),
    dropped: new Counter({ name: "watchpost_scheduler_dropped_total", help: "Due checks given up unrecorded: expired while queued behind an overloaded publisher, or owed past the gaps kept while the bus is down", registers }),
    lag: new Histogram({
      name: "watchpost_scheduler_publish_lag_seconds",
      help: "From a check's due time until the bus confirmed its job",
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    }),
    monitors: new Gauge({ name: "watchpost_scheduler_monitors", help: "Monitors in the schedule", registers }),
    leader: new Gauge({ name: "watchpost_scheduler_leader", help: "1 while this instance is the active scheduler", registers }),
    // Backpressure (scheduler/admission.ts): a queue holding more than SCHEDULER_QUEUE_SECONDS of work. A region's
    // standard queue is labelled by region, each browser engine's queue of it by region and engine.
    overloaded: new Gauge({
      name: "watchpost_scheduler_overloaded",
      help: "1 while the region's queue (or, with an engine label, its browser engine's queue) is over capacity: due checks wait for it to drain and the schedule slips",
      labelNames: ["region", "engine"] as const,
      registers,
    }),
    scheduleLag: new Gauge({
      name: "watchpost_scheduler_schedule_lag_seconds",
      help: "How long the oldest due check kept back for the region's queue has waited (0 while it keeps up)",
      labelNames: ["region", "engine"] as const,
      registers,
    }),
    waiting: new Gauge({ name: "watchpost_scheduler_waiting_checks", help: "Due checks kept back for the region's queue (one per monitor at most)", labelNames: ["region", "engine"] as const, registers }),
    queued: new Gauge({ name: "watchpost_scheduler_queue_jobs", help: "Jobs in the region's queue (waiting and running) at the last sample", labelNames: ["region", "engine"] as const, registers }),
    slipped: new Counter({
      name: "watchpost_scheduler_slipped_total",
      help: "Due checks merged into the same monitor's check still waiting for the region's queue (checked less often, not recorded unavailable)",
      labelNames: ["region", "engine"] as const,
      registers,
    }),
    runnersOverloaded: new Gauge({
      name: "watchpost_scheduler_runners_overloaded",
      help: "Self-hosted runners over capacity now: their due checks wait for their queues to drain (each runner's status shows its own)",
      registers,
    }),
    runnerWaiting: new Gauge({ name: "watchpost_scheduler_runner_waiting_checks", help: "Due checks kept back for self-hosted runners' queues, all runners together", registers }),
  };
}

export type SchedulerMetrics = ReturnType<typeof createSchedulerMetrics>;
