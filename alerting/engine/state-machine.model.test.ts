/**
 * Model-based test: a reference model written from the spec's alert state table alone (an
 * agenda of timers, popped in due order) against the engine, over thousands of random runs.
 */
import { describe, expect, it } from "bun:test";
import fc from "fast-check";
import { type AlertState, initialState, type MachineRule, nextDueAt, type Notification, step } from "./state-machine.ts";

const MIN = 60_000;
type Verdict = "holds" | "passes" | "unknown";
type Op = { t: "result"; region: number; verdict: Verdict; gap: number } | { t: "ack"; region: number | null; gap: number } | { t: "wait"; ms: number };
type Sent = { region: number; channelId: string; kind: string; seq: number; at: number };

/** The reference: one region's alert per the spec table, timers as an explicit agenda. */
class ModelRegion {
  count = 0;
  state: "not alerting" | "firing" | "acknowledged" = "not alerting";
  startedAt = 0;
  reminderNo = 0;
  told = new Set<string>();
  agenda: { due: number; what: "escalation" | "reminder"; channelId?: string; delay?: number }[] = [];
  lastAt = -1;
  constructor(
    readonly rule: MachineRule,
    readonly region: number,
    readonly out: Sent[],
  ) {}

  send(channelId: string, kind: string, seq: number, at: number) {
    this.out.push({ region: this.region, channelId, kind, seq, at });
    this.told.add(channelId);
  }
  everyChannel() {
    return [...new Set(this.rule.bindings.map((b) => b.channelId))];
  }

  /**
   * Timers whose time has come (before `now`, or at it when `inclusive`), checked against "still
   * firing and unacknowledged". Whatever is due when the dispatcher looks goes out at that moment,
   * one notice per channel: its escalation rather than a reminder.
   */
  clock(now: number, inclusive = false) {
    const isDue = (x: { due: number }) => x.due < now || (inclusive && x.due === now);
    const batch = this.agenda.filter(isDue).sort((a, b) => (a.delay ?? 1e9) - (b.delay ?? 1e9));
    if (batch.length === 0) return;
    this.agenda = this.agenda.filter((x) => !isDue(x));
    if (this.state !== "firing") return;
    const byChannel = new Map<string, [string, number]>();
    for (const next of batch) {
      if (next.what === "escalation") {
        if (!byChannel.has(next.channelId!)) byChannel.set(next.channelId!, ["escalation", next.delay!]);
        continue;
      }
      const every = this.rule.recurringIntervalMinutes! * MIN;
      let due = next.due;
      // Missed reminders collapse into one, numbered for the latest due by now (one due at this very moment
      // included: the dispatcher is sending at now anyway, so the reminder it sends is that one).
      while (due + every <= now) due += every;
      this.reminderNo = Math.round((due - this.startedAt) / every);
      this.agenda.push({ due: due + every, what: "reminder" });
      for (const c of this.everyChannel()) if (!byChannel.has(c)) byChannel.set(c, ["reminder", this.reminderNo]);
    }
    for (const [c, [kind, seq]] of byChannel) this.send(c, kind, seq, now);
  }

  result(verdict: Verdict, at: number) {
    this.clock(at);
    if (at <= this.lastAt) return;
    this.lastAt = at;
    if (!this.rule.enabled || verdict === "unknown") return;
    if (verdict === "holds") {
      this.count++;
      if (this.state === "not alerting" && this.count >= this.rule.consecutiveFailures) {
        this.state = "firing";
        this.startedAt = at;
        this.told = new Set();
        this.agenda = [];
        for (const b of this.rule.bindings) {
          if (b.delayMinutes === 0) this.send(b.channelId, "alert", 1, at);
          else this.agenda.push({ due: at + b.delayMinutes * MIN, what: "escalation", channelId: b.channelId, delay: b.delayMinutes });
        }
        if (this.rule.recurring && this.rule.recurringIntervalMinutes) this.agenda.push({ due: at + this.rule.recurringIntervalMinutes * MIN, what: "reminder" });
      }
    } else {
      this.count = 0;
      if (this.state !== "not alerting") {
        this.state = "not alerting";
        this.agenda = [];
        if (this.rule.onRecovery) for (const c of this.everyChannel()) this.send(c, "recovery", 1, at);
      }
    }
  }

  ack(at: number) {
    this.clock(at);
    if (this.state !== "firing") return;
    this.state = "acknowledged";
    this.agenda = [];
    for (const b of this.rule.bindings) if (b.paging && this.told.has(b.channelId)) this.send(b.channelId, "acknowledgement", 1, at);
  }
}

