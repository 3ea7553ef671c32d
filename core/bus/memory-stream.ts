import { RecentIds } from "./recent-ids.ts";
import { matchSubject } from "./subjects.ts";
import type { QueueSettings } from "./types.ts";

/** In-process model of a JetStream stream with durable pull consumers (explicit ack). */

export interface StoredMessage {
  seq: number;
  subject: string;
  /** The message as JSON would carry it, frozen (frozen-copy.ts): every consumer is handed this one object. */
  data: unknown;
  publishedAt: number;
}

/** A message handed to a pull, before the bus wraps it into a Delivery. */
export interface Claim {
  message: StoredMessage;
  consumer: MemoryConsumer;
  deliveryCount: number;
}

export interface ConsumerSettings {
  filter: string;
  ackWaitMs: number;
  /** 0 = unlimited. */
  maxDeliveries: number;
}

interface Waiter {
  max: number;
  /** Resolve once anything was claimed (long poll) rather than waiting for `max`. */
  any: boolean;
  count: number;
  onClaim: (claim: Claim) => void;
  finish: () => void;
}

export class MemoryStream {
  readonly messages = new Map<number, StoredMessage>();
  readonly consumers = new Map<string, MemoryConsumer>();
  private lastSeq = 0;
  /** Message ids within the duplicate window: at 5,000 messages/s a 120 s window holds 1.2 million. */
  private readonly recentIds = new RecentIds();
  /** Messages restored from the last shutdown, and the durables that had not settled each (only those get it). */
  private readonly restoredFor = new Map<number, ReadonlySet<string>>();

  constructor(
    readonly name: string,
    readonly workQueue: boolean,
    public settings: QueueSettings,
  ) {}

  publish(subject: string, data: unknown, msgId: string): { seq: number; duplicate: boolean } {
    const now = Date.now();
    this.prune(now);
    const seen = this.recentIds.addIfNew(msgId, this.lastSeq + 1, now);
    if (seen !== undefined) return { seq: seen, duplicate: true };
    const seq = ++this.lastSeq;
    this.messages.set(seq, { seq, subject, data, publishedAt: now });
    for (const c of this.consumers.values()) if (matchSubject(c.settings.filter, subject)) c.pump();
    return { seq, duplicate: false };
  }

  /**
   * Stores a message left unsettled at the last shutdown (all-in-one spill file): only the durables named in
   * `pendingFor` receive it; for every other consumer it counts as settled already.
   */
  restore(subject: string, data: unknown, pendingFor: readonly string[]): number {
    const seq = ++this.lastSeq;
    this.messages.set(seq, { seq, subject, data, publishedAt: Date.now() });
    this.restoredFor.set(seq, new Set(pendingFor));
    for (const c of this.consumers.values()) if (matchSubject(c.settings.filter, subject)) c.pump();
    return seq;
  }

  /** Whether the consumer `name` is to receive message `seq` (false for a restored one it had settled). */
  wants(name: string, seq: number): boolean {
    const only = this.restoredFor.get(seq);
    return only === undefined || only.has(name);
  }

  /** Removes messages matching `filter`; returns how many. */
  purge(filter: string): number {
    let n = 0;
    for (const m of this.messages.values()) {
      if (matchSubject(filter, m.subject)) {
        this.messages.delete(m.seq);
        n++;
      }
    }
    return n;
  }

  /** Messages per subject matching `filter`, subjects with none left out. */
  countBySubject(filter: string): Map<string, number> {
    this.prune(Date.now());
    const out = new Map<string, number>();
    for (const m of this.messages.values()) if (matchSubject(filter, m.subject)) out.set(m.subject, (out.get(m.subject) ?? 0) + 1);
    return out;
  }

  count(filter: string): number {
    this.prune(Date.now());
    let n = 0;
    for (const m of this.messages.values()) if (matchSubject(filter, m.subject)) n++;
    return n;
  }

  /** Drops messages past max age and ids past the duplicate window (both maps are in time order). */
  private prune(now: number): void {
    for (const m of this.messages.values()) {
      if (now - m.publishedAt < this.settings.maxAgeMs) break;
      this.messages.delete(m.seq);
    }
    this.recentIds.expire(now, this.settings.duplicateWindowMs);
  }

  /** Message ids remembered for de-duplication (those published within the duplicate window, pruned on publish). */
  get rememberedIds(): number {
    return this.recentIds.size;
  }

  get seqHigh(): number {
    return this.lastSeq;
  }

