import { describe, expect, it } from "bun:test";
import { type AlertState, initialState, type MachineInput, type MachineRule, MINUTE, nextDueAt, type Notification, step, type StepContext } from "./state-machine.ts";

const rule = (over: Partial<MachineRule> = {}): MachineRule => ({
  enabled: true,
  consecutiveFailures: 1,
  onRecovery: true,
  recurring: false,
  recurringIntervalMinutes: null,
  bindings: [
    { channelId: "now", delayMinutes: 0, paging: false },
    { channelId: "later", delayMinutes: 10, paging: false },
  ],
  ...over,
});

/** Feeds inputs in order; returns every notification with its time in minutes. */
function drive(r: MachineRule, inputs: (MachineInput | [MachineInput, StepContext])[], start: AlertState = initialState()) {
  let s = start;
  const sent: Notification[] = [];
  const events: string[] = [];
  for (const item of inputs) {
    const [input, ctx] = Array.isArray(item) ? item : [item, { spans: [] }];
    const out = step(r, s, input, ctx);
    s = out.state;
    sent.push(...out.notifications);
    events.push(...out.events);
  }
  return { s, sent: sent.map((n) => `${n.at / MINUTE}m ${n.channelId} ${n.kind}#${n.seq}`), events };
}
const fail = (min: number): MachineInput => ({ type: "result", at: min * MINUTE, verdict: "holds" });
const pass = (min: number): MachineInput => ({ type: "result", at: min * MINUTE, verdict: "passes" });
const unknown = (min: number): MachineInput => ({ type: "result", at: min * MINUTE, verdict: "unknown" });
const ack = (min: number): MachineInput => ({ type: "ack", at: min * MINUTE });
const tick = (min: number): MachineInput => ({ type: "tick", at: min * MINUTE });
/** An input seen with suppressing windows [from, to) in minutes. */
const within = (i: MachineInput, ...spans: [number, number][]): [MachineInput, StepContext] => [i, { spans: spans.map(([a, b]) => [a * MINUTE, b * MINUTE]) }];

describe("not alerting → firing", () => {
  it("fires when the condition held for consecutive_failures checks in a row, notifying delay-0 channels at once", () => {
    const r = rule({ consecutiveFailures: 3 });
    expect(drive(r, [fail(1), fail(2)]).sent).toEqual([]);
    const { s, sent, events } = drive(r, [fail(1), fail(2), fail(3)]);
    expect(sent).toEqual(["3m now alert#1"]);
    expect(events).toEqual(["fired"]);
    expect(s).toMatchObject({ firing: true, acknowledged: false, incarnation: 1, consecutive: 3 });
  });

  it("restarts the count on a passing check, and an unevaluable result changes nothing", () => {
    const r = rule({ consecutiveFailures: 2 });
    expect(drive(r, [fail(1), pass(2), fail(3)]).sent).toEqual([]);
    expect(drive(r, [fail(1), unknown(2), fail(3)]).sent).toEqual(["3m now alert#1"]);
  });

  it("notifies delayed channels after their delay", () => {
    const { sent } = drive(rule(), [fail(0), tick(9), tick(10)]);
    expect(sent).toEqual(["0m now alert#1", "10m later escalation#10"]);
  });

  it("ignores a redelivered or older result", () => {
    const r = rule({ consecutiveFailures: 2 });
    expect(drive(r, [fail(1), fail(1), fail(0.5)]).sent).toEqual([]);
  });
});

describe("firing, elapsed delay_minutes", () => {
  it("notifies that bound channel while still firing and unacknowledged", () => {
    const r = rule({ bindings: [{ channelId: "a", delayMinutes: 5, paging: false }, { channelId: "b", delayMinutes: 15, paging: false }] });
    expect(drive(r, [fail(0), tick(5), tick(15)]).sent).toEqual(["5m a escalation#5", "15m b escalation#15"]);
  });

  it("is delivered by the next input when no tick came at the due time", () => {
    expect(drive(rule(), [fail(0), fail(12)]).sent).toEqual(["0m now alert#1", "12m later escalation#10"]);
  });

  it("is asked for by nextDueAt", () => {
    const { s } = drive(rule(), [fail(2)]);
    expect(nextDueAt(rule(), s)).toBe(12 * MINUTE);
  });
});

describe("firing, recurring_interval_minutes elapsed", () => {
  const r = rule({ recurring: true, recurringIntervalMinutes: 5 });

  it("sends a reminder to every bound channel, including delayed ones", () => {
    expect(drive(r, [fail(0), tick(5)]).sent).toEqual(["0m now alert#1", "5m now reminder#1", "5m later reminder#1"]);
  });

  it("keeps reminding at each interval", () => {
    const { sent } = drive(r, [fail(0), tick(5), tick(10), tick(15)]);
    expect(sent.filter((x) => x.includes("reminder") && x.includes(" now "))).toEqual(["5m now reminder#1", "10m now reminder#2", "15m now reminder#3"]);
  });

  it("sends nothing when recurring is false or has no interval", () => {
    expect(drive(rule({ recurring: true }), [fail(0), tick(60)]).sent).toEqual(["0m now alert#1", "60m later escalation#10"]);
    expect(drive(rule({ recurringIntervalMinutes: 5 }), [fail(0), tick(60)]).sent).toEqual(["0m now alert#1", "60m later escalation#10"]);
  });
});

