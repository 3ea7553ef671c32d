/**
 * The alert state of one (rule, monitor, region) as a pure function of its inputs: check
 * verdicts, acknowledgements and the clock. No I/O; persistence stores the state as JSON
 * and turns the notifications into outbox rows (see docs/alerting.md for the reading of
 * the spec's alert state table this implements).
 */
import type { ConditionMemory, Verdict } from "./conditions.ts";

export type NotificationKind = "alert" | "escalation" | "reminder" | "recovery" | "acknowledgement";

export interface MachineBinding {
  channelId: string;
  delayMinutes: number;
  /** Paging tools (PagerDuty, Opsgenie) get `acknowledgement` to keep their incident in step. */
  paging: boolean;
}

export interface MachineRule {
  enabled: boolean;
  consecutiveFailures: number;
  onRecovery: boolean;
  recurring: boolean;
  recurringIntervalMinutes: number | null;
  bindings: MachineBinding[];
}

export interface AlertState {
  /** Consecutive results for which the condition held. */
  consecutive: number;
  firing: boolean;
  acknowledged: boolean;
  /** Increments each time the alert fires; with the key it names one alert. */
  incarnation: number;
  firedAt: number | null;
  /** Reminders due so far in this incarnation (sent, or skipped while muted). */
  reminders: number;
  /** `channel@delay` of delayed bindings whose delay has been dealt with. */
  escalated: string[];
  /** Channels told about this incarnation. */
  notified: string[];
  lastNotifiedAt: number | null;
  /** Something was withheld by a maintenance window; sent once when it ends, if still firing. */
  held: boolean;
  lastResultAt: number | null;
  memory: ConditionMemory;
}

export type MachineInput =
  | { type: "result"; at: number; verdict: Verdict; memory?: ConditionMemory }
  | { type: "ack"; at: number }
  | { type: "tick"; at: number };

export interface StepContext {
  /** Inside a maintenance window that suppresses alerts. */
  quiet: boolean;
}

export interface Notification {
  channelId: string;
  kind: NotificationKind;
  /** 1 for alert, recovery and acknowledgement; the delay in minutes for escalation; the reminder's number. */
  seq: number;
  at: number;
}

export type StateEvent = "fired" | "recovered" | "acknowledged";

export interface StepOutput {
  state: AlertState;
  notifications: Notification[];
  events: StateEvent[];
}

export const MINUTE = 60_000;

export const initialState = (): AlertState => ({
  consecutive: 0,
  firing: false,
  acknowledged: false,
  incarnation: 0,
  firedAt: null,
  reminders: 0,
  escalated: [],
  notified: [],
  lastNotifiedAt: null,
  held: false,
  lastResultAt: null,
  memory: {},
});

const bindingKey = (b: MachineBinding) => `${b.channelId}@${b.delayMinutes}`;
const distinctChannels = (rule: MachineRule) => [...new Set(rule.bindings.map((b) => b.channelId))];
const reminderInterval = (rule: MachineRule) => (rule.recurring && rule.recurringIntervalMinutes && rule.recurringIntervalMinutes >= 1 ? rule.recurringIntervalMinutes * MINUTE : null);

class Step {
  readonly notifications: Notification[] = [];
  readonly events: StateEvent[] = [];
  constructor(
    readonly rule: MachineRule,
    readonly s: AlertState,
    readonly ctx: StepContext,
  ) {}

  notify(channelId: string, kind: NotificationKind, seq: number, at: number) {
    this.notifications.push({ channelId, kind, seq, at });
    if (!this.s.notified.includes(channelId)) this.s.notified.push(channelId);
    this.s.lastNotifiedAt = at;
  }

