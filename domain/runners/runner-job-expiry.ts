import type { BlindSpan } from "../../core/process/blind-time.ts";

/** A stretch of the schedule's clock (ms) in which no runner could be heard: [from, to). */
export type Unheard = readonly [from: number, to: number];

/** A judge's blind span (core/process/blind-time.ts) as stretches of the schedule's clock at `now`; an open one ends at `now`. */
export function unheardStretches(span: BlindSpan, now: number): Unheard[] {
  return span.gaps.map((g) => [now - g.fromAgoS * 1000, now - g.toAgoS * 1000] as const);
}

/**
 * When a runner's job due at `due` expires: once `lifeMs` of time in which its runner could have been heard has passed
 * since `due`. A runner takes its jobs through the API, so while the API was down (the all-in-one stopped, no API
 * process up) it could take none and a job's life does not run: one due then lives `lifeMs` from when the runner could
 * reach the API again, time to reach it after its retry period. `unheard` may overlap and come in any order. The
 * scheduler counts it when it publishes (what it knows then), the API again when it hands the job out (an outage
 * still under way at the publish, docs/runners.md).
 */
export function heardExpiry(due: number, lifeMs: number, unheard: readonly Unheard[]): number {
  let at = due;
  let left = lifeMs;
  for (const [from, to] of [...unheard].sort((a, b) => a[0] - b[0])) {
    if (to <= at) continue;
    if (from > at) {
      // The life ran out before this stretch began.
      if (from - at >= left) break;
      left -= from - at;
    }
    at = to;
  }
  return at + left;
}
