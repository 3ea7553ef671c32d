/**
 * A loopback webhook receiver for the alerting benches: when each monitor's first `alert` delivery arrived (performance
 * clock, taken before the body is read), and how many deliveries arrived in all.
 */
export function startWebhookReceiver() {
  const alerts = new Map<string, number>();
  let deliveries = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const at = performance.now();
      deliveries++;
      const body = (await req.json()) as { kind: string; monitor: { id: string } };
      if (body.kind === "alert" && !alerts.has(body.monitor.id)) alerts.set(body.monitor.id, at);
      return new Response("ok");
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/hook`,
    /** Monitor id → arrival of its first `alert` delivery. */
    alerts,
    deliveries: () => deliveries,
    stop: () => server.stop(true),
  };
}
