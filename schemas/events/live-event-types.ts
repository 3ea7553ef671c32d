/** Kinds of event on the live stream; each issue that adds one adds it here and to the OpenAPI document. */
export type LiveEventType =
  | "check.result"
  | "monitor.status_changed"
  | "alert.fired"
  | "alert.recovered"
  | "alert.acknowledged"
  | "incident.created"
  | "incident.updated"
  | "incident.resolved";

/** What travels on `events.<orgId>`: ids sort by time, then by the publisher's sequence. */
export interface LiveEvent<T = unknown> {
  id: string;
  type: LiveEventType;
  org_id: string;
  at: string;
  data: T;
}

let seq = 0;
const processTag = Math.random().toString(36).slice(2, 6);

/** `<ms>-<seq>-<process>`: unique across publishers, ordered by time. */
export function newEventId(now = Date.now()): string {
  seq = (seq + 1) % 1_000_000;
  return `${now}-${seq.toString().padStart(6, "0")}-${processTag}`;
}

export function eventTime(id: string): number {
  return Number(id.split("-")[0]) || 0;
}
