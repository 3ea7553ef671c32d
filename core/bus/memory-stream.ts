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
  private sweep: { timer: ReturnType<typeof setTimeout>; at: number } | null = null;
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
    for (const w of this.waiters.filter((w) => w.any && w.count > 0)) {
      this.dropWaiter(w);
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
    if (!this.deadlines.has(seq)) return;
    this.deadlines.delete(seq);
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
    // Earlier than the sweep only after ackWaitMs was shortened (then a later deadline can expire that much late).
    if (this.sweep && at < this.sweep.at) clearTimeout(this.sweep.timer);
    else if (this.sweep) return;
    this.sweepAt(at);
  }

  /** Expires the deadlines that are due, earliest first, then waits for the next one. */
  private expire(): void {
    this.sweep = null;
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
    const next = this.deadlines.values().next();
    if (!next.done && !this.sweep) this.sweepAt(next.value);
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
    clearTimeout(this.delayed.get(seq));
    this.deadlines.delete(seq);
    this.delayed.delete(seq);
    this.redeliver.delete(seq);
    this.deliveries.delete(seq);
    return true;
  }

  private dropWaiter(w: Waiter): void {
    const i = this.waiters.indexOf(w);
    if (i >= 0) this.waiters.splice(i, 1);
  }
}

/** Ids per block of the FIFO (a power of two); a block is dropped once the window has passed its last id. */
const BLOCK_BITS = 10;
const BLOCK_MASK = (1 << BLOCK_BITS) - 1;
const MIN_SLOTS = 1024;
const MAX_LOAD = 0.75;
/** A slot holds a FIFO position modulo 2³¹, plus one (0 is free): the window spans far fewer than 2³¹ ids. */
const POS_MASK = 0x7fffffff;

interface IdBlock {
  /** Three 32-bit hashes per id, one after the other. */
  hashes: Uint32Array;
  seqs: Float64Array;
  times: Float64Array;
}

/**
 * The ids of the duplicate window without their text: ~35 B each against ~167 B for a string in a `Map` (whose entry
 * alone is ~45 B even with a number key). An id is three 32-bit hashes by three functions seeded at random per stream
 * (xxHash32, murmur32v3, murmur32v2), kept with its sequence and publish time in a FIFO of typed-array blocks and
 * found through an open-addressing table (linear probing) of FIFO positions. A remembered id is never missed; a new
 * id is taken for a duplicate only if all 96 bits equal those of another id in the window: with 1.2 million ids per
 * window (5,000 checks/s, 120 s) the odds are below 1.2e6² / 2⁹⁶ ≈ 2e-17 per window, 5e-12 in a year.
 */
class RecentIds {
  private readonly seeds = crypto.getRandomValues(new Uint32Array(3));
  /** Absolute FIFO positions: the oldest id remembered and the next to come. */
  private head = 0;
  private tail = 0;
  /** `blocks[first]` holds the ids from position `firstPos` (a multiple of the block size) on. */
  private blocks: IdBlock[] = [];
  private first = 0;
  private firstPos = 0;
  private spare: IdBlock | null = null;
  private slots = new Uint32Array(MIN_SLOTS);
  private scale = MIN_SLOTS / 2 ** 32;

  get size(): number {
    return this.tail - this.head;
  }

