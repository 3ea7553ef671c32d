/** A generated run of the alert engine: rules, monitors, channels and a sequence of operations (engine-trace.ts generates and replays it, engine-reference.ts models it). */
export interface TraceRule {
  /** "all" monitors, or the index of the one monitor it watches. */
  scope: "all" | number;
  enabled: boolean;
  consecutiveFailures: number;
  onRecovery: boolean;
  recurring: boolean;
  interval: number | null;
  bindings: { channel: number; delay: number }[];
}

export type TraceOp = { gap: number } & (
  | { t: "result"; monitor: number; region: number; verdict: "holds" | "passes" | "unknown" }
  | { t: "ack"; rule: number; monitor: number; region: number | null }
  | { t: "window"; minutes: number }
  | { t: "toggle"; rule: number; field: "enabled" | "on_recovery" }
  | { t: "confirm"; rule: number; consecutive: number }
  | { t: "delete_rule"; rule: number }
  | { t: "delete_monitor"; monitor: number }
  | { t: "restart" }
  | { t: "wait" }
);

export interface Trace {
  start: number;
  regions: number;
  monitors: string[];
  /** Channel types by index; one of them is a paging tool. */
  channels: string[];
  pagingChannel: number;
  rules: TraceRule[];
  ops: TraceOp[];
  /** How long the clock runs on after the last operation. */
  tail: number;
}
