import type { Sql } from "../../db/client.ts";
import type { Logger } from "../../core/log.ts";
import { type PeriodicTask, runPeriodically } from "../../core/process/periodic.ts";
import { announceOfflineRunners, announceRecoveredRunners } from "../../db/queries/runner-liveness.ts";

/** One sweep: runners that went offline or came back since the last one each get one in-app notification. */
export async function sweepRunnerLiveness(sql: Sql, log: Logger): Promise<{ offline: number; online: number }> {
  const offline = await announceOfflineRunners(sql);
  const online = await announceRecoveredRunners(sql);
  for (const r of offline) log.info({ op: "alerting.runners", orgId: r.org_id, runnerId: r.runner_id }, "runner went offline");
  for (const r of online) log.info({ op: "alerting.runners", orgId: r.org_id, runnerId: r.runner_id }, "runner back online");
  return { offline: offline.length, online: online.length };
}

/** Runs the sweep every `intervalMs` in each alerting process; the sweeps are safe to run concurrently. */
export function startRunnerWatch(sql: Sql, log: Logger, intervalMs = 10_000): PeriodicTask {
  return runPeriodically("alerting.runners", intervalMs, () => sweepRunnerLiveness(sql, log), log);
}
