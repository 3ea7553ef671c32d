import { AggregatorRegistry, collectDefaultMetrics, Counter, Histogram, type MetricObjectWithValues, type MetricValue, Registry } from "prom-client";

/** A snapshot of another registry (`getMetricsAsJSON()`), e.g. of a worker thread's. */
export type MetricsSnapshot = MetricObjectWithValues<MetricValue<string>>[];

/**
 * A registry that also prints metrics held elsewhere in the process (worker threads have registries of their own):
 * a metric several sources have, this one included, is printed once with its values summed per label set (gauges,
 * counters and histogram buckets alike), as prom-client's cluster aggregation does.
 */
export class MergingRegistry extends Registry {
  private readonly sources = new Set<() => Promise<MetricsSnapshot[]>>();
  private defaults: Record<string, string> = {};

  /** `read` answers the current snapshots of the other registries; returns the function that removes it. */
  addSource(read: () => Promise<MetricsSnapshot[]>): () => void {
    this.sources.add(read);
    return () => this.sources.delete(read);
  }

  override setDefaultLabels(labels: object): void {
    this.defaults = { ...(labels as Record<string, string>) };
    super.setDefaultLabels(labels);
  }

  override async metrics(): Promise<string> {
    const others = (await Promise.all([...this.sources].map((read) => read()))).flat();
    const names = new Set(others.flat().map((m) => m.name));
    if (names.size === 0) return super.metrics();
    const mine = this.getMetricsAsArray();
    const own = await Promise.all(mine.filter((m) => !names.has(m.name)).map((m) => this.getSingleMetricAsString(m.name)));
    const shared = await Promise.all(
      mine
        .filter((m) => names.has(m.name))
        .map(async (m) => {
          const got = (await this.getSingleMetric(m.name)!.get()) as MetricObjectWithValues<MetricValue<string>>;
          return { ...got, values: got.values.map((v) => ({ ...v, labels: { ...this.defaults, ...v.labels } })) };
        }),
    );
    const merged = await AggregatorRegistry.aggregate([shared, ...others]).metrics();
    return `${[...own, merged.trimEnd()].join("\n\n")}\n`;
  }
}

const HEAP_SPACE_METRICS = ["nodejs_heap_space_size_total_bytes", "nodejs_heap_space_size_used_bytes", "nodejs_heap_space_size_available_bytes"];

/** One Prometheus registry per process, with the process metrics every role exposes. */
export function createMetrics(role: string) {
  const registry = new MergingRegistry();
  registry.setDefaultLabels({ role });
  collectDefaultMetrics({ register: registry });
  // Bun answers v8.getHeapSpaceStatistics() by counting every object on the heap (~150 ms per million objects, on the
  // scraped thread, at every scrape) for V8's heap spaces, which JavaScriptCore does not have: all zero but one.
  for (const name of HEAP_SPACE_METRICS) registry.removeSingleMetric(name);
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