describe("firing, acknowledge", () => {
  it("notifies nobody, does not resolve, and stops escalation and reminders", () => {
    const r = rule({ recurring: true, recurringIntervalMinutes: 3 });
    const { s, sent, events } = drive(r, [fail(0), ack(1), tick(3), tick(10), tick(60)]);
    expect(sent).toEqual(["0m now alert#1"]);
    expect(events).toEqual(["fired", "acknowledged"]);
    expect(s).toMatchObject({ firing: true, acknowledged: true });
    expect(nextDueAt(r, s)).toBeNull();
  });

  it("is harmless to repeat, and harmless when nothing is firing", () => {
    expect(drive(rule(), [fail(0), ack(1), ack(2)]).events).toEqual(["fired", "acknowledged"]);
    expect(drive(rule(), [ack(1)]).s).toMatchObject({ firing: false, acknowledged: false });
  });

  it("keeps a paging tool's incident in step: acknowledgement only to paging channels already notified", () => {
    const r = rule({ bindings: [{ channelId: "pd", delayMinutes: 0, paging: true }, { channelId: "slack", delayMinutes: 0, paging: false }, { channelId: "og", delayMinutes: 30, paging: true }] });
    expect(drive(r, [fail(0), ack(1)]).sent).toEqual(["0m pd alert#1", "0m slack alert#1", "1m pd acknowledgement#1"]);
  });
});

describe("firing or acknowledged, one passing check from that region", () => {
  it("resets the counter and sends a recovery notice to every bound channel when on_recovery", () => {
    const { s, sent, events } = drive(rule(), [fail(0), tick(10), pass(11)]);
    expect(sent).toEqual(["0m now alert#1", "10m later escalation#10", "11m now recovery#1", "11m later recovery#1"]);
    expect(events).toEqual(["fired", "recovered"]);
    expect(s).toMatchObject({ firing: false, acknowledged: false, consecutive: 0 });
  });

  it("recovers an acknowledged alert too", () => {
    expect(drive(rule(), [fail(0), ack(1), pass(2)]).sent).toEqual(["0m now alert#1", "2m now recovery#1", "2m later recovery#1"]);
  });

  it("sends no recovery notice when on_recovery is false", () => {
    expect(drive(rule({ onRecovery: false }), [fail(0), pass(1)]).sent).toEqual(["0m now alert#1"]);
  });

  it("fires again as a new incarnation after recovering", () => {
    const { s, sent } = drive(rule({ onRecovery: false }), [fail(0), pass(1), fail(2)]);
    expect(sent).toEqual(["0m now alert#1", "2m now alert#1"]);
    expect(s.incarnation).toBe(2);
  });
});

describe("a delayed channel never fires if the alert recovers or is acknowledged before its delay", () => {
  it("after recovery", () => {
    expect(drive(rule({ onRecovery: false }), [fail(0), pass(5), tick(10), tick(100)]).sent).toEqual(["0m now alert#1"]);
  });
  it("after acknowledgement", () => {
    expect(drive(rule(), [fail(0), ack(5), tick(10), fail(11), tick(100)]).sent).toEqual(["0m now alert#1"]);
  });
});

describe("a disabled rule is muted", () => {
  it("neither counts nor fires", () => {
    expect(drive(rule({ enabled: false }), [fail(0), fail(1), tick(30)]).sent).toEqual([]);
  });
  it("drops escalations and reminders that come due while disabled", () => {
    const r = rule({ recurring: true, recurringIntervalMinutes: 5 });
    const { s } = drive(r, [fail(0)]);
    const muted = drive({ ...r, enabled: false }, [tick(11)], s);
    expect(muted.sent).toEqual([]);
    expect(drive(r, [tick(12)], muted.s).sent).toEqual([]);
    expect(drive(r, [tick(15)], muted.s).sent).toEqual(["15m now reminder#3", "15m later reminder#3"]);
  });
});

