import type { Bus } from "../bus/index.ts";
import { eventTime, type LiveEvent } from "./types.ts";

const BUFFER_MS = 5 * 60_000;
const BUFFER_MAX = 2000;

type Listener = (event: LiveEvent) => void;

/**
 * One subscription to `events.*` per API process, fanned out to the SSE connections of each
 * organisation, with a short per-organisation buffer so a client can resume with Last-Event-ID.
 */
export class EventHub {
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly buffers = new Map<string, LiveEvent[]>();
  private unsubscribe: (() => void) | null = null;

  start(bus: Bus): void {
    this.unsubscribe = bus.subscribeEvents<LiveEvent>("events.*", (event) => this.dispatch(event));
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.listeners.clear();
  }

  private dispatch(event: LiveEvent): void {
    if (!event?.org_id) return;
    const buffer = this.buffers.get(event.org_id) ?? [];
    buffer.push(event);
    const cutoff = Date.now() - BUFFER_MS;
    while (buffer.length > BUFFER_MAX || (buffer.length > 0 && eventTime(buffer[0]!.id) < cutoff)) buffer.shift();
    this.buffers.set(event.org_id, buffer);
    for (const listener of this.listeners.get(event.org_id) ?? []) listener(event);
  }

  /** Events of the organisation after `lastEventId` still in the buffer (all of them when it is older than the buffer). */
  since(orgId: string, lastEventId: string): LiveEvent[] {
    const buffer = this.buffers.get(orgId) ?? [];
    const index = buffer.findIndex((e) => e.id === lastEventId);
    if (index >= 0) return buffer.slice(index + 1);
    const t = eventTime(lastEventId);
    return buffer.filter((e) => eventTime(e.id) > t);
  }

  subscribe(orgId: string, listener: Listener): () => void {
    const set = this.listeners.get(orgId) ?? new Set();
    set.add(listener);
    this.listeners.set(orgId, set);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(orgId);
    };
  }
}
