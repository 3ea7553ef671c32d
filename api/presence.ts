import { hostname } from "node:os";
import type { Sql } from "../db/client.ts";
import { API_BEAT_MS, beatApiPresence } from "../db/queries/api-presence.ts";
import { newId } from "../core/ids.ts";
import type { Logger } from "../core/log.ts";
import { runPeriodically } from "../core/process/periodic.ts";

export interface ApiPresence {
  /** A request found the database unreachable: the next good beat records the stretch since the last one. */
  interrupted(): void;
  stop(): Promise<void>;
}

/**
 * Records, while this API listens, that it is up (db/queries/api-presence.ts), and when it could not reach the
 * database: the scaled mode's scheduler and alerting then tell an outage of the path pings take from a silent job
 * or runner. A failed beat counts as an interruption too.
 */
export function startApiPresence(sql: Sql, log: Logger, beatMs = API_BEAT_MS, clock: () => number = () => performance.now()): ApiPresence {
  const instanceId = `api/${hostname()}/${process.pid}/${newId("api").slice(-6)}`;
  let first = true;
  let lastGood = clock();
  /** Interruptions seen so far; `recorded` of them are in the database (or ended before a good beat). */
  let seen = 0;
  let recorded = 0;
  const task = runPeriodically(
    "api.presence",
    beatMs,
    async () => {
      const at = clock();
      const upTo = seen;
      try {
        await beatApiPresence(sql, { instanceId, first, interruptedForS: upTo > recorded ? (at - lastGood) / 1000 : null });
      } catch (err) {
        seen++;
        throw err;
      }
      // One seen during this beat is recorded by the next, from this beat on.
      recorded = upTo;
      first = false;
      lastGood = at;
    },
    log,
  );
  return {
    interrupted: () => void seen++,
    stop: () => task.stop(),
  };
}
