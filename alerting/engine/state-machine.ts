/**
 * The alert state of one (rule, monitor, region) as a pure function of its inputs: check
 * verdicts, acknowledgements and the clock. No I/O; persistence stores the state as JSON
 * and turns the notifications into outbox rows (see docs/alerting.md for the reading of
 * the spec's alert state table this implements).
 */
import type { ConditionMemory, Verdict } from "./conditions.ts";

type NotificationKind = "alert" | "escalation" | "reminder" | "recovery" | "acknowledgement";

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
  /** The initial alert to delay-0 channels is still to go out (it fired inside a maintenance window). */
  alertPending: boolean;
  /** Time inside suppressing maintenance windows since firedAt, counted up to `accountedTo`: it does not count toward delays and reminders. */
  quietMs: number;
  accountedTo: number | null;
  lastResultAt: number | null;
  memory: ConditionMemory;
}

export type MachineInput =
  | { type: "result"; at: number; verdict: Verdict; memory?: ConditionMemory }
  | { type: "ack"; at: number }
  | { type: "tick"; at: number }
  /** The monitor no longer checks from this state's location: nothing can ever recover it there. */
  | { type: "withdraw"; at: number };

/** A suppressing maintenance window's occurrence, [start, end) in ms. */
export type QuietSpan = [number, number];

export interface StepContext {
  /**
   * The suppressing windows covering the monitor from the state's last step to the input
   * (merged, sorted, and running on to the end of one that covers the input's time).
   */
  spans: QuietSpan[];
}

export interface Notification {
  channelId: string;
  kind: NotificationKind;
  /** 1 for alert, recovery and acknowledgement; the delay in minutes for escalation; the reminder's number. */
  seq: number;
  at: number;
}

type StateEvent = "fired" | "recovered" | "acknowledged" | "withdrawn";

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
  alertPending: false,
  quietMs: 0,
  accountedTo: null,
  lastResultAt: null,
  memory: {},
});

const bindingKey = (b: MachineBinding) => `${b.channelId}@${b.delayMinutes}`;
const distinctChannels = (rule: MachineRule) => [...new Set(rule.bindings.map((b) => b.channelId))];
const reminderInterval = (rule: MachineRule) => (rule.recurring && rule.recurringIntervalMinutes && rule.recurringIntervalMinutes >= 1 ? rule.recurringIntervalMinutes * MINUTE : null);

const quietAt = (spans: QuietSpan[], t: number) => spans.some(([a, b]) => a <= t && t < b);
const quietBetween = (spans: QuietSpan[], from: number, to: number) => spans.reduce((sum, [a, b]) => sum + Math.max(0, Math.min(b, to) - Math.max(a, from)), 0);

/** The first moment outside every span at which `left` ms outside spans have passed since `from`. */
function outsideAfter(spans: QuietSpan[], from: number, left: number): number {
  let c = from;
  for (const [a, b] of spans) {
    if (b <= c) continue;
    if (a > c) {
      if (left < a - c) return c + left;
      left -= a - c;
    }
    c = b;
  }
  return c + left;
}

