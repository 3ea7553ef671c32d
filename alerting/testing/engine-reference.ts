/**
 * The reference model of the whole alert engine, written from the spec's alert state table
 * and docs/alerting.md alone: per (rule, monitor, region) a counter, a phase and pending
 * notices, with maintenance windows that stop the alert's clock. A pure function of a trace.
 */
import type { Trace, TraceRule } from "./trace.ts";

export const MIN = 60_000;

/** One notification as both the model and the engine report it. */
export interface Sent {
  rule: number;
  monitor: number;
  region: number;
  channel: number;
  kind: string;
  seq: number;
  at: number;
}

type Span = [number, number];

/** Merged, sorted maintenance spans. */
function merge(spans: Span[]): Span[] {
  const out: Span[] = [];
  for (const [s, e] of [...spans].sort((a, b) => a[0] - b[0])) {
    const last = out[out.length - 1];
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

const quietAt = (spans: Span[], t: number) => spans.some(([s, e]) => s <= t && t < e);

/** The first moment outside every window at which `elapsed` ms of alert time (time outside windows since t0) have passed. */
function dueAfter(spans: Span[], t0: number, elapsed: number): number {
  let c = t0;
  let left = elapsed;
  for (const [s, e] of spans) {
    if (e <= c) continue;
    if (s > c) {
      if (left < s - c) return c + left;
      left -= s - c;
    }
    c = e;
  }
  return c + left;
}

interface Alert {
  count: number;
  phase: "idle" | "firing" | "acked";
  t0: number;
  alertPending: boolean;
  escalations: Set<number>;
  reminder: number;
  told: Set<number>;
}

/** Runs the trace through the model and returns every notification. */
export function referenceRun(trace: Trace): Sent[] {
  const out: Sent[] = [];
  const rules: (TraceRule | null)[] = trace.rules.map((r) => ({ ...r, bindings: [...r.bindings] }));
  const monitorAlive = trace.monitors.map(() => true);
  /** Rules whose monitor was deleted: disabled, and refused to be enabled again on that scope. */
  const orphaned = new Set<number>();
  const states = new Map<string, Alert>();
  const windows: Span[] = [];
  let spans: Span[] = [];
  const key = (r: number, m: number, g: number) => `${r}|${m}|${g}`;
  const parse = (k: string) => k.split("|").map(Number) as [number, number, number];
  const channels = (rule: TraceRule) => [...new Set(rule.bindings.map((b) => b.channel))];
  const send = (k: string, a: Alert, channel: number, kind: string, seq: number, at: number) => {
    const [rule, monitor, region] = parse(k);
    out.push({ rule, monitor, region, channel, kind, seq, at });
    a.told.add(channel);
  };
  const covers = (r: TraceRule, m: number) => r.scope === "all" || r.scope === m;

  /** The earliest pending notice of a firing alert: its time and what is due then. */
  function nextOf(rule: TraceRule, a: Alert): number | null {
    if (a.phase !== "firing") return null;
    const times: number[] = [];
    if (a.alertPending) times.push(dueAfter(spans, a.t0, 0));
    for (const b of rule.bindings) if (b.delay > 0 && !a.escalations.has(b.delay * 1000 + b.channel)) times.push(dueAfter(spans, a.t0, b.delay * MIN));
    if (rule.recurring && rule.interval) times.push(dueAfter(spans, a.t0, (a.reminder + 1) * rule.interval * MIN));
    return times.length ? Math.min(...times) : null;
  }

  /** Everything due at `at` for one alert, one notice per channel: alert, then escalation, then reminder. */
  function fireDue(k: string, rule: TraceRule, a: Alert, at: number) {
    const byChannel = new Map<number, [string, number]>();
    const put = (c: number, kind: string, seq: number) => {
      if (!byChannel.has(c)) byChannel.set(c, [kind, seq]);
    };
    if (a.alertPending && dueAfter(spans, a.t0, 0) === at) {
      a.alertPending = false;
      for (const b of rule.bindings) if (b.delay === 0) put(b.channel, "alert", 1);
    }
    for (const b of [...rule.bindings].sort((x, y) => x.delay - y.delay)) {
      const id = b.delay * 1000 + b.channel;
      if (b.delay > 0 && !a.escalations.has(id) && dueAfter(spans, a.t0, b.delay * MIN) === at) {
        a.escalations.add(id);
        put(b.channel, "escalation", b.delay);
      }
    }
    if (rule.recurring && rule.interval && dueAfter(spans, a.t0, (a.reminder + 1) * rule.interval * MIN) === at) {
      a.reminder += 1;
      for (const c of channels(rule)) put(c, "reminder", a.reminder);
    }
    // A disabled rule is muted: what comes due meanwhile is dropped, not sent later.
    if (!rule.enabled) return;
    for (const [c, [kind, seq]] of byChannel) send(k, a, c, kind, seq, at);
  }

  /** Timers due before `now` (or at it, when `inclusive`), in time order. */
  function clock(now: number, inclusive: boolean) {
    for (;;) {
      let best: { k: string; at: number } | null = null;
      for (const [k, a] of states) {
        const rule = rules[parse(k)[0]];
        if (!rule) continue;
        const at = nextOf(rule, a);
        if (at !== null && (at < now || (inclusive && at === now)) && (!best || at < best.at)) best = { k, at };
      }
      if (!best) return;
      const [r] = parse(best.k);
      fireDue(best.k, rules[r]!, states.get(best.k)!, best.at);
    }
  }

  let now = trace.start;
  for (const op of trace.ops) {
    now += op.gap;
    clock(now, false);
    switch (op.t) {
      case "result": {
        if (!monitorAlive[op.monitor]) break;
        rules.forEach((rule, r) => {
          if (!rule || !rule.enabled || !covers(rule, op.monitor) || op.verdict === "unknown") return;
          const k = key(r, op.monitor, op.region);
          let a = states.get(k);
          if (!a) states.set(k, (a = { count: 0, phase: "idle", t0: 0, alertPending: false, escalations: new Set(), reminder: 0, told: new Set() }));
          if (op.verdict === "holds") {
            a.count += 1;
            if (a.phase === "idle" && a.count >= rule.consecutiveFailures) {
              Object.assign(a, { phase: "firing", t0: now, alertPending: true, escalations: new Set(), reminder: 0, told: new Set() });
              if (!quietAt(spans, now)) fireDue(k, rule, a, now);
            }
          } else {
            a.count = 0;
            if (a.phase !== "idle") {
              a.phase = "idle";
              // Inside a window only channels already told hear that it cleared, so no paging incident stays open.
              const to = quietAt(spans, now) ? channels(rule).filter((c) => a!.told.has(c)) : channels(rule);
              if (rule.onRecovery) for (const c of to) send(k, a, c, "recovery", 1, now);
            }
          }
        });
        break;
      }
      case "ack": {
        const rule = rules[op.rule];
        if (!rule || !monitorAlive[op.monitor]) break;
        for (let g = 0; g < trace.regions; g++) {
          if (op.region !== null && op.region !== g) continue;
          const k = key(op.rule, op.monitor, g);
          const a = states.get(k);
          if (!a || a.phase !== "firing") continue;
          a.phase = "acked";
          for (const b of rule.bindings) if (b.channel === trace.pagingChannel && a.told.has(b.channel)) send(k, a, b.channel, "acknowledgement", 1, now);
        }
        break;
      }
      case "window":
        windows.push([now, now + op.minutes * MIN]);
        spans = merge(windows);
        break;
      case "toggle": {
        const rule = rules[op.rule];
        if (!rule) break;
        if (op.field === "enabled") {
          if (!orphaned.has(op.rule)) rule.enabled = !rule.enabled;
        } else rule.onRecovery = !rule.onRecovery;
        break;
      }
      case "confirm": {
        // Applies from the rule's next evaluation, to a counter already running too.
        const rule = rules[op.rule];
        if (rule) rule.consecutiveFailures = op.consecutive;
        break;
      }
      case "delete_rule":
        rules[op.rule] = null;
        for (const k of [...states.keys()]) if (parse(k)[0] === op.rule) states.delete(k);
        break;
      case "delete_monitor":
        monitorAlive[op.monitor] = false;
        rules.forEach((r, i) => {
          if (r && r.scope === op.monitor) {
            r.enabled = false;
            orphaned.add(i);
          }
        });
        for (const k of [...states.keys()]) if (parse(k)[1] === op.monitor) states.delete(k);
        break;
      case "restart":
      case "wait":
        break;
    }
  }
  clock(now + trace.tail, true);
  return out;
}
