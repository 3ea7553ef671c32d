import { newId } from "../../core/ids.ts";
import type { AlertStateRow, StateWrite } from "../../db/queries/alert-states.ts";
import type { DeliveryWrite } from "../../db/queries/alert-deliveries.ts";
import type { MonitorInfo } from "../../db/queries/alert-monitors.ts";
import type { NotificationWrite } from "../../db/queries/alert-notifications.ts";
import type { AlertEvent } from "./alert-event.ts";
import { type AlertState, initialState, type MachineInput, nextDueAt, type QuietSpan, step, type StepOutput } from "./state-machine.ts";
import type { CompiledRule } from "./compile.ts";

export type { MonitorInfo };

/** The last result the state saw, for the facts in messages sent later (escalations, reminders). */
export interface ResultSummary {
  status: string;
  duration_ms: number;
  error?: string;
  data?: Record<string, unknown>;
}

export interface StoredState {
  machine: AlertState;
  last?: ResultSummary;
}

export const readState = (row: Pick<AlertStateRow, "state">): StoredState => {
  const s = row.state as Partial<StoredState>;
  const machine = s.machine ?? initialState();
  // A state stored before 2026-11-26 marked a notice withheld by a window as `held`; one that told nobody yet still owes its alert.
  const legacy = machine as AlertState & { held?: boolean };
  if (legacy.alertPending === undefined) legacy.alertPending = legacy.held === true && legacy.firing && legacy.notified.length === 0;
  return { machine, last: s.last };
};

/** An alert event for the live stream (`events.<orgId>`). */
export interface AlertBusEvent {
  type: "alert.fired" | "alert.recovered" | "alert.acknowledged";
  org_id: string;
  rule_id: string;
  rule_name: string;
  monitor_id: string;
  monitor_name: string;
  region: string;
  incarnation: number;
  at: string;
}

export interface Decision {
  write: StateWrite;
  deliveries: DeliveryWrite[];
  notifications: NotificationWrite[];
  busEvents: AlertBusEvent[];
}

export interface DecideContext {
  orgName: string;
  publicBaseUrl: string;
  /** Occurrences of suppressing maintenance windows covering the monitor within [from, to], merged; asked only for a firing alert. */
  quietSpans(monitor: MonitorInfo, from: number, to: number): Promise<QuietSpan[]>;
  /** The location as messages name it (alerting/service/location-names.ts). */
  locationName(orgId: string, location: string): Promise<string>;
}

const PROBLEM_KINDS = new Set(["alert", "escalation", "reminder"]);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** Applies one input to one state row and turns what it says into rows to write in the same transaction. */
export async function decide(
  ctx: DecideContext,
  rule: CompiledRule,
  monitor: MonitorInfo,
  row: AlertStateRow,
  input: MachineInput,
  last?: ResultSummary,
): Promise<Decision> {
  const stored = readState(row);
  let out: StepOutput = step(rule.machine, stored.machine, input);
  let spans: QuietSpan[] = [];
  // Windows matter only to a firing alert (its clock stops inside them): most results never ask.
  const before = stored.machine;
  if (before.firing || out.state.firing) {
    const from = before.firing ? (before.accountedTo ?? before.firedAt ?? input.at) : input.at;
    spans = await ctx.quietSpans(monitor, Math.min(from, input.at), input.at);
    out = step(rule.machine, stored.machine, input, { spans });
  }
  const s = out.state;
  const summary = last ?? stored.last;
  const due = nextDueAt(rule.machine, s, spans);
  const dedupKey = `${rule.id}:${monitor.id}:${row.region}:${s.incarnation}`;
  const said = out.notifications.length > 0 || out.events.length > 0;
  const place = said ? await ctx.locationName(rule.orgId, row.region) : row.region;
  const closed = input.type === "withdraw";
  const deliveries: DeliveryWrite[] = out.notifications.map((n) => {
    const event: AlertEvent = {
      kind: n.kind,
      dedupKey,
      idempotencyKey: `${dedupKey}:${n.channelId}:${n.kind}:${n.seq}`,
      rule: { id: rule.id, name: rule.name },
      monitor: { id: monitor.id, name: monitor.name, type: monitor.type, ...(monitor.target ? { target: monitor.target } : {}) },
      region: row.region,
      regionName: place,
      ...(closed ? { closed: "location_removed" as const } : {}),
      status: summary?.status ?? "unknown",
      condition: rule.conditionText,
      result: { duration_ms: summary?.duration_ms ?? 0, ...(summary?.error ? { error: summary.error } : {}), ...(summary?.data ? { data: summary.data } : {}) },
      startedAt: iso(s.firedAt) ?? new Date(n.at).toISOString(),
      occurredAt: new Date(n.at).toISOString(),
      org: { id: rule.orgId, name: ctx.orgName },
      // Acknowledging needs a signed-in member: the link opens the dashboard's firing-alerts list.
      links: { monitor: `${ctx.publicBaseUrl}/monitors/${monitor.id}`, ...(PROBLEM_KINDS.has(n.kind) ? { ackUrl: `${ctx.publicBaseUrl}/alerts` } : {}) },
    };
    return {
      id: newId("dlv"),
      org_id: rule.orgId,
      idempotency_key: event.idempotencyKey,
      rule_id: rule.id,
      monitor_id: monitor.id,
      region: row.region,
      channel_id: n.channelId,
      kind: n.kind,
      seq: n.seq,
      event: event as unknown as Record<string, unknown>,
    };
  });
  const at = new Date(input.at).toISOString();
  // A withdrawn alert is over for the dashboard as a recovered one is.
  const busEvents: AlertBusEvent[] = out.events.map((e) => ({
    type: e === "withdrawn" ? "alert.recovered" : `alert.${e}`,
    org_id: rule.orgId,
    rule_id: rule.id,
    rule_name: rule.name,
    monitor_id: monitor.id,
    monitor_name: monitor.name,
    region: row.region,
    incarnation: s.incarnation,
    at,
  }));
  const notifications: NotificationWrite[] = out.events
    .filter((e) => e !== "acknowledged")
    .map((e) => ({
      id: newId("ntf"),
      org_id: rule.orgId,
      type: e === "fired" ? "alert.fired" : "alert.recovered",
      title: e === "fired" ? `Alert: ${monitor.name}` : e === "withdrawn" ? `Closed: ${monitor.name}` : `Recovered: ${monitor.name}`,
      body:
        e === "fired"
          ? `${rule.name}: ${rule.conditionText} in ${place}`
          : e === "withdrawn"
            ? `${rule.name}: closed, the monitor no longer checks from ${place}`
            : `${rule.name} cleared in ${place}`,
      data: { rule_id: rule.id, monitor_id: monitor.id, region: row.region, incarnation: s.incarnation },
    }));
  const write: StateWrite = {
    rule_id: row.rule_id,
    monitor_id: row.monitor_id,
    region: row.region,
    firing: s.firing,
    acknowledged: s.acknowledged,
    consecutive: s.consecutive,
    incarnation: s.incarnation,
    fired_at: iso(s.firedAt),
    last_notified_at: iso(s.lastNotifiedAt),
    last_result_at: iso(s.lastResultAt),
    state: { machine: s, ...(summary ? { last: summary } : {}) } as unknown as Record<string, unknown>,
    next_due_at: iso(due),
  };
  // The row carries the new state into the next input of the same batch.
  row.state = write.state;
  return { write, deliveries, notifications, busEvents };
}
