/** Time and timers, injectable so schedules can be tested without waiting. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

interface ManualTimer {
  at: number;
  seq: number;
  fn: () => void;
}

/** A clock that only moves when told; `advance` fires due timers in time order. */
export class ManualClock implements Clock {
  private timers = new Map<number, ManualTimer>();
  private seq = 0;

  constructor(private t: number) {}

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): number {
    const id = ++this.seq;
    this.timers.set(id, { at: this.t + Math.max(0, ms), seq: id, fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }

  /** Moves time forward to `now + ms`, firing each timer at its own instant; awaits microtasks between them. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      const next = [...this.timers.entries()].sort(([, a], [, b]) => a.at - b.at || a.seq - b.seq)[0];
      if (!next || next[1].at > end) break;
      this.timers.delete(next[0]);
      this.t = Math.max(this.t, next[1].at);
      next[1].fn();
      await settle();
    }
    this.t = end;
    await settle();
  }

  pendingTimers(): number {
    return this.timers.size;
  }
}

/** Lets promise chains started by a timer run to their next real wait. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}