  /** The sequence `id` was remembered with; else remembers it with `seq`, published at `now`, and returns undefined. */
  addIfNew(id: string, seq: number, now: number): number | undefined {
    const h0 = Bun.hash.xxHash32(id, this.seeds[0]) >>> 0;
    const h1 = Bun.hash.murmur32v3(id, this.seeds[1]) >>> 0;
    const h2 = Bun.hash.murmur32v2(id, this.seeds[2]) >>> 0;
    if (this.size + 1 > this.slots.length * MAX_LOAD) this.resize(2 * (this.size + 1));
    const slots = this.slots;
    let i = this.home(h0);
    for (let s = slots[i]!; s !== 0; s = slots[i]!) {
      const pos = this.position(s);
      const b = this.block(pos);
      const k = 3 * (pos & BLOCK_MASK);
      if (b.hashes[k] === h0 && b.hashes[k + 1] === h1 && b.hashes[k + 2] === h2) return b.seqs[pos & BLOCK_MASK];
      if (++i === slots.length) i = 0;
    }
    const pos = this.tail++;
    if ((pos & BLOCK_MASK) === 0) this.blocks.push(this.newBlock());
    const b = this.block(pos);
    const o = pos & BLOCK_MASK;
    b.hashes[3 * o] = h0;
    b.hashes[3 * o + 1] = h1;
    b.hashes[3 * o + 2] = h2;
    b.seqs[o] = seq;
    b.times[o] = now;
    slots[i] = (pos & POS_MASK) + 1;
    return undefined;
  }

  /** Forgets the ids published `windowMs` or longer before `now` (oldest first: amortised O(1) per id). */
  expire(now: number, windowMs: number): void {
    while (this.head < this.tail && now - this.block(this.head).times[this.head & BLOCK_MASK]! >= windowMs) {
      this.remove(this.head);
      if ((++this.head & BLOCK_MASK) === 0) this.dropBlock();
    }
    if (this.slots.length > MIN_SLOTS && this.size * 8 < this.slots.length) this.resize(2 * this.size);
  }

  private home(hash: number): number {
    return Math.floor(hash * this.scale);
  }

  private position(slot: number): number {
    return this.head + ((slot - 1 - this.head) & POS_MASK);
  }

  private block(pos: number): IdBlock {
    return this.blocks[this.first + ((pos - this.firstPos) >> BLOCK_BITS)]!;
  }

  private homeOf(pos: number): number {
    return this.home(this.block(pos).hashes[3 * (pos & BLOCK_MASK)]!);
  }

  /** Removes position `pos` from the table by backward shift (no tombstones: probe runs stay as short as at insert). */
  private remove(pos: number): void {
    const slots = this.slots;
    const target = (pos & POS_MASK) + 1;
    let i = this.homeOf(pos);
    while (slots[i] !== target) {
      if (slots[i] === 0) throw new Error("memory stream: a remembered message id is missing from its table");
      if (++i === slots.length) i = 0;
    }
    for (let j = i; ; ) {
      if (++j === slots.length) j = 0;
      const s = slots[j]!;
      if (s === 0) break;
      const k = this.homeOf(this.position(s));
      // An id stays where it is when its home lies cyclically in (i, j]: a probe from there never crosses the hole.
      if (i <= j ? i < k && k <= j : i < k || k <= j) continue;
      slots[i] = s;
      i = j;
    }
    slots[i] = 0;
  }

  private resize(wanted: number): void {
    const slots = new Uint32Array(Math.max(MIN_SLOTS, wanted));
    this.slots = slots;
    this.scale = slots.length / 2 ** 32;
    for (let pos = this.head; pos < this.tail; pos++) {
      let i = this.homeOf(pos);
      while (slots[i] !== 0) if (++i === slots.length) i = 0;
      slots[i] = (pos & POS_MASK) + 1;
    }
  }

  private newBlock(): IdBlock {
    const b = this.spare ?? {
      hashes: new Uint32Array(3 * (BLOCK_MASK + 1)),
      seqs: new Float64Array(BLOCK_MASK + 1),
      times: new Float64Array(BLOCK_MASK + 1),
    };
    this.spare = null;
    return b;
  }

  /** Drops the oldest block (the window has passed all its ids); compacts the list of blocks as the FIFO did ids. */
  private dropBlock(): void {
    this.spare = this.blocks[this.first]!;
    this.first++;
    this.firstPos += BLOCK_MASK + 1;
    if (this.first >= 64 && this.first * 2 >= this.blocks.length) {
      this.blocks = this.blocks.slice(this.first);
      this.first = 0;
    }
  }
}
