import type { Bus, ConsumerHandle } from "../../core/bus/index.ts";
import type { Logger } from "../../core/log.ts";
import { type CheckJobMessage, type CheckResultMessage, resultSubject, runNowQueue, runNowRegionSubject } from "../../schemas/messages/check-messages.ts";

export interface RunNowServerDeps {
  bus: Bus;
  log: Logger;
  region: string;
  /** Browser engines this worker has: it also answers the region's run-now requests for each. */
  engines: readonly string[];
  /** The worker's own job execution (executeJob with its options); `record` false stores no screenshots. */
  run(job: CheckJobMessage, record: boolean): Promise<CheckResultMessage>;
}

/**
 * Answers run-now requests for this worker's region: one worker of the region (queue group) runs
 * the job exactly like a scheduled one, publishes the result on RESULTS unless the job says not to
 * record it (or it could not run), and answers with the result.
 */
export async function startRunNowServer(d: RunNowServerDeps): Promise<ConsumerHandle> {
  const handler = async (job: CheckJobMessage): Promise<CheckResultMessage> => {
    const record = job.record !== false;
    const result = await d.run(job, record);
    // A run-now that could not run is answered, not recorded as a gap in the monitor's history.
    if (record && result.status !== "unavailable") await d.bus.publishResult(resultSubject(job.org_id, job.monitor_id), result);
    d.log.info({ op: "worker.run-now", jobId: job.id, orgId: job.org_id, monitorId: job.monitor_id, status: result.status, record }, "ran a check now");
    return result;
  };
  const handles: ConsumerHandle[] = [];
  try {
    handles.push(await d.bus.serve(runNowRegionSubject(d.region), { queue: runNowQueue(d.region) }, handler));
    for (const engine of d.engines) handles.push(await d.bus.serve(runNowRegionSubject(d.region, engine), { queue: runNowQueue(d.region, engine) }, handler));
  } catch (err) {
    await Promise.all(handles.map((h) => h.stop()));
    throw err;
  }
  return { stop: async () => void (await Promise.all(handles.map((h) => h.stop()))) };
}
