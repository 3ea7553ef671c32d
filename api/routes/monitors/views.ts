import type { SecretBox } from "../../../core/crypto/secrets.ts";
import { redactMonitorConfig } from "../../../domain/monitors/secrets.ts";
import type { MonitorRow } from "../../../db/queries/monitors.ts";

/** A monitor with no region and no runner (its runners were revoked) is not monitored; heartbeats need neither. */
function monitoredOf(m: MonitorRow): { monitored: boolean; not_monitored_reason: string | null } {
  if (m.type === "heartbeat" || m.regions.length > 0 || m.runner_ids.length > 0) return { monitored: true, not_monitored_reason: null };
  return { monitored: false, not_monitored_reason: "no region or runner to run on (its runners were revoked); give it a region or a runner" };
}

export function toMonitorView(m: MonitorRow, box: SecretBox, baseUrl: string) {
  return {
    id: m.id,
    name: m.name,
    type: m.type as never,
    // Stored configs hold placeholders already; redacting again covers rows not yet sealed (seal-plaintext.ts).
    config: redactMonitorConfig(m.config),
    interval_seconds: m.interval_seconds,
    timeout_ms: m.timeout_ms,
    regions: m.regions,
    runner_ids: m.runner_ids,
    tags: m.tags,
    paused: m.paused,
    suspended: m.suspended,
    ...monitoredOf(m),
    status: m.status as never,
    status_changed_at: m.status_changed_at?.toISOString() ?? null,
    last_checked_at: m.last_checked_at?.toISOString() ?? null,
    last_duration_ms: m.last_duration_ms,
    ...(m.heartbeat_token_enc ? { heartbeat_url: `${baseUrl}/api/v1/heartbeat/${box.decrypt(m.heartbeat_token_enc)}` } : {}),
    created_at: m.created_at.toISOString(),
    updated_at: m.updated_at.toISOString(),
  };
}