/** Alert time of a firing state at its last step: wall time since it fired, less time inside windows. */
const elapsedOf = (s: AlertState) => (s.accountedTo ?? s.firedAt!) - s.firedAt! - (s.quietMs ?? 0);

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

  quiet(at: number) {
    return quietAt(this.ctx.spans, at);
  }

  /** Counts the time since the last step, less time inside windows, toward the alert's delays and reminders. */
  account(at: number) {
    const { s } = this;
    if (!s.firing || s.firedAt === null) return;
    const from = s.accountedTo ?? s.firedAt;
    if (at <= from) return;
    s.quietMs = (s.quietMs ?? 0) + quietBetween(this.ctx.spans, from, at);
    s.accountedTo = at;
  }

  /**
   * What came due by `at` (strictly before it when an input at `at` follows, so a recovery or an
   * acknowledgement at that very moment comes first): at most one notice per channel, the
   * initial alert before an escalation before a reminder. Nothing goes out inside a window.
   */
  advance(at: number, inclusive: boolean) {
    const { s, rule } = this;
    if (!s.firing || s.acknowledged || s.firedAt === null) return;
    this.account(at);
    if (this.quiet(at)) return;
    const e = elapsedOf(s);
    const due = (target: number) => (inclusive ? target <= e : target < e);
    const byChannel = new Map<string, { kind: NotificationKind; seq: number }>();
    const put = (channelId: string, kind: NotificationKind, seq: number) => {
      if (!byChannel.has(channelId)) byChannel.set(channelId, { kind, seq });
    };
    if (s.alertPending && due(0)) {
      s.alertPending = false;
      for (const b of rule.bindings) if (b.delayMinutes === 0) put(b.channelId, "alert", 1);
    }
    const escalations = rule.bindings
      .filter((b) => b.delayMinutes > 0 && !s.escalated.includes(bindingKey(b)) && due(b.delayMinutes * MINUTE))
      .sort((a, b) => a.delayMinutes - b.delayMinutes);
    for (const b of escalations) {
      s.escalated.push(bindingKey(b));
      put(b.channelId, "escalation", b.delayMinutes);
    }
    const every = reminderInterval(rule);
    if (every !== null && e > 0) {
      const k = inclusive ? Math.floor(e / every) : Math.ceil(e / every) - 1;
      if (k > s.reminders) {
        // A dispatcher late past several reminders sends one, numbered for the latest.
        s.reminders = k;
        for (const c of distinctChannels(rule)) put(c, "reminder", k);
      }
    }
    // A disabled rule is muted: what came due meanwhile is dropped, not sent later.
    if (!rule.enabled) return;
    for (const [channelId, n] of byChannel) this.notify(channelId, n.kind, n.seq, at);
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
    Object.assign(s, {
      firing: true,
      acknowledged: false,
      incarnation: s.incarnation + 1,
      firedAt: at,
      reminders: 0,
      escalated: [],
      notified: [],
      quietMs: 0,
      accountedTo: at,
      alertPending: rule.bindings.some((b) => b.delayMinutes === 0),
    });
    this.events.push("fired");
    // Inside a window the alert waits for its end; time in the window does not count toward delays.
    this.advance(at, true);
  }

  recover(at: number) {
    const { s, rule } = this;
    const told = s.notified;
    Object.assign(s, { firing: false, acknowledged: false, alertPending: false });
    this.events.push("recovered");
    if (!rule.onRecovery) return;
    // Inside a window only channels already told about this alert hear that it cleared, so no incident is left open.
    const to = this.quiet(at) ? distinctChannels(rule).filter((c) => told.includes(c)) : distinctChannels(rule);
    for (const c of to) this.notify(c, "recovery", 1, at);
  }

  /**
   * The location was taken off the monitor: the alert there closes, its counter resets, and with on_recovery the
   * channels already told hear that it closed (a paging tool's incident is resolved); channels never told hear nothing.
   */
  withdraw(at: number) {
    const { s, rule } = this;
    s.consecutive = 0;
    if (!s.firing) return;
    const told = s.notified;
    Object.assign(s, { firing: false, acknowledged: false, alertPending: false });
    this.events.push("withdrawn");
    if (!rule.onRecovery || !rule.enabled) return;
    for (const c of distinctChannels(rule).filter((c) => told.includes(c))) this.notify(c, "recovery", 1, at);
  }

  ack(at: number) {
    const { s, rule } = this;
    if (!s.firing || s.acknowledged) return; // acknowledging again, or nothing firing: harmless
    s.acknowledged = true;
    s.alertPending = false;
    this.events.push("acknowledged");
    const paging = new Set(rule.bindings.filter((b) => b.paging).map((b) => b.channelId));
    for (const c of [...s.notified]) if (paging.has(c)) this.notify(c, "acknowledgement", 1, at);
  }
}

const copy = (s: AlertState): AlertState => ({ ...s, escalated: [...s.escalated], notified: [...s.notified], memory: { ...s.memory } });

/** One input applied to one state; what came due before the input's time is applied first, a tick's own time included. */
export function step(rule: MachineRule, state: AlertState, input: MachineInput, ctx: StepContext = { spans: [] }): StepOutput {
  const run = new Step(rule, copy(state), ctx);
  // A withdrawn location sends what came due no more: it closes at once.
  if (input.type !== "withdraw") run.advance(input.at, input.type === "tick");
  if (input.type === "result") run.result(input);
  else if (input.type === "ack") run.ack(input.at);
  else if (input.type === "withdraw") run.withdraw(input.at);
  return { state: run.s, notifications: run.notifications, events: run.events };
}

/** When this state next needs a tick (the initial alert after a window, an escalation or a reminder), or null. */
export function nextDueAt(rule: MachineRule, s: AlertState, spans: QuietSpan[] = []): number | null {
  if (!s.firing || s.acknowledged || s.firedAt === null) return null;
  const targets = rule.bindings.filter((b) => b.delayMinutes > 0 && !s.escalated.includes(bindingKey(b))).map((b) => b.delayMinutes * MINUTE);
  if (s.alertPending) targets.push(0);
  const every = reminderInterval(rule);
  if (every !== null) targets.push((s.reminders + 1) * every);
  if (targets.length === 0) return null;
  // Windows known now push the time out; one that starts later is seen at that tick, which then looks again.
  const at = outsideAfter(spans, s.accountedTo ?? s.firedAt, Math.max(0, Math.min(...targets) - elapsedOf(s)));
  // An open-ended span (a paused monitor) has no end to wait for: the resume asks for a tick (wakeFiringStates).
  return Number.isFinite(at) ? at : null;
}
