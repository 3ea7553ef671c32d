/** The de-duplication ids of an in-process stream (memory-stream.ts): those published within its duplicate window. */

/** Ids per block of the FIFO (a power of two); a block is dropped once the window has passed its last id. */
const BLOCK_BITS = 10;
const BLOCK_MASK = (1 << BLOCK_BITS) - 1;
const MIN_SLOTS = 1024;
const MAX_LOAD = 0.75;
/** A slot holds a FIFO position modulo 2³¹, plus one (0 is free): the window spans far fewer than 2³¹ ids. */
const POS_MASK = 0x7fffffff;
/** In `seqs`: this id's sequence and time did not fit 32-bit offsets from its block's first; they are in `wide`. */
const WIDE = 0xffffffff;

interface IdBlock {
  /** Three 32-bit hashes per id, one after the other. */
  hashes: Uint32Array;
  /** Each id's sequence and publish time (ms) as offsets from the block's first id's (`seqBase`, `timeBase`). */
  seqs: Uint32Array;
  times: Uint32Array;
  seqBase: number;
  timeBase: number;
  /** The ids whose offsets do not fit (a clock set back, a fractional time, 4 billion messages without an id). */
  wide: Map<number, { seq: number; time: number }> | null;
}

/** Whether `d` is kept as a 32-bit offset (WIDE marks the ids that are not). */
const fits = (d: number) => d >= 0 && d < WIDE && Number.isInteger(d);

const seqAt = (b: IdBlock, o: number): number => (b.seqs[o] === WIDE ? b.wide!.get(o)!.seq : b.seqBase + b.seqs[o]!);
const timeAt = (b: IdBlock, o: number): number => (b.seqs[o] === WIDE ? b.wide!.get(o)!.time : b.timeBase + b.times[o]!);

/**
 * The ids of the duplicate window without their text: ~27 B each against ~167 B for a string in a `Map` (whose entry
 * alone is ~45 B even with a number key). An id is three 32-bit hashes by three functions seeded at random per stream
 * (xxHash32, murmur32v3, murmur32v2), kept with its sequence and publish time (32-bit offsets from its block's first id's) in a FIFO of typed-array blocks and
 * found through an open-addressing table (linear probing) of FIFO positions. A remembered id is never missed; a new
 * id is taken for a duplicate only if all 96 bits equal those of another id in the window: with 1.2 million ids per
 * window (5,000 checks/s, 120 s) the odds are below 1.2e6² / 2⁹⁶ ≈ 2e-17 per window, 5e-12 in a year.
 */
export class RecentIds {
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
      if (b.hashes[k] === h0 && b.hashes[k + 1] === h1 && b.hashes[k + 2] === h2) return seqAt(b, pos & BLOCK_MASK);
      if (++i === slots.length) i = 0;
    }
    const pos = this.tail++;
    if ((pos & BLOCK_MASK) === 0) this.blocks.push(this.newBlock());
    const b = this.block(pos);
    const o = pos & BLOCK_MASK;
    b.hashes[3 * o] = h0;
    b.hashes[3 * o + 1] = h1;
    b.hashes[3 * o + 2] = h2;
    if (o === 0) {
      b.seqBase = seq;
      b.timeBase = now;
      b.wide = null;
    }
    const ds = seq - b.seqBase;
    const dt = now - b.timeBase;
    if (fits(ds) && fits(dt)) {
      b.seqs[o] = ds;
      b.times[o] = dt;
    } else {
      b.seqs[o] = WIDE;
      (b.wide ??= new Map()).set(o, { seq, time: now });
    }
    slots[i] = (pos & POS_MASK) + 1;
    return undefined;
  }

  /** Forgets the ids published `windowMs` or longer before `now` (oldest first: amortised O(1) per id). */
  expire(now: number, windowMs: number): void {
    while (this.head < this.tail && now - timeAt(this.block(this.head), this.head & BLOCK_MASK) >= windowMs) {
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
      seqs: new Uint32Array(BLOCK_MASK + 1),
      times: new Uint32Array(BLOCK_MASK + 1),
      seqBase: 0,
      timeBase: 0,
      wide: null,
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
