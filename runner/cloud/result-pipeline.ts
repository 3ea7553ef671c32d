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
 * jobs, and memory stays bounded. Room goes to the waiters in the order they came. When `signal` aborts, every
 * waiter and every publish still unanswered rejects with PublishAbandonedError (one listener for the pipeline, not
 * one per result: it was a tenth of the worker loop's time per check).
 */
export class ResultPipeline {
  private inside = 0;
  private readonly waiters: { admit(): void; abandon(): void }[] = [];
  private readonly publishing = new Set<() => void>();

  constructor(
    readonly limit: number,
    private readonly signal: AbortSignal,
  ) {
    signal.addEventListener(
      "abort",
      () => {
        for (const waiter of this.waiters.splice(0)) waiter.abandon();
        for (const abandon of [...this.publishing]) abandon();
      },
      { once: true },
    );
  }

  get size(): number {
    return this.inside;
  }

  /** Publishes through `publish` once there is room; rejects with PublishAbandonedError when the signal aborts first. */
  async run<T>(onAdmitted: () => void, publish: () => Promise<T>): Promise<T> {
    await this.enter();
    try {
      onAdmitted();
      return await this.untilAborted(publish());
    } finally {
      this.leave();
    }
  }

  private enter(): Promise<void> {
    if (this.signal.aborted) return Promise.reject(new PublishAbandonedError());
    if (this.inside < this.limit) {
      this.inside++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => this.waiters.push({ admit: resolve, abandon: () => reject(new PublishAbandonedError()) }));
  }

  /** The leaver's room passes straight to the first waiter, so a newcomer cannot take it in between. */
  private leave(): void {
    const next = this.waiters.shift();
    if (next) next.admit();
    else this.inside--;
  }

  private untilAborted<T>(work: Promise<T>): Promise<T> {
    if (this.signal.aborted) return Promise.reject(new PublishAbandonedError());
    return new Promise((resolve, reject) => {
      const abandon = () => {
        this.publishing.delete(abandon);
        reject(new PublishAbandonedError());
      };
      this.publishing.add(abandon);
      work.then(resolve, reject).finally(() => this.publishing.delete(abandon));
    });
  }
}
