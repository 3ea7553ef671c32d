import type { Bus } from "../bus/index.ts";
import type { SecretBox } from "../crypto/secrets.ts";
import { type CheckResultMessage, resultSubject } from "../jobs/messages.ts";
import { conflict } from "../errors.ts";
import type { MonitorRow } from "../../db/queries/monitors.ts";
import { isExecutableCheckType, runCheck } from "../../runner/checks/registry.ts";
import type { CheckResult } from "../../runner/checks/types.ts";
import { mergeSecrets } from "./secrets.ts";

/**
 * Runs a monitor's check once, now, with the same engine the workers use, from this process
 * (the first region). The result is returned and, unless the monitor is paused or suspended,
 * published on RESULTS like a scheduled check: it is stored, moves the monitor's status and
 * is evaluated by the alert rules, so "Run now" after a fix shows the recovery at once.
 */
export async function runMonitorNow(
  monitor: MonitorRow,
  box: SecretBox,
  bus: Bus,
  options: { allowPrivate: boolean; location: string },
): Promise<CheckResult & { checked_at: string; location: string; recorded: boolean }> {
  if (!isExecutableCheckType(monitor.type)) {
    throw conflict(
      monitor.type === "heartbeat"
        ? "Heartbeat monitors are checked by their pings; there is nothing to run"
        : "Browser checks run on browser-capable workers and runners, not from the API",
    );
  }
  const startedAt = Date.now();
  const result = await runCheck({
    type: monitor.type,
    config: mergeSecrets(monitor.config, monitor.secrets_enc, box),
    timeoutMs: monitor.timeout_ms,
    allowPrivate: options.allowPrivate,
    ipv6: false,
  });
  const recorded = !monitor.paused && !monitor.suspended;
  if (recorded) {
    const message: CheckResultMessage = {
      id: `run.${monitor.id}.${startedAt}`,
      org_id: monitor.org_id,
      monitor_id: monitor.id,
      location: options.location,
      location_type: "region",
      scheduled_at: startedAt,
      checked_at: startedAt,
      status: result.status,
      duration_ms: result.duration_ms,
      error: result.error ?? null,
      data: result.data,
    };
    await bus.publishResult(resultSubject(monitor.org_id, monitor.id), message);
  }
  return { ...result, checked_at: new Date(startedAt).toISOString(), location: options.location, recorded };
}
