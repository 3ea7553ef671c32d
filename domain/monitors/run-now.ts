import { type Bus, NoResponderError, RemoteError, RequestTimeoutError } from "../../core/bus/index.ts";
import { AppError, conflict } from "../../core/errors.ts";
import { type Logger, silentLogger } from "../../core/log.ts";
import type { Sql } from "../../db/client.ts";
import type { MonitorRow } from "../../db/queries/monitors.ts";
import { selectResultByJobId } from "../../db/queries/results.ts";
import { findRunner } from "../../db/queries/runners.ts";
import { browserEngineOf } from "../../schemas/checks/browser-fields.ts";
import {
  type CheckJobMessage,
  type CheckResultMessage,
  runNowJobId,
  runNowRegionSubject,
  runNowReplySubject,
  runnerSubject,
} from "../../schemas/messages/check-messages.ts";
import { MAX_CLAIM_WAIT_MS } from "../../schemas/runner-protocol.ts";
import { announceStored } from "../results/announce.ts";
import { storeResultArtifacts } from "../results/artifacts.ts";
import { storeResults } from "../results/ingest.ts";
import type { CheckResultInput } from "../results/types.ts";
import { runnerStatus } from "../runners/service.ts";
import { buildCheckJob } from "./job.ts";

export interface RunNowContext {
  sql: Sql;
  /** Where a failure to store the run's screenshots is said (the result is stored without them). */
  log?: Logger;
  bus: Bus;
  /** Wait beyond the check's own timeout for the worker (or runner) to answer; default 5 s. */
  graceMs?: number;
}

export interface RunNowResult {
  id: string | null;
  status: Exclude<CheckResultMessage["status"], "unavailable">;
  duration_ms: number;
  error: string | null;
  data: CheckResultMessage["data"];
  checked_at: string;
  location: string;
  recorded: boolean;
}

/** How long a run-now job may wait to be started (the worker records later starts as unavailable). */
const RUN_NOW_EXPIRY_MS = 60_000;

const unavailable = (message: string, details: Record<string, unknown>) => new AppError(503, "SERVICE_UNAVAILABLE", message, details);

/**
 * Runs a monitor's check once, now, where the monitor runs: its first assigned runner that is
 * online, else its first region. The job is the scheduler's (same builder, secrets sealed) and goes
 * as a bus request to one worker of the region (per browser engine, like the job queues), or on the
 * runner's queue with this instance waiting on `rpc.reply.<jobId>`. Unless the monitor is paused or
 * suspended the worker publishes the result on RESULTS, and it is stored here too (idempotent on the
 * job id) before the answer, so a read right after the answer sees it. Nobody to run it: 503.
 */
