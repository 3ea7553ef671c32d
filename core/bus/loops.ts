import type { Logger } from "../log.ts";
import { Signal, type TrackedDelivery } from "./delivery.ts";
import { retryDelayMs } from "./topology.ts";
import type { BatchHandler, ConsumerHandle, JobHandler } from "./types.ts";

/** One pull request in progress. */
export interface Pull {
  /** Resolves once `max` deliveries arrived or the wait expired (or after cancel). */
  done: Promise<void>;
  /** Ends the pull promptly; nothing more is delivered to it. */
  cancel(): void;
}

/** How a transport claims deliveries from one consumer; each arrives through `onEach`. */
export type Puller<T> = (max: number, waitMs: number, onEach: (d: TrackedDelivery<T>) => void) => Pull;

interface LoopContext {
  log: Logger;
  op: string;
  /** Longest single pull; stop() does not wait for it. */
  pollMs: number;
}

/**
 * Jobs handled one by one, at most `maxInFlight` holding a slot at once. A handler may give its slot back
 * before it ends (`slot.release()`): the loop takes the next job while it finishes, and settles its job
 * when it does; such handlers bound themselves. stop() waits for every handler, released or not.
 */
export function startJobLoop<T>(pull: Puller<T>, maxInFlight: number, ctx: LoopContext, handler: JobHandler<T>): ConsumerHandle {
  const running = new Set<Promise<void>>();
  const slotFreed = new Signal();
  const pause = new Pause();
  let holding = 0;
  let stopping = false;
  let current: Pull | null = null;

  const start = (d: TrackedDelivery<T>) => {
    if (stopping) return d.nak();
    holding++;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      holding--;
      slotFreed.notify();
    };
    const p = settleAfter(ctx, [d], () => handler(d, { release })).finally(() => {
      release();
      running.delete(p);
    });
    running.add(p);
  };

  const loop = async () => {
    while (!stopping) {
      if (holding >= maxInFlight) {
        await slotFreed.wait();
        continue;
      }
      current = pull(maxInFlight - holding, ctx.pollMs, start);
      try {
        await current.done;
      } catch (err) {
        ctx.log.warn({ op: ctx.op, err }, "pull failed; retrying");
        await pause.for(1000);
      }
      current = null;
    }
  };
  const looping = loop();

  return {
    async stop() {
      stopping = true;
      current?.cancel();
      slotFreed.notify();
      pause.interrupt();
      await looping;
      await Promise.all(running);
    },
  };
}

/**
 * Batches of up to `batchSize`, one handler call at a time. A batch is handed over when full
 * or `maxWaitMs` after its first delivery; the next batch is pulled while the handler runs.
 */
export function startBatchLoop<T>(
  pull: Puller<T>,
  { batchSize, maxWaitMs }: { batchSize: number; maxWaitMs: number },
  ctx: LoopContext,
  handler: BatchHandler<T>,
): ConsumerHandle {
  const buffer: TrackedDelivery<T>[] = [];
  const changed = new Signal();
  const pause = new Pause();
  let firstAt = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopping = false;
  let current: Pull | null = null;

  const add = (d: TrackedDelivery<T>) => {
    if (stopping) return d.nak();
    buffer.push(d);
    if (buffer.length === 1) {
      firstAt = performance.now();
      clearTimeout(timer);
      timer = setTimeout(() => changed.notify(), maxWaitMs);
    }
    if (buffer.length >= batchSize) changed.notify();
  };

  const read = async () => {
    while (!stopping) {
      if (buffer.length >= batchSize) {
        await changed.wait();
        continue;
      }
      current = pull(batchSize - buffer.length, ctx.pollMs, add);
      try {
        await current.done;
      } catch (err) {
        ctx.log.warn({ op: ctx.op, err }, "pull failed; retrying");
        await pause.for(1000);
      }
      current = null;
    }
  };

  // Timers may fire a millisecond early; the slack keeps a due batch from waiting another round.
  const due = () => buffer.length >= batchSize || (buffer.length > 0 && performance.now() - firstAt >= maxWaitMs - 2);
  const flush = async () => {
    while (!stopping) {
      if (!due()) {
        await changed.wait();
        continue;
      }
      const batch = buffer.splice(0, batchSize);
      changed.notify();
      await settleAfter(ctx, batch, () => handler(batch));
    }
  };

  const reading = read();
  const flushing = flush();

  return {
    async stop() {
      stopping = true;
      current?.cancel();
      clearTimeout(timer);
      pause.interrupt();
      changed.notify();
      await Promise.all([reading, flushing]);
      for (const d of buffer.splice(0)) d.nak();
    },
  };
}

/** Runs the handler, then acks what it left open, or naks it with a backoff when it threw. */
async function settleAfter<T>(ctx: LoopContext, deliveries: TrackedDelivery<T>[], run: () => Promise<void> | void): Promise<void> {
  try {
    await run();
    for (const d of deliveries) d.ack();
  } catch (err) {
    ctx.log.error({ op: ctx.op, err, count: deliveries.length, subject: deliveries[0]?.subject }, "handler failed; redelivering");
    for (const d of deliveries) d.nak(retryDelayMs(d.deliveryCount));
  }
}

/** An interruptible sleep. */
class Pause {
  private wake: (() => void) | null = null;

  for(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(t);
        resolve();
      };
    });
  }

  interrupt(): void {
    this.wake?.();
    this.wake = null;
  }
}
