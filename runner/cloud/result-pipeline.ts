/** The shutdown grace ended before a finished check's result was on the bus: its job goes back to the queue. */
export class PublishAbandonedError extends Error {
  override readonly name = "PublishAbandonedError";
  constructor() {
    super("shutdown grace over before the result was published");
  }
}

/**
 * Finished checks whose results wait for the bus's acknowledgement, at most `limit` at once. A check that
 * ends with the pipeline full waits for room, still holding its slot: a stalled bus stops the worker taking
 * jobs, and memory stays bounded. Room goes to the waiters in the order they came.
 */
export class ResultPipeline {
  private inside = 0;
  private readonly waiters: { admit(): void }[] = [];

  constructor(readonly limit: number) {}

  get size(): number {
    return this.inside;
  }

  /** Publishes through `publish` once there is room; rejects with PublishAbandonedError when `signal` aborts first. */
  async run<T>(signal: AbortSignal, onAdmitted: () => void, publish: () => Promise<T>): Promise<T> {
    await this.enter(signal);
    try {
      onAdmitted();
      return await untilAborted(publish(), signal);
    } finally {
      this.leave();
    }
  }

  private enter(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(new PublishAbandonedError());
    if (this.inside < this.limit) {
      this.inside++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        admit: () => {
          signal.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        reject(new PublishAbandonedError());
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** The leaver's room passes straight to the first waiter, so a newcomer cannot take it in between. */
  private leave(): void {
    const next = this.waiters.shift();
    if (next) next.admit();
    else this.inside--;
  }
}

function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new PublishAbandonedError());
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new PublishAbandonedError());
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