describe("maintenance windows", () => {
  const w: [number, number] = [0, 20];
  it("withholds notifications inside the window but keeps the state", () => {
    const { s, sent } = drive(rule(), [within(fail(0), w), within(tick(10), w)]);
    expect(sent).toEqual([]);
    expect(s).toMatchObject({ firing: true, alertPending: true });
    expect(nextDueAt(rule(), s, [[0, 20 * MINUTE]])).toBe(20 * MINUTE);
  });
  it("sends only the initial alert when the window ends; delays count from there, never a burst", () => {
    const r = rule({ recurring: true, recurringIntervalMinutes: 5 });
    const { sent } = drive(r, [within(fail(0), w), within(tick(20), w), within(tick(25), w), within(tick(30), w)]);
    expect(sent).toEqual(["20m now alert#1", "25m now reminder#1", "25m later reminder#1", "30m later escalation#10", "30m now reminder#2"]);
  });
  it("stops an alert's clock inside a window that opens after it fired", () => {
    const r = rule();
    const first = drive(r, [fail(0), within(tick(6), [5, 25])]);
    expect(first.sent).toEqual(["0m now alert#1"]);
    expect(nextDueAt(r, first.s, [[5 * MINUTE, 25 * MINUTE]])).toBe(30 * MINUTE);
    expect(drive(r, [within(tick(30), [5, 25])], first.s).sent).toEqual(["30m later escalation#10"]);
  });
  it("sends nothing for an alert that recovered inside the window", () => {
    expect(drive(rule(), [within(fail(0), w), within(pass(5), w), within(tick(20), w)]).sent).toEqual([]);
  });
  it("tells channels that heard of the alert before the window that it cleared", () => {
    expect(drive(rule(), [fail(0), within(pass(5), [4, 10])]).sent).toEqual(["0m now alert#1", "5m now recovery#1"]);
  });
});

describe("one notice per channel per moment", () => {
  it("sends the escalation, not also a reminder, to a channel whose delay equals the reminder interval", () => {
    const r = rule({ recurring: true, recurringIntervalMinutes: 10 });
    expect(drive(r, [fail(0), tick(10), tick(20)]).sent).toEqual(["0m now alert#1", "10m later escalation#10", "10m now reminder#1", "20m now reminder#2", "20m later reminder#2"]);
  });
  it("lets a recovery at the very moment a delay elapses come first: the delayed channel hears only the recovery", () => {
    expect(drive(rule(), [fail(0), pass(10), tick(10)]).sent).toEqual(["0m now alert#1", "10m now recovery#1", "10m later recovery#1"]);
  });
});

describe("a location taken off the monitor (withdraw)", () => {
  const withdraw = (min: number): MachineInput => ({ type: "withdraw", at: min * MINUTE });

  it("closes a firing alert, telling only the channels already told, and nothing is due after it", () => {
    const r = rule({ recurring: true, recurringIntervalMinutes: 30 });
    const { s, sent, events } = drive(r, [fail(0), withdraw(5)]);
    expect(sent).toEqual(["0m now alert#1", "5m now recovery#1"]);
    expect(events).toEqual(["fired", "withdrawn"]);
    expect(s).toMatchObject({ firing: false, acknowledged: false, consecutive: 0, incarnation: 1 });
    expect(nextDueAt(r, s)).toBeNull();
  });

  it("sends what came due meanwhile no more, tells no one without on_recovery or with the rule disabled, and leaves a quiet state quiet", () => {
    expect(drive(rule(), [fail(0), withdraw(15)]).sent).toEqual(["0m now alert#1", "15m now recovery#1"]);
    expect(drive(rule({ onRecovery: false }), [fail(0), withdraw(5)]).sent).toEqual(["0m now alert#1"]);
    const disabled = drive(rule(), [fail(0)]).s;
    expect(drive(rule({ enabled: false }), [withdraw(5)], disabled).sent).toEqual([]);
    const quiet = drive(rule({ consecutiveFailures: 3 }), [fail(0), withdraw(1)]);
    expect(quiet.sent).toEqual([]);
    expect(quiet.events).toEqual([]);
    expect(quiet.s.consecutive).toBe(0);
  });
});

describe("an open-ended quiet span (a paused monitor)", () => {
  it("holds reminders and escalations with no tick to wait for, and counts none of the pause afterwards", () => {
    const r = rule({ recurring: true, recurringIntervalMinutes: 30 });
    const fired = drive(r, [fail(0)]).s;
    // Paused at minute 5: the escalation due at 10 does not come, and no tick is asked for.
    const paused = step(r, fired, tick(10), { spans: [[5 * MINUTE, Number.POSITIVE_INFINITY]] });
    expect(paused.notifications).toEqual([]);
    expect(nextDueAt(r, paused.state, [[5 * MINUTE, Number.POSITIVE_INFINITY]])).toBeNull();
    // Resumed at minute 60: five minutes of alert time had passed, so the escalation is five minutes on.
    const resumed = [[5 * MINUTE, 60 * MINUTE]] as [number, number][];
    const woken = step(r, paused.state, tick(60), { spans: resumed });
    expect(woken.notifications).toEqual([]);
    expect(nextDueAt(r, woken.state, resumed)).toBe(65 * MINUTE);
    expect(drive(r, [within(tick(65), [5, 60])], woken.state).sent).toEqual(["65m later escalation#10"]);
  });
});
