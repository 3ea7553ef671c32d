/**
 * Failing result → webhook while loaded (#24 goal 1), through what a user sets up in the API: `count` HTTP probe monitors
 * (tag `bench-probe`) check `/p/<k>` on their own loopback target, which answers 200 until probe k's flip instant and 500
 * from then on; one alert rule on that tag sends to a webhook channel pointed at a loopback receiver. The rule fires on
 * the first failing check (PROBE_RULE), so latency = the webhook's arrival − the arrival at the target of the check that
 * first got the 500, both on this process's clock.
 */
import { pct } from "./proc.ts";
import { startWebhookReceiver } from "./webhook-receiver.ts";

/** What the probes' rule asks before it fires and sends, printed beside the figures. */
export const PROBE_RULE = "status down/timeout, 1 consecutive failure, channel delay 0";
const TAG = "bench-probe";

export interface ProbeStats {
  /** Probes whose first failing answer arrived in the window: each must fire one alert. */
  expected: number;
  /** Of those, the ones whose webhook arrived. */
  received: number;
  /** Webhook arrival − first failing answer, ms. */
  p50: number;
  p99: number;
  max: number;
}

async function create<T>(url: string, headers: Record<string, string>, body: unknown): Promise<T> {
  const res = await fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
  if (res.status !== 201) throw new Error(`POST ${new URL(url).pathname}: ${res.status} ${(await res.text()).slice(0, 500)}`);
  return (await res.json()) as T;
}

/** `headers`: a signed-in session's (cookie, CSRF token, JSON content type). */
export async function startAlertProbes(base: string, headers: Record<string, string>, count: number, intervalS: number) {
  const flipAt: number[] = Array.from({ length: count }, () => Infinity);
  const firstFailure: number[] = [];
  const target = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const at = performance.now();
      const k = Number(new URL(req.url).pathname.slice(3)); // /p/<k>
      if (!(at >= (flipAt[k] ?? Infinity))) return new Response("ok");
      firstFailure[k] ??= at;
      return new Response("failing on purpose", { status: 500 });
    },
  });
  const receiver = startWebhookReceiver();
  const stop = () => {
    target.stop(true);
    receiver.stop();
  };
  let ids: string[] = [];
  try {
    if (count > 0) {
      const channel = await create<{ id: string }>(`${base}/api/v1/alert-channels`, headers, { name: "bench webhook", type: "webhook", config: { url: receiver.url } });
      await create(`${base}/api/v1/alert-rules`, headers, {
        name: "bench probes down",
        scope: { type: "monitor_group", tag: TAG },
        condition: { type: "status_change", to: ["down", "timeout"] },
        confirmation: { consecutive_failures: 1 },
        notifications: { on_recovery: false, recurring: false },
        channels: [{ channel_id: channel.id, delay_minutes: 0 }],
      });
      const monitors = Array.from({ length: count }, (_, k) => ({
        name: `probe${k}`,
        type: "http",
        config: { url: `http://127.0.0.1:${target.port}/p/${k}` },
        interval_seconds: intervalS,
        timeout_ms: 5000,
        tags: [TAG],
      }));
      ids = (await create<{ data: { id: string }[] }>(`${base}/api/v1/monitors/bulk`, headers, { monitors })).data.map((m) => m.id);
    }
  } catch (err) {
    stop();
    throw err;
  }
  return {
    /** The probe monitors' ids. */
    ids,
    /** Probe k answers 500 from `from + k × spanMs / count` on (performance clock). */
    flip(from: number, spanMs: number) {
      for (let k = 0; k < count; k++) flipAt[k] = from + (k * spanMs) / count;
    },
    /** The probes whose first failing answer arrived before `until`, and their webhooks (waiting up to `graceMs` for the last ones). */
    async stats(until: number, graceMs: number): Promise<ProbeStats> {
      const expected = ids.flatMap((id, k) => (firstFailure[k] !== undefined && firstFailure[k]! < until ? [{ id, failedAt: firstFailure[k]! }] : []));
      const deadline = performance.now() + graceMs;
      while (expected.some((p) => !receiver.alerts.has(p.id)) && performance.now() < deadline) await Bun.sleep(100);
      const latencies = expected.flatMap((p) => (receiver.alerts.has(p.id) ? [receiver.alerts.get(p.id)! - p.failedAt] : [])).sort((a, b) => a - b);
      return { expected: expected.length, received: latencies.length, p50: pct(latencies, 0.5), p99: pct(latencies, 0.99), max: latencies.at(-1) ?? NaN };
    },
    stop,
  };
}
