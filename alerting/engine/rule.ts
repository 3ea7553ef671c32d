import type { Scope } from "../../schemas/alerting/rule-input.ts";

export type { ChannelBinding, Scope } from "../../schemas/alerting/rule-input.ts";

export interface MonitorView {
  id: string;
  tags: string[];
}

/** Scopes match at evaluation time, so monitors created or tagged later are included. */
export function scopeMatches(scope: Scope, monitor: MonitorView): boolean {
  switch (scope.type) {
    case "monitor":
      return scope.monitor_id === monitor.id;
    case "monitor_group":
      return monitor.tags.includes(scope.tag);
    case "all_monitors":
      return true;
  }
}