export async function runMonitorNow(ctx: RunNowContext, monitor: MonitorRow): Promise<RunNowResult> {
  if (monitor.type === "heartbeat") throw conflict("Heartbeat monitors are checked by their pings; there is nothing to run");
  const record = !monitor.paused && !monitor.suspended;
  const now = Date.now();
  // A runner that has stopped heartbeating would never claim the job: only an online one is asked.
  const rows = await Promise.all(monitor.runner_ids.map((id) => findRunner(ctx.sql, monitor.org_id, id)));
  const runner = rows.find((r) => r && runnerStatus(r, now) === "online")?.id;
  const region = monitor.regions[0];
  if (!runner && !region) {
    if (monitor.runner_ids.length > 0) {
      throw unavailable(`Runner ${monitor.runner_ids[0]} is offline and the monitor has no region; the check keeps its schedule`, { reason: "runner_offline", runner_id: monitor.runner_ids[0] });
    }
    throw unavailable("The monitor has no region or runner to run on", { reason: "no_location" });
  }
  const location = runner ?? region!;
  const job = buildCheckJob(monitor, {
    id: runNowJobId(monitor.id, now),
    location,
    location_type: runner ? "runner" : "region",
    due_at: now,
    expires_at: now + RUN_NOW_EXPIRY_MS,
    record,
  });
  const grace = ctx.graceMs ?? 5000;
  const result = runner ? await viaRunner(ctx.bus, job, runner, grace) : await viaRegion(ctx.bus, job, region!, browserEngineOf(monitor.type, monitor.config), grace);
  if (result.status === "unavailable") {
    // It did not run (a worker without the engine's free browser, expired, undecryptable secrets): nothing to record.
    throw unavailable(`The check could not run now: ${result.error ?? "unavailable"}`, { reason: "unavailable", location });
  }

  let id: string | null = null;
  if (record) {
    const input = toInput(result);
    // Its screenshots first, as ingest does for the published copy: otherwise the answer names files that ingest
    // may not have stored yet (a GET of the screenshot right after answered 404).
    if ((result.artifacts?.length ?? 0) > 0) input.data = { ...input.data, screenshots: await storeResultArtifacts(ctx.sql, ctx.log ?? silentLogger, result) };
    const stored = await storeResults(ctx.sql, [input]);
    announceStored(ctx.bus, stored, [input]);
    // Ingest may have stored the published copy first: then the row is there, with its own id.
    id = stored.inserted[0]?.id ?? (await selectResultByJobId(ctx.sql, monitor.org_id, monitor.id, job.id))?.id ?? null;
  }
  return {
    id,
    status: result.status as RunNowResult["status"],
    // Whole milliseconds, as stored: the answer and a read of the stored check agree.
    duration_ms: Math.max(0, Math.round(result.duration_ms)),
    error: result.error,
    data: result.data,
    checked_at: new Date(result.checked_at).toISOString(),
    location: result.location,
    recorded: record,
  };
}

async function viaRegion(bus: Bus, job: CheckJobMessage, region: string, engine: string | null, graceMs: number): Promise<CheckResultMessage> {
  try {
    return await bus.request<CheckJobMessage, CheckResultMessage>(runNowRegionSubject(region, engine), job, { timeoutMs: job.timeout_ms + graceMs });
  } catch (err) {
    if (err instanceof NoResponderError) {
      const what = engine === null ? "" : ` with a ${engine} browser`;
      throw unavailable(`No worker of region ${region}${what} is connected; the check keeps its schedule`, { reason: "no_worker", location: region, ...(engine === null ? {} : { engine }) });
    }
    if (err instanceof RequestTimeoutError) throw unavailable(`The worker of region ${region} did not answer in time`, { reason: "timeout", location: region });
    if (err instanceof RemoteError) throw unavailable(`The worker of region ${region} could not run the check: ${err.message}`, { reason: "worker_failed", location: region });
    throw err;
  }
}

/** Runners poll over HTTPS: the job goes on the runner's queue, and the API instance it reports to forwards the result here. */
async function viaRunner(bus: Bus, job: CheckJobMessage, runnerId: string, graceMs: number): Promise<CheckResultMessage> {
  let deliver: (m: CheckResultMessage) => void = () => {};
  const arrived = new Promise<CheckResultMessage>((resolve) => (deliver = resolve));
  const waiting = await bus.serve<CheckResultMessage, null>(runNowReplySubject(job.id), {}, async (m) => {
    deliver(m);
    return null;
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await bus.publishJob(runnerSubject(runnerId), job);
    const timeoutMs = job.timeout_ms + MAX_CLAIM_WAIT_MS + graceMs;
    const timedOut = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), timeoutMs)));
    const result = await Promise.race([arrived, timedOut]);
    if (!result) throw unavailable(`Runner ${runnerId} did not report the check in time; is it connected?`, { reason: "timeout", location: runnerId, runner_id: runnerId });
    return result;
  } finally {
    clearTimeout(timer);
    await waiting.stop();
  }
}

function toInput(m: CheckResultMessage): CheckResultInput {
  return {
    job_id: m.id,
    org_id: m.org_id,
    monitor_id: m.monitor_id,
    location: m.location,
    location_type: m.location_type,
    scheduled_at: new Date(m.scheduled_at).toISOString(),
    checked_at: new Date(m.checked_at).toISOString(),
    status: m.status,
    duration_ms: m.duration_ms,
    error: m.error,
    data: m.data,
  };
}
