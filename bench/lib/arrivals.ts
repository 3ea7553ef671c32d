/**
 * The loopback target of the scale benches: each monitor i checks `http://127.0.0.1:<port>/m/<i>`, and the target records
 * when each request arrives (performance clock), so the schedule is measured where the checks land, not where they are
 * reported.
 */
import { pct } from "./proc.ts";

export interface WindowStats {
  /** Arrivals inside the window. */
  arrivals: number;
  /** Monitors with no arrival inside the window. */
  silent: number;
  /** |interval between consecutive arrivals of a monitor − the configured interval|, ms. */
  deviationP50: number;
  deviationP99: number;
  deviationMax: number;
}

/** `delayMs`: each answer waits that long, as a distant target would (a worker's capacity is then CONCURRENCY × 1000 / delayMs). */
export function startArrivalTarget(delayMs = 0) {
  let arrivals: number[][] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const at = performance.now();
      const path = new URL(req.url).pathname;
      const i = Number(path.slice(3)); // /m/<index>
      if (path.startsWith("/m/") && Number.isInteger(i)) (arrivals[i] ??= []).push(at);
      if (delayMs > 0) await Bun.sleep(delayMs);
      return new Response("ok");
    },
  });
  return {
    port: server.port!,
    url: (i: number) => `http://127.0.0.1:${server.port}/m/${i}`,
    reset: () => void (arrivals = []),
    /** Every arrival so far. */
    total: () => arrivals.reduce((sum, a) => sum + (a?.length ?? 0), 0),
    /** Arrivals of monitors 0..n-1 in [from, to) (performance clock) against an interval of `intervalMs`. */
    window(n: number, from: number, to: number, intervalMs: number): WindowStats {
      let inWindow = 0;
      let silent = 0;
      const deviations: number[] = [];
      for (let i = 0; i < n; i++) {
        const times = (arrivals[i] ?? []).filter((t) => t >= from && t < to);
        inWindow += times.length;
        if (times.length === 0) silent++;
        for (let k = 1; k < times.length; k++) deviations.push(Math.abs(times[k]! - times[k - 1]! - intervalMs));
      }
      deviations.sort((a, b) => a - b);
      return { arrivals: inWindow, silent, deviationP50: pct(deviations, 0.5), deviationP99: pct(deviations, 0.99), deviationMax: deviations.at(-1) ?? NaN };
    },
    /**
     * The same deviations per `bucketMs` of the window, by the later arrival's time: when the schedule slipped, to set
     * beside the service's log (one line per bucket: seconds into the window, arrivals, p50, p99, max).
     */
    timeline(n: number, from: number, to: number, intervalMs: number, bucketMs = 1000): string[] {
      const buckets: number[][] = Array.from({ length: Math.ceil((to - from) / bucketMs) }, () => []);
      for (let i = 0; i < n; i++) {
        const times = (arrivals[i] ?? []).filter((t) => t >= from && t < to);
        for (let k = 1; k < times.length; k++) buckets[Math.floor((times[k]! - from) / bucketMs)]!.push(Math.abs(times[k]! - times[k - 1]! - intervalMs));
      }
      return buckets.map((d, b) => {
        d.sort((x, y) => x - y);
        return `${((b * bucketMs) / 1000).toFixed(0)} ${d.length} ${pct(d, 0.5).toFixed(0)} ${pct(d, 0.99).toFixed(0)} ${(d.at(-1) ?? 0).toFixed(0)}`;
      });
    },
    stop: () => server.stop(true),
  };
}
