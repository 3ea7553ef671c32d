import type { Bus } from "../../core/bus/index.ts";
import type { SecretBox } from "../../core/crypto/secrets.ts";
import type { Sql } from "../../db/client.ts";
import { type CheckResultMessage, resultSubject } from "../../schemas/messages/check-messages.ts";
import { conflict } from "../../core/errors.ts";
import type { MonitorRow } from "../../db/queries/monitors.ts";
import { storeArtifacts } from "../../db/queries/check-artifacts.ts";
import type { BrowserPool } from "../../runner/checks/browser/browser-pool.ts";
import { browserEngineOf } from "../../schemas/checks/browser-fields.ts";
import { isBrowserCheckType, isRunnableCheckType, runCheck } from "../../runner/checks/registry.ts";
import { type CheckResult, CheckUnavailableError } from "../../runner/checks/types.ts";
import { announceStored } from "../results/announce.ts";
import { storeResults } from "../results/ingest.ts";
import type { CheckResultInput } from "../results/types.ts";
import { openSealedFields } from "../../core/crypto/sealed-fields.ts";

export interface RunNowOptions {
  allowPrivate: boolean;
  location: string;
  /** The API process's browsers (its BROWSERS); browser monitors run now only with one offering their engine. */
  browsers?: BrowserPool | null;
  /** Where the result (and a browser check's screenshots) are stored before the answer. */
  sql: Sql;
}

/**
 * Runs a monitor's check once, now, with the same engine the workers use, from this process
 * (the first region). Unless the monitor is paused or suspended, the result is stored (moving the
 * monitor's status) before it is returned, so a read right after the answer sees it, and then
 * published on RESULTS like a scheduled check: alerting evaluates it, ingest finds it stored.
 * Browser checks run in the API's own browser pool; without one offering the monitor's
 * engine (BROWSERS=none on the API, the default) the answer is 409.
 */
export async function runMonitorNow(monitor: MonitorRow, box: SecretBox, bus: Bus, options: RunNowOptions): Promise<CheckResult & { id: string | null; checked_at: string; location: string; recorded: boolean }> {
  if (!isRunnableCheckType(monitor.type)) throw conflict("Heartbeat monitors are checked by their pings; there is nothing to run");
  const engine = browserEngineOf(monitor.type, monitor.config);
  if (isBrowserCheckType(monitor.type) && (!options.browsers || !options.browsers.has(engine!))) {
    throw conflict(
      `This API process has no ${engine} browser to run the check now (set BROWSERS on the API to enable it); the check keeps running on schedule where a worker or runner has the engine`,
      { reason: "no_browser", engine },
    );
  }
  const startedAt = Date.now();
  const jobId = `run.${monitor.id}.${startedAt}`;
  let result: CheckResult;
  try {
    result = await runCheck(
      { type: monitor.type, config: openSealedFields(monitor.config, monitor.secrets_enc, box), timeoutMs: monitor.timeout_ms, allowPrivate: options.allowPrivate, ipv6: false },
      { browsers: options.browsers ?? undefined },
    );
  } catch (err) {
    if (err instanceof CheckUnavailableError) throw conflict(`The check cannot run now: ${err.message}`, { reason: "no_browser", engine });
    throw err;
  }
  const recorded = !monitor.paused && !monitor.suspended;
  const { artifacts, ...shown } = result;
  // Whole milliseconds, as stored: the answer and a read of the stored check agree.
  shown.duration_ms = Math.max(0, Math.round(shown.duration_ms));
  let id: string | null = null;
  if (artifacts && artifacts.length > 0) {
    const stored =
      recorded
        ? await storeArtifacts(
            options.sql,
            artifacts.map((a) => ({ orgId: monitor.org_id, monitorId: monitor.id, jobId, scheduledAt: startedAt, name: a.name, contentType: a.content_type, bytes: a.data })),
          )
        : [];
    shown.data = { ...shown.data, screenshots: stored.length > 0 ? stored : null };
  }
  if (recorded) {
    const message: CheckResultMessage = {
      id: jobId,
      org_id: monitor.org_id,
      monitor_id: monitor.id,
      location: options.location,
      location_type: "region",
      scheduled_at: startedAt,
      checked_at: startedAt,
      status: shown.status,
      duration_ms: shown.duration_ms,
      error: shown.error ?? null,
      data: shown.data,
    };
    // Stored here first (idempotent on the job id) for read-your-writes; the copy on the bus is then a
    // duplicate to ingest, which neither stores nor announces it again.
    const input: CheckResultInput = {
      job_id: jobId,
      org_id: monitor.org_id,
      monitor_id: monitor.id,
      location: options.location,
      location_type: "region",
      scheduled_at: new Date(startedAt).toISOString(),
      checked_at: new Date(startedAt).toISOString(),
      status: shown.status,
      duration_ms: shown.duration_ms,
      error: shown.error ?? null,
      data: shown.data,
    };
    const stored = await storeResults(options.sql, [input]);
    id = stored.inserted[0]?.id ?? null;
    announceStored(bus, stored, [input]);
    await bus.publishResult(resultSubject(monitor.org_id, monitor.id), message);
  }
  return { ...shown, id, checked_at: new Date(startedAt).toISOString(), location: options.location, recorded };
}
