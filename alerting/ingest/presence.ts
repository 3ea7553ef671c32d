import { Value } from "@sinclair/typebox/value";
import type { Bus } from "../../core/bus/index.ts";
import type { Logger } from "../../core/log.ts";
import type { Sql } from "../../db/client.ts";
import { deleteWorker, upsertWorkerBeat } from "../../db/queries/region-workers.ts";
import { WORKER_BEATS, WORKER_ROLL_CALL, WorkerBeatMessage } from "../../schemas/messages/worker-beat.ts";

export interface PresenceRecorder {
  /** Stops listening and waits for the writes already started. */
  stop(): Promise<void>;
}

/**
 * Records the cloud workers' beats (`workers.<region>.<worker>`) in region_workers, which the scheduler
 * and the region views read with their TTL. Idempotent, so every ingest instance may run it. One worker's
 * beats are written in the order they came, so a `gone` is never overtaken by the beat before it.
 */
export async function startPresenceRecorder({ sql, bus, log }: { sql: Sql; bus: Bus; log: Logger }): Promise<PresenceRecorder> {
  const chains = new Map<string, Promise<void>>();
  let failing = false;
  const write = async (b: WorkerBeatMessage) => {
    try {
      if (b.gone) await deleteWorker(sql, b.workerId);
      else
        await upsertWorkerBeat(sql, {
          workerId: b.workerId,
          region: b.region,
          hostname: b.hostname,
          version: b.version,
          concurrency: b.concurrency,
          browsers: b.browsers,
          inFlight: b.inFlight,
          checksTotal: b.checksTotal,
          recentP50Ms: b.recentP50Ms,
          startedAt: new Date(b.startedAt),
        });
      if (failing) log.info({ op: "ingest.presence" }, "worker presence recorded again");
      failing = false;
    } catch (err) {
      if (!failing) log.warn({ op: "ingest.presence", err, workerId: b.workerId }, "could not record a worker's beat; its region may show offline");
      failing = true;
    }
  };
  const unsubscribe = bus.subscribeEvents<unknown>(WORKER_BEATS, (body, subject) => {
    if (!Value.Check(WorkerBeatMessage, body)) {
      log.warn({ op: "ingest.presence", subject }, "dropping malformed worker beat");
      return;
    }
    const next = (chains.get(body.workerId) ?? Promise.resolve()).then(() => write(body));
    chains.set(body.workerId, next);
    void next.then(() => {
      if (chains.get(body.workerId) === next) chains.delete(body.workerId);
    });
  });
  bus.publishEvent(WORKER_ROLL_CALL, {});
  return {
    async stop() {
      unsubscribe();
      await Promise.all(chains.values());
    },
  };
}