/** The engine under the same driver, with ticks only where it asks for them (like the dispatcher). */
class EngineRegion {
  s: AlertState = initialState();
  constructor(
    readonly rule: MachineRule,
    readonly region: number,
    readonly out: Sent[],
  ) {}
  apply(n: Notification[]) {
    for (const x of n) this.out.push({ region: this.region, channelId: x.channelId, kind: x.kind, seq: x.seq, at: x.at });
  }
  clock(now: number, inclusive = false) {
    // The dispatcher wakes at each due time it was given, then the driver's own time.
    for (let due = nextDueAt(this.rule, this.s); due !== null && (due < now || (inclusive && due === now)); due = nextDueAt(this.rule, this.s)) {
      const r = step(this.rule, this.s, { type: "tick", at: now });
      this.s = r.state;
      this.apply(r.notifications);
    }
  }
  result(verdict: Verdict, at: number) {
    const r = step(this.rule, this.s, { type: "result", at, verdict });
    this.s = r.state;
    this.apply(r.notifications);
  }
  ack(at: number) {
    const r = step(this.rule, this.s, { type: "ack", at });
    this.s = r.state;
    this.apply(r.notifications);
  }
}

const arbRule: fc.Arbitrary<MachineRule> = fc
  .record({
    enabled: fc.oneof({ weight: 9, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
    consecutiveFailures: fc.integer({ min: 1, max: 4 }),
    onRecovery: fc.boolean(),
    recurring: fc.boolean(),
    recurringIntervalMinutes: fc.option(fc.integer({ min: 1, max: 20 }), { nil: null }),
    bindings: fc.uniqueArray(
      fc.record({ channelId: fc.constantFrom("c1", "c2", "c3", "c4"), delayMinutes: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 30 })), paging: fc.boolean() }),
      { minLength: 1, maxLength: 4, selector: (b) => b.channelId },
    ),
  });

const arbOp: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ t: fc.constant("result" as const), region: fc.integer({ min: 0, max: 2 }), verdict: fc.constantFrom<Verdict>("holds", "holds", "passes", "unknown"), gap: fc.integer({ min: 0, max: 120_000 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("ack" as const), region: fc.option(fc.integer({ min: 0, max: 2 }), { nil: null }), gap: fc.integer({ min: 0, max: 60_000 }) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("wait" as const), ms: fc.integer({ min: 1, max: 40 * MIN }) }) },
);

function run(rule: MachineRule, ops: Op[], make: (rule: MachineRule, region: number, out: Sent[]) => ModelRegion | EngineRegion): Sent[] {
  const out: Sent[] = [];
  const regions = [0, 1, 2].map((r) => make(rule, r, out));
  let now = 1_000_000;
  for (const op of ops) {
    now += op.t === "wait" ? op.ms : op.gap;
    for (const r of regions) r.clock(now);
    if (op.t === "result") regions[op.region]!.result(op.verdict, now);
    else if (op.t === "ack") for (const r of op.region === null ? regions : [regions[op.region]!]) r.ack(now);
  }
  now += 24 * 60 * MIN;
  for (const r of regions) r.clock(now, true);
  return out;
}

const canon = (xs: Sent[]) => xs.map((x) => `${x.at} r${x.region} ${x.channelId} ${x.kind}#${x.seq}`).sort();

describe("alert state machine against the reference model", () => {
  it("emits exactly the model's notifications (channel, kind, sequence, time) on random runs", () => {
    const seen: Record<string, number> = {};
    fc.assert(
      fc.property(arbRule, fc.array(arbOp, { minLength: 1, maxLength: 60 }), (rule, ops) => {
        const engine = run(rule, ops, (r, i, out) => new EngineRegion(r, i, out));
        const model = run(rule, ops, (r, i, out) => new ModelRegion(r, i, out));
        expect(canon(engine)).toEqual(canon(model));
        for (const x of engine) seen[x.kind] = (seen[x.kind] ?? 0) + 1;
      }),
      { numRuns: 5000 },
    );
    // The runs reached every kind, many times.
    for (const kind of ["alert", "escalation", "reminder", "recovery", "acknowledgement"]) expect(seen[kind] ?? 0).toBeGreaterThan(100);
  });

  it("never sends the same (region, incarnation, channel, kind, sequence) twice", () => {
    fc.assert(
      fc.property(arbRule, fc.array(arbOp, { minLength: 1, maxLength: 60 }), (rule, ops) => {
        const out: Sent[] = [];
        const regions = [0, 1, 2].map((r) => new EngineRegion(rule, r, out));
        const keys = new Set<string>();
        let now = 0;
        for (const op of ops) {
          now += op.t === "wait" ? op.ms : op.gap;
          for (const r of regions) {
            const before = out.length;
            r.clock(now);
            if (op.t === "result" && op.region === r.region) r.result(op.verdict, now);
            if (op.t === "ack" && (op.region === null || op.region === r.region)) r.ack(now);
            for (const x of out.slice(before)) {
              const key = `${r.region}:${r.s.incarnation}:${x.channelId}:${x.kind}:${x.seq}`;
              expect(keys.has(key)).toBe(false);
              keys.add(key);
            }
          }
        }
      }),
      { numRuns: 2000 },
    );
  });
});
