import type { Sql } from "../../db/client.ts";
import type { Logger } from "../../core/log.ts";
import { type PeriodicTask, runPeriodically } from "../../core/process/periodic.ts";
import { announceOfflineRunners, announceRecoveredRunners } from "../../db/queries/runner-liveness.ts";
import { type BlindSpan, BlindTime, FULL_VIEW } from "../../core/process/blind-time.ts";

/**
 * One sweep: runners that went offline or came back since the last one each get one in-app notification.
 * `blind` is what the sweeping process could not see (its failed sweeps; in the all-in-one, before it started; in the scaled mode, while no API process was up): not counted as silence.
 */
export async function sweepRunnerLiveness(sql: Sql, log: Logger, blind: BlindSpan = FULL_VIEW): Promise<{ offline: number; online: number }> {
  const offline = await announceOfflineRunners(sql, blind);
  const online = await announceRecoveredRunners(sql);
  for (const r of offline) log.info({ op: "alerting.runners", orgId: r.org_id, runnerId: r.runner_id }, "runner went offline");
  for (const r of online) log.info({ op: "alerting.runners", orgId: r.org_id, runnerId: r.runner_id }, "runner back online");
  return { offline: offline.length, online: online.length };
}

/**
 * Runs the sweep every `intervalMs` in each alerting process; the sweeps are safe to run concurrently. After its
 * sweeps failed (the database unreachable), in the all-in-one after the process started, or in the scaled mode after
 * every API process was down (`blind`), a runner is
 * announced offline only once it has been silent for its whole window while this process could see: not for an
 * outage every runner sat out.
 */
export function startRunnerWatch(sql: Sql, log: Logger, intervalMs = 10_000, blind = new BlindTime()): PeriodicTask {
  return runPeriodically("alerting.runners", intervalMs, () => blind.watch((span) => sweepRunnerLiveness(sql, log, span)), log);
}
