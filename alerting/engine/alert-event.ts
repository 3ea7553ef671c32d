/** What the engine decides to deliver and every channel sends: pure types, shared by the engine and the channels. */
import type { AlertEventKind } from "../../schemas/channels/channel-spec.ts";
export { alertEventKinds, type AlertEventKind } from "../../schemas/channels/channel-spec.ts";

/** Check statuses the spec names; open so a new check status needs no change here. */
type CheckStatus = "up" | "down" | "degraded" | "timeout" | (string & {});

/** What a channel delivers: one alert incarnation's moment, with the kind inside. */
export interface AlertEvent {
  kind: AlertEventKind;
  /** Stable for one alert incarnation, e.g. `${ruleId}:${monitorId}:${region}:${incarnation}`; paging tools key incidents on it. */
  dedupKey: string;
  /** Unique per (incarnation, channel, kind, sequence); the same on every retry of one delivery. */
  idempotencyKey: string;
  rule: { id: string; name: string };
  monitor: { id: string; name: string; type: string; target?: string };
  /** The location's id: a region, a runner's id (`run_…`), `heartbeat` or `none`. */
  region: string;
  /** The location as a reader knows it: the region's id, `runner <its name>`, ... */
  regionName: string;
  /** Set on a `recovery` that is not one: the alert closed because the monitor no longer checks from its location. */
  closed?: "location_removed";
  status: CheckStatus;
  /** Human summary of the rule's condition, e.g. "status is down or timeout". */
  condition: string;
  result: { duration_ms: number; error?: string; data?: Record<string, unknown> };
  /** ISO time the alert started firing. */
  startedAt: string;
  /** ISO time of this event (the recovery, the reminder, ...). */
  occurredAt: string;
  org: { id: string; name: string };
  links: { monitor?: string; ackUrl?: string; unsubscribe?: string };
}
