import type { Delivery } from "./types.ts";

/** What the transport does to settle one delivery. */
export interface Settler {
  ack(): void;
  nak(delayMs?: number): void;
  working(): void;
  term(): void;
}

/** A delivery that settles at most once, so the loops can ack whatever the handler left open. */
export class TrackedDelivery<T> implements Delivery<T> {
  settled = false;

  constructor(
    readonly subject: string,
    readonly data: T,
    readonly deliveryCount: number,
    readonly publishedAt: number,
    readonly token: string,
    private readonly settler: Settler,
  ) {}

  ack(): void {
    if (this.settle()) this.settler.ack();
  }

  nak(delayMs?: number): void {
    if (this.settle()) this.settler.nak(delayMs);
  }

  inProgress(): void {
    if (!this.settled) this.settler.working();
  }

  term(): void {
    if (this.settle()) this.settler.term();
  }

  private settle(): boolean {
    if (this.settled) return false;
    this.settled = true;
    return true;
  }
}

/** Wakes every waiter; waiting and checking happen in one tick, so no wake-up is lost. */
export class Signal {
  private waiters: (() => void)[] = [];

  wait(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
