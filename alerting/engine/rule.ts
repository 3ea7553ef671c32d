export type Scope = { type: "monitor"; monitor_id: string } | { type: "monitor_group"; tag: string } | { type: "all_monitors" };

export interface ChannelBinding {
  channel_id: string;
  delay_minutes: number;
}

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
