import type { Bus } from "../../core/bus/index.ts";
import { eventTime, type LiveEvent } from "../../schemas/events/live-event-types.ts";

const BUFFER_MS = 5 * 60_000;
const BUFFER_MAX = 2000;

type Listener = (event: LiveEvent) => void;

interface Subscriber {
  listener: Listener;
  /** Ends the subscriber's stream (process shutdown). */
  close?: () => void;
}

/**
 * One subscription to `events.*` per API process, fanned out to the SSE connections of each
 * organisation, with a short per-organisation buffer so a client can resume with Last-Event-ID.
 */
export class EventHub {
  private readonly listeners = new Map<string, Set<Subscriber>>();
  private readonly buffers = new Map<string, LiveEvent[]>();
  private unsubscribe: (() => void) | null = null;
  private stopped = false;

  /** `keepaliveMs`: how often each stream gets a comment line that keeps proxies from closing it. */
  constructor(readonly keepaliveMs = 15_000) {}

  start(bus: Bus): void {
    this.stopped = false;
    this.unsubscribe = bus.subscribeEvents<LiveEvent>("events.*", (event) => this.dispatch(event));
  }

  /** Unsubscribes from the bus and ends every open stream, so a graceful server stop is not held up by them. */
  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.stopped = true;
    const subscribers = [...this.listeners.values()].flatMap((set) => [...set]);
    this.listeners.clear();
    for (const s of subscribers) {
      try {
        s.close?.();
      } catch {}
    }
  }

  /** Open subscriptions (streams) across all organisations. */
  get size(): number {
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }

  private dispatch(event: LiveEvent): void {
    if (!event?.org_id) return;
    const buffer = this.buffers.get(event.org_id) ?? [];
    buffer.push(event);
    const cutoff = Date.now() - BUFFER_MS;
    while (buffer.length > BUFFER_MAX || (buffer.length > 0 && eventTime(buffer[0]!.id) < cutoff)) buffer.shift();
    this.buffers.set(event.org_id, buffer);
    for (const s of this.listeners.get(event.org_id) ?? []) s.listener(event);
  }

  /** Events of the organisation after `lastEventId` still in the buffer (all of them when it is older than the buffer). */
  since(orgId: string, lastEventId: string): LiveEvent[] {
    const buffer = this.buffers.get(orgId) ?? [];
    const index = buffer.findIndex((e) => e.id === lastEventId);
    if (index >= 0) return buffer.slice(index + 1);
    const t = eventTime(lastEventId);
    return buffer.filter((e) => eventTime(e.id) > t);
  }

  /** `close` is called when the hub stops (shutdown); the returned function unsubscribes. */
  subscribe(orgId: string, listener: Listener, close?: () => void): () => void {
    if (this.stopped) {
      // Shutting down: a stream opened now ends at once (the client retries elsewhere).
      queueMicrotask(() => close?.());
      return () => {};
    }
    const set = this.listeners.get(orgId) ?? new Set();
    const subscriber: Subscriber = { listener, close };
    set.add(subscriber);
    this.listeners.set(orgId, set);
    return () => {
      set.delete(subscriber);
      if (set.size === 0 && this.listeners.get(orgId) === set) this.listeners.delete(orgId);
    };
  }
}
