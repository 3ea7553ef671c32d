import { hostname } from "node:os";
import type { Sql } from "../db/client.ts";
import { API_BEAT_MS, beatApiPresence } from "../db/queries/api-presence.ts";
import { newId } from "../core/ids.ts";
import type { Logger } from "../core/log.ts";
import { type PeriodicTask, runPeriodically } from "../core/process/periodic.ts";

/**
 * Records, while this API listens, that it is up (db/queries/api-presence.ts): the scaled mode's scheduler and
 * alerting then tell an outage of every API process, when no ping could arrive, from a silent job or runner.
 */
export function startApiPresence(sql: Sql, log: Logger, beatMs = API_BEAT_MS): PeriodicTask {
  const instanceId = `api/${hostname()}/${process.pid}/${newId("api").slice(-6)}`;
  let first = true;
  return runPeriodically(
    "api.presence",
    beatMs,
    async () => {
      await beatApiPresence(sql, instanceId, first);
      first = false;
    },
    log,
  );
}
