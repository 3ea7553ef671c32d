import type { Bus } from "../../core/bus/index.ts";
import type { Sql } from "../../db/client.ts";
import { type CheckJobMessage, resultSubject, runnerSubject, unavailableResult } from "../../schemas/messages/check-messages.ts";
import type { Logger } from "../../core/log.ts";
import { staleRunnerQueues } from "../../db/queries/runners.ts";
import { type BlindSpan, FULL_VIEW } from "../../core/process/blind-time.ts";

/** Why a runner's waiting jobs cannot run, as recorded on their `unavailable` results. */
export const STALE_REASONS = {
  revoked: "runner revoked; no other runner may take its jobs",
  offline: "runner offline (no heartbeat within 3 intervals); no other runner may take its jobs",
  stopped: "runner stopped (it ended its session on shutdown); no other runner may take its jobs",
  suspended: "runner suspended over the plan's runner quota",
} as const;

/**
 * Records every job waiting on a runner's queue (including claims that came back after their ack
 * deadline or a consumer reset) as an `unavailable` result, then removes it. A runner's jobs are
 * its own (`jobs.runner.<id>`), so no other runner may take them: the gap shows as monitoring_unavailable.
 * Claims still inside their ack deadline stay put until they come back.
 */
export async function drainRunnerQueue(bus: Bus, runnerId: string, reason: string, now: () => number = Date.now): Promise<number> {
  const subject = runnerSubject(runnerId);
  let recorded = 0;
  while ((await bus.pendingJobs(subject)) > 0) {
    const batch = await bus.fetchJobs<CheckJobMessage>(subject, 100, 100);
    if (batch.length === 0) break;
    for (const d of batch) {
      const job = d.data;
      if (job?.id && job.org_id && job.monitor_id) {
        await bus.publishResult(resultSubject(job.org_id, job.monitor_id), unavailableResult({ ...job, location: runnerId, location_type: "runner" }, reason, now()));
        recorded++;
      }
      d.ack();
    }
  }
  return recorded;
}

/**
 * The scheduler leader's sweep: the queues of runners that went offline or stopped, were revoked or suspended
 * are drained into `unavailable` results. `blind` is what the sweeping process could not see (its
 * latest failed sweeps; in the all-in-one, before it started), not counted as a runner's silence;
 * `ttlSeconds` is the placement's floor of the liveness window.
 */
export async function sweepStaleRunnerQueues(sql: Sql, bus: Bus, log: Logger, blind: BlindSpan = FULL_VIEW, ttlSeconds = 15): Promise<number> {
  let total = 0;
  for (const r of await staleRunnerQueues(sql, ttlSeconds, blind)) {
    const n = await drainRunnerQueue(bus, r.id, STALE_REASONS[r.state]);
    if (n > 0) log.info({ op: "runners.stale-jobs", runnerId: r.id, state: r.state, recorded: n }, "recorded a stale runner's jobs as unavailable");
    total += n;
  }
  return total;
}
