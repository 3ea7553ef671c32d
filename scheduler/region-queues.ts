import type { Bus, JobSubject } from "../core/bus/index.ts";
import type { Sql } from "../db/client.ts";
import { type CheckJobMessage, resultSubject, unavailableResult } from "../schemas/messages/check-messages.ts";
import type { Logger } from "../core/log.ts";
import { BEATS_STALL_GRACE_SECONDS, REGION_ONLINE_TTL_SECONDS } from "../domain/regions/catalog.ts";
import { onlineRegionEngines } from "../db/queries/browser-placement.ts";
import { onlineRegions } from "../db/queries/scheduler.ts";
import { type Engine, ENGINES } from "../schemas/checks/browser-engines.ts";

/** Jobs taken from one region's queue per sweep. */
const BATCH = 500;
/** How long one fetch waits when nothing is ready (claims still inside a dead worker's ack deadline). */
const FETCH_WAIT_MS = 1000;

export const expiredUnclaimed = (region: string, engine?: string) =>
  `expired unclaimed: no worker${engine ? ` with a ${engine} browser` : ""} in region ${region} took the job before it expired`;

/**
 * Jobs that expire unclaimed in a region with no worker online: the scheduler published them while
 * the region looked online, then its workers went away. Nobody would ever record them (a returning
 * worker records the expired jobs it finds, but a region may stay dark for longer than the stream
 * keeps jobs), so the leader takes them from the queue: an expired job becomes an `unavailable`
 * result (monitoring_unavailable, a gap and not downtime); a job not yet expired is handed back
 * until its expiry, so a worker coming back in time still runs it. Regions with a worker online are
 * left alone: their workers record what expired in their own queue. The same holds for each browser
 * engine's queue of a region (`jobs.region.<r>.<engine>`) and the workers offering that engine.
 * Returns the jobs recorded.
 */
export async function sweepRegionQueues(sql: Sql, bus: Bus, log: Logger, now: () => number = Date.now): Promise<number> {
  // The queues that hold jobs, from the bus in one read: no scan of every monitor's regions (at 100,000 monitors
  // 120-160 ms of PostgreSQL every sweep; docs/performance.md).
  const queues = await bus.pendingJobsBySubject("jobs.region.>");
  if (queues.size === 0) return 0;
  const [online, engines] = await Promise.all([
    onlineRegions(sql, REGION_ONLINE_TTL_SECONDS, BEATS_STALL_GRACE_SECONDS),
    onlineRegionEngines(sql, REGION_ONLINE_TTL_SECONDS, BEATS_STALL_GRACE_SECONDS),
  ]);
  let recorded = 0;
  for (const subject of queues.keys()) {
    const queue = regionQueueOf(subject);
    if (!queue) continue;
    const { region, engine } = queue;
    // A region's own queue needs a worker online there; each browser engine's queue a worker offering that engine.
    if (engine ? engines.get(region)?.has(engine) : online.has(region)) continue;
    recorded += await sweepQueue(bus, log, region, subject, engine, now);
  }
  return recorded;
}

/** `jobs.region.<region>` or `jobs.region.<region>.<engine>` (regionSubject, regionBrowserSubject). */
function regionQueueOf(subject: JobSubject): { region: string; engine?: Engine } | null {
  const [region, engine, ...rest] = subject.slice("jobs.region.".length).split(".");
  if (!region || rest.length > 0) return null;
  if (engine === undefined) return { region };
  const known = ENGINES.find((e) => e === engine);
  return known ? { region, engine: known } : null;
}

async function sweepQueue(bus: Bus, log: Logger, region: string, subject: JobSubject, engine: string | undefined, now: () => number): Promise<number> {
  const batch = await bus.fetchJobs<CheckJobMessage>(subject, BATCH, FETCH_WAIT_MS);
  let recorded = 0;
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
      await bus.publishResult(resultSubject(job.org_id, job.monitor_id), unavailableResult({ ...job, location: region, location_type: "region" }, expiredUnclaimed(region, engine), now()));
      d.ack();
      recorded++;
    } catch (err) {
      d.nak(1000);
      log.warn({ op: "scheduler.region-queues", region, subject, err }, "could not record an expired job; retrying next sweep");
    }
  }
  if (recorded > 0) log.info({ op: "scheduler.region-queues", region, engine, recorded }, "recorded jobs that expired unclaimed in a region without workers as unavailable");
  return recorded;
}
