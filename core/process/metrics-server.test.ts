import { expect, it } from "bun:test";
import { ConfigError } from "../config/parse-env.ts";
import { createMetrics } from "../metrics.ts";
import { startMetricsServer } from "./metrics-server.ts";

it("serves the role's metrics and health, and names METRICS_PORT when the port is taken", async () => {
  const { registry } = createMetrics("scheduler");
  const server = startMetricsServer({ host: "127.0.0.1", port: 0, registry, healthy: () => true });
  try {
    const metrics = await fetch(`http://127.0.0.1:${server.port}/metrics`).then((r) => r.text());
    expect(metrics).toContain('process_cpu_user_seconds_total{role="scheduler"}');
    expect(await fetch(`http://127.0.0.1:${server.port}/healthz`).then((r) => r.status)).toBe(200);
    let err: unknown;
    try {
      startMetricsServer({ host: "127.0.0.1", port: server.port!, registry, healthy: () => true });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toBe(`METRICS_PORT=${server.port} is taken by another process: set METRICS_PORT to a free port`);
  } finally {
    await server.stop();
  }
});
