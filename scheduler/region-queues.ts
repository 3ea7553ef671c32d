import type { Bus } from "../core/bus/index.ts";
import type { Sql } from "../core/db/client.ts";
import { type CheckJobMessage, regionSubject, resultSubject, unavailableResult } from "../core/jobs/messages.ts";
import type { Logger } from "../core/log.ts";
import { REGION_ONLINE_TTL_SECONDS } from "../core/regions/catalog.ts";
import { onlineRegions, regionsInUse } from "../db/queries/scheduler.ts";

/** Jobs taken from one region's queue per sweep. */
const BATCH = 500;
/** How long one fetch waits when nothing is ready (claims still inside a dead worker's ack deadline). */
const FETCH_WAIT_MS = 1000;

export const expiredUnclaimed = (region: string) => `expired unclaimed: no worker in region ${region} took the job before it expired`;

/**
 * Jobs that expire unclaimed in a region with no worker online: the scheduler published them while
 * the region looked online, then its workers went away. Nobody would ever record them (a returning
 * worker records the expired jobs it finds, but a region may stay dark for longer than the stream
 * keeps jobs), so the leader takes them from the queue: an expired job becomes an `unavailable`
 * result (monitoring_unavailable, a gap and not downtime); a job not yet expired is handed back
 * until its expiry, so a worker coming back in time still runs it. Regions with a worker online are
 * left alone: their workers record what expired in their own queue. Returns the jobs recorded.
 */
export async function sweepRegionQueues(sql: Sql, bus: Bus, log: Logger, now: () => number = Date.now): Promise<number> {
  const online = await onlineRegions(sql, REGION_ONLINE_TTL_SECONDS);
  let recorded = 0;
  for (const region of await regionsInUse(sql)) {
    if (online.has(region)) continue;
    const subject = regionSubject(region);
    if ((await bus.pendingJobs(subject)) === 0) continue;
    const batch = await bus.fetchJobs<CheckJobMessage>(subject, BATCH, FETCH_WAIT_MS);
    let here = 0;
    for (const d of batch) {
      const job = d.data;
      if (!job?.id || !job.org_id || !job.monitor_id || !Number.isFinite(job.expires_at)) {
        d.term();
        continue;
      }
      const left = job.expires_at - now();
      if (left > 0) {
        d.nak(left);
        continue;
      }
      try {
        await bus.publishResult(resultSubject(job.org_id, job.monitor_id), unavailableResult({ ...job, location: region, location_type: "region" }, expiredUnclaimed(region), now()));
        d.ack();
        here++;
      } catch (err) {
        d.nak(1000);
        log.warn({ op: "scheduler.region-queues", region, err }, "could not record an expired job; retrying next sweep");
      }
    }
    if (here > 0) log.info({ op: "scheduler.region-queues", region, recorded: here }, "recorded jobs that expired unclaimed in a region without workers as unavailable");
    recorded += here;
  }
  return recorded;
}
