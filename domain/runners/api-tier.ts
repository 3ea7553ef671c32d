import type { Sql } from "../../db/client.ts";
import { apiTierAbsences } from "../../db/queries/api-presence.ts";
import type { BlindStretch } from "../../core/process/blind-time.ts";
import type { Logger } from "../../core/log.ts";

/**
 * What the scaled mode's judges of silence (runners, heartbeat monitors) could not see elsewhere: the stretches
 * when no API process was up (`BlindTimeOptions.elsewhere`). Tells the operator once when the last API stopped
 * beating, and once when one is back: meanwhile no runner goes offline and no missed deadline is recorded down.
 */
export function apiTierWatch(sql: Sql, log: Logger): () => Promise<BlindStretch[]> {
  const read = apiTierAbsences(sql);
  let absent = false;
  return async () => {
    const gaps = await read();
    const open = gaps.find((g) => g.toAgoS === 0);
    if (open && !absent) {
      log.warn(
        { op: "api-tier.absent", since_seconds: Math.round(open.fromAgoS) },
        "no API process is up: pings and runner heartbeats cannot arrive, so missed heartbeat deadlines are recorded unavailable and no runner is taken offline until one is back",
      );
    } else if (!open && absent) {
      log.info({ op: "api-tier.back" }, "an API process is up again");
    }
    absent = open !== undefined;
    return gaps;
  };
}