  /**
   * A message of a log stream (RESULTS) every consumer that wants it has settled is dropped: a
   * process has no disk to keep a day of results on (at 333 results/s that is gigabytes), and every
   * durable of the single process exists from start-up. A message nobody consumes yet waits for
   * its max age, so a durable created later still sees it.
   */
  release(seq: number): void {
    const m = this.messages.get(seq);
    if (!m) return;
    for (const c of this.consumers.values()) {
      if (matchSubject(c.settings.filter, m.subject) && !c.settled(seq)) return;
    }
    this.messages.delete(seq);
    this.restoredFor.delete(seq);
  }
}

interface Sweep {
  timer: ReturnType<typeof setTimeout>;
  at: number;
}

export class MemoryConsumer {
  /** Highest stream sequence considered for a first delivery. */
  private cursor = 0;
  /** Outstanding messages (delivered, not yet acked or given up) and their delivery counts. */
  private readonly deliveries = new Map<number, number>();
  /**
   * Ack deadline of each outstanding delivery (ms since the epoch), earliest first: every deadline is now + ackWaitMs
   * and a re-armed one moves to the end. One timer per consumer (`sweep`) expires them: a timer per delivery held
   * a Timeout, a closure and its scope for each of thousands of outstanding messages, and made as much garbage.
   */
  private readonly deadlines = new Map<number, number>();
  private sweep: Sweep | null = null;
  /** The latest deadline set; one set earlier than it (ackWaitMs was shortened) puts the map out of order. */
  private lastDeadline = 0;
  private unordered = false;
  private readonly delayed = new Map<number, ReturnType<typeof setTimeout>>();
  /** Ready for redelivery, lowest sequence first. */
  private readonly redeliver = new Set<number>();
  private readonly waiters: Waiter[] = [];

  constructor(
    readonly name: string,
    readonly stream: MemoryStream,
    public settings: ConsumerSettings,
  ) {}

  /** Claims up to `max` messages; calls `finish` when full, or at the first claim when `any`. */
  pull(max: number, any: boolean, onClaim: (c: Claim) => void, finish: () => void): () => void {
    const waiter: Waiter = { max, any, count: 0, onClaim, finish };
    this.waiters.push(waiter);
    this.pump();
    return () => this.dropWaiter(waiter);
  }

  pump(): void {
    while (this.waiters.length > 0) {
      const seq = this.next();
      if (seq === undefined) break;
      const waiter = this.waiters[0];
      const deliveryCount = (this.deliveries.get(seq) ?? 0) + 1;
      this.deliveries.set(seq, deliveryCount);
      this.armDeadline(seq);
      waiter.count++;
      if (waiter.count >= waiter.max) this.dropWaiter(waiter);
      waiter.onClaim({ message: this.stream.messages.get(seq)!, consumer: this, deliveryCount });
      if (waiter.count >= waiter.max) waiter.finish();
    }
    // Long polls that got something end now (a loop, not a filter: pump runs for every consumer on every publish).
    for (let i = 0; i < this.waiters.length; ) {
      const w = this.waiters[i]!;
      if (!(w.any && w.count > 0)) {
        i++;
        continue;
      }
      this.waiters.splice(i, 1);
      w.finish();
    }
  }

  ack(seq: number): void {
    if (!this.forget(seq)) return;
    if (this.stream.workQueue) this.stream.messages.delete(seq);
    else this.stream.release(seq);
  }

  /** Delivered (or passed over) and no longer outstanding, or a restored message meant for other consumers. */
  settled(seq: number): boolean {
    return (this.cursor >= seq && !this.deliveries.has(seq)) || !this.stream.wants(this.name, seq);
  }

  /** Sequences of the stored messages this consumer has not settled: outstanding, then not yet delivered. */
  unsettled(): number[] {
    const out = [...this.deliveries.keys()].filter((seq) => this.stream.messages.has(seq));
    for (let seq = this.cursor + 1; seq <= this.stream.seqHigh; seq++) {
      const m = this.stream.messages.get(seq);
      if (m && matchSubject(this.settings.filter, m.subject) && this.stream.wants(this.name, seq)) out.push(seq);
    }
    return out;
  }

  nak(seq: number, delayMs = 0): void {
    if (!this.deadlines.delete(seq)) return;
    if (this.exhausted(seq)) return void this.deliveries.delete(seq);
    if (delayMs <= 0) return this.requeue(seq);
    const t = setTimeout(() => {
      this.delayed.delete(seq);
      this.requeue(seq);
    }, delayMs);
    t.unref?.();
    this.delayed.set(seq, t);
  }

