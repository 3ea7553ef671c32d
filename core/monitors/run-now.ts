import type { SecretBox } from "../crypto/secrets.ts";
import { conflict } from "../errors.ts";
import type { MonitorRow } from "../../db/queries/monitors.ts";
import { isExecutableCheckType, runCheck } from "../../runner/checks/registry.ts";
import type { CheckResult } from "../../runner/checks/types.ts";
import { mergeSecrets } from "./secrets.ts";

/**
 * Runs a monitor's check once, now, with the same engine the workers use, from this process
 * (the local region). The result is returned, not stored: it is a probe, not a scheduled check.
 */
export async function runMonitorNow(
  monitor: MonitorRow,
  box: SecretBox,
  options: { allowPrivate: boolean; location: string },
): Promise<CheckResult & { checked_at: string; location: string }> {
  if (!isExecutableCheckType(monitor.type)) {
    throw conflict(
      monitor.type === "heartbeat"
        ? "Heartbeat monitors are checked by their pings; there is nothing to run"
        : "Browser checks run on browser-capable workers and runners, not from the API",
    );
  }
  const checkedAt = new Date().toISOString();
  const result = await runCheck({
    type: monitor.type,
    config: mergeSecrets(monitor.config, monitor.secrets_enc, box),
    timeoutMs: monitor.timeout_ms,
    allowPrivate: options.allowPrivate,
    ipv6: false,
  });
  return { ...result, checked_at: checkedAt, location: options.location };
}