  /** Escalations and reminders that came due by `at`, then the one notice withheld by a window that has ended. */
  advance(at: number) {
    const { s, rule } = this;
    if (!s.firing || s.acknowledged || s.firedAt === null) return;
    const send = rule.enabled && !this.ctx.quiet;
    const due = rule.bindings
      .filter((b) => b.delayMinutes > 0 && !s.escalated.includes(bindingKey(b)) && s.firedAt! + b.delayMinutes * MINUTE <= at)
      .sort((a, b) => a.delayMinutes - b.delayMinutes);
    for (const b of due) {
      s.escalated.push(bindingKey(b));
      if (send) this.notify(b.channelId, "escalation", b.delayMinutes, at);
      else if (rule.enabled) s.held = true;
    }
    const every = reminderInterval(rule);
    if (every !== null) {
      const k = Math.floor((at - s.firedAt) / every);
      if (k > s.reminders) {
        // A dispatcher late past several reminders sends one, numbered for the latest.
        s.reminders = k;
        if (send) for (const c of distinctChannels(rule)) this.notify(c, "reminder", k, at);
        else if (rule.enabled) s.held = true;
      }
    }
    if (send && s.held) {
      s.held = false;
      for (const b of rule.bindings) {
        if (s.firedAt + b.delayMinutes * MINUTE > at || s.notified.includes(b.channelId)) continue;
        this.notify(b.channelId, b.delayMinutes === 0 ? "alert" : "escalation", b.delayMinutes === 0 ? 1 : b.delayMinutes, at);
      }
    }
  }

  result(input: Extract<MachineInput, { type: "result" }>) {
    const { s, rule } = this;
    if (s.lastResultAt !== null && input.at <= s.lastResultAt) return; // a redelivered or out-of-order result
    s.lastResultAt = input.at;
    if (input.memory) s.memory = input.memory;
    if (!rule.enabled) return;
    if (input.verdict === "holds") {
      s.consecutive += 1;
      if (!s.firing && s.consecutive >= rule.consecutiveFailures) this.fire(input.at);
    } else if (input.verdict === "passes") {
      s.consecutive = 0;
      if (s.firing) this.recover(input.at);
    }
  }

  fire(at: number) {
    const { s, rule } = this;
    Object.assign(s, { firing: true, acknowledged: false, incarnation: s.incarnation + 1, firedAt: at, reminders: 0, escalated: [], notified: [], held: false });
    this.events.push("fired");
    for (const b of rule.bindings) {
      if (b.delayMinutes > 0) continue;
      if (this.ctx.quiet) s.held = true;
      else this.notify(b.channelId, "alert", 1, at);
    }
  }

  recover(at: number) {
    const { s, rule } = this;
    const told = s.notified;
    Object.assign(s, { firing: false, acknowledged: false, held: false });
    this.events.push("recovered");
    if (!rule.onRecovery) return;
    // Inside a window only channels already told about this alert hear that it cleared, so no incident is left open.
    const to = this.ctx.quiet ? distinctChannels(rule).filter((c) => told.includes(c)) : distinctChannels(rule);
    for (const c of to) this.notify(c, "recovery", 1, at);
  }

  ack(at: number) {
    const { s, rule } = this;
    if (!s.firing || s.acknowledged) return; // acknowledging again, or nothing firing: harmless
    s.acknowledged = true;
    s.held = false;
    this.events.push("acknowledged");
    const paging = new Set(rule.bindings.filter((b) => b.paging).map((b) => b.channelId));
    for (const c of [...s.notified]) if (paging.has(c)) this.notify(c, "acknowledgement", 1, at);
  }
}

const copy = (s: AlertState): AlertState => ({ ...s, escalated: [...s.escalated], notified: [...s.notified], memory: { ...s.memory } });

/** One input applied to one state; what came due before the input's time is applied first. */
export function step(rule: MachineRule, state: AlertState, input: MachineInput, ctx: StepContext = { quiet: false }): StepOutput {
  const run = new Step(rule, copy(state), ctx);
  run.advance(input.at);
  if (input.type === "result") run.result(input);
  else if (input.type === "ack") run.ack(input.at);
  return { state: run.s, notifications: run.notifications, events: run.events };
}

/** When this state next needs a tick (an escalation or a reminder), or null. */
export function nextDueAt(rule: MachineRule, s: AlertState): number | null {
  if (!s.firing || s.acknowledged || s.firedAt === null) return null;
  const times = rule.bindings.filter((b) => b.delayMinutes > 0 && !s.escalated.includes(bindingKey(b))).map((b) => s.firedAt! + b.delayMinutes * MINUTE);
  const every = reminderInterval(rule);
  if (every !== null) times.push(s.firedAt + (s.reminders + 1) * every);
  return times.length > 0 ? Math.min(...times) : null;
}