  /** Matching messages not yet delivered plus those delivered and not yet settled. */
  pending(): number {
    let n = 0;
    for (const seq of this.deliveries.keys()) if (this.stream.messages.has(seq)) n++;
    for (let seq = this.cursor + 1; seq <= this.stream.seqHigh; seq++) {
      const m = this.stream.messages.get(seq);
      if (m && matchSubject(this.settings.filter, m.subject) && this.stream.wants(this.name, seq)) n++;
    }
    return n;
  }

  working(seq: number): void {
    if (this.deadlines.has(seq)) this.armDeadline(seq);
  }

  /** Like ack, but for a limits stream the message stays for other consumers. */
  term(seq: number): void {
    this.ack(seq);
  }

  close(): void {
    if (this.sweep) clearTimeout(this.sweep.timer);
    this.sweep = null;
    this.deadlines.clear();
    for (const t of this.delayed.values()) clearTimeout(t);
    for (const w of this.waiters.splice(0)) w.finish();
  }

  private next(): number | undefined {
    while (this.redeliver.size > 0) {
      let seq = Infinity;
      for (const s of this.redeliver) seq = Math.min(seq, s);
      this.redeliver.delete(seq);
      if (this.stream.messages.has(seq) && this.deliveries.has(seq)) return seq;
      this.deliveries.delete(seq);
    }
    while (this.cursor < this.stream.seqHigh) {
      const m = this.stream.messages.get(++this.cursor);
      if (m && matchSubject(this.settings.filter, m.subject) && this.stream.wants(this.name, m.seq)) return m.seq;
    }
    return undefined;
  }

  private armDeadline(seq: number): void {
    const at = Date.now() + this.settings.ackWaitMs;
    this.deadlines.delete(seq);
    this.deadlines.set(seq, at);
    if (at < this.lastDeadline) this.unordered = true;
    else this.lastDeadline = at;
    // Earlier than the sweep only after ackWaitMs was shortened: the sweep then puts the map back in order.
    if (this.sweep && at < this.sweep.at) clearTimeout(this.sweep.timer);
    else if (this.sweep) return;
    this.sweepAt(at);
  }

  /** Expires the deadlines that are due, earliest first, then waits for the next one. */
  private expire(): void {
    this.sweep = null;
    if (this.unordered) this.sortDeadlines();
    const now = Date.now();
    const due: number[] = [];
    for (const [seq, at] of this.deadlines) {
      if (at > now) break;
      due.push(seq);
    }
    for (const seq of due) {
      this.deadlines.delete(seq);
      if (this.exhausted(seq)) this.deliveries.delete(seq);
      else this.redeliver.add(seq);
    }
    if (due.length > 0) this.pump();
    // The earliest deadline left (a delivery the pump just re-armed may have set the sweep later than it).
    const next = this.deadlines.values().next();
    const sweep = this.sweep as Sweep | null; // pump() may have set it since the null above
    if (next.done || (sweep && sweep.at <= next.value)) return;
    if (sweep) clearTimeout(sweep.timer);
    this.sweepAt(next.value);
  }

  /** Rewrites the deadlines earliest first (once after ackWaitMs was shortened; they stay in order after). */
  private sortDeadlines(): void {
    const sorted = [...this.deadlines].sort((a, b) => a[1] - b[1]);
    this.deadlines.clear();
    for (const [seq, at] of sorted) this.deadlines.set(seq, at);
    this.unordered = false;
  }

  private sweepAt(at: number): void {
    const timer = setTimeout(() => this.expire(), Math.max(0, at - Date.now()));
    timer.unref?.();
    this.sweep = { timer, at };
  }

  private requeue(seq: number): void {
    this.redeliver.add(seq);
    this.pump();
  }

  private exhausted(seq: number): boolean {
    const max = this.settings.maxDeliveries;
    return max > 0 && (this.deliveries.get(seq) ?? 0) >= max;
  }

  /** Stops tracking an outstanding message; false when it was not outstanding. */
  private forget(seq: number): boolean {
    if (!this.deliveries.has(seq)) return false;
    // The sweep timer is left set: it finds nothing due and waits for the earliest deadline left.
    this.deadlines.delete(seq);
    const delay = this.delayed.get(seq);
    if (delay !== undefined) {
      clearTimeout(delay);
      this.delayed.delete(seq);
    }
    this.redeliver.delete(seq);
    this.deliveries.delete(seq);
    return true;
  }

  private dropWaiter(w: Waiter): void {
    const i = this.waiters.indexOf(w);
    if (i >= 0) this.waiters.splice(i, 1);
  }
}
