import type { HeapItem } from "./min-heap.ts";
import type { Profile } from "./intern.ts";

/**
 * One monitor as the schedule holds it, and its place in the schedule's heap. A class with few fields, so every
 * entry has one shape and its fields inline (80 bytes): what monitors share (organisation, type, interval, timeout,
 * locations, tags) is one interned Profile (scheduler/intern.ts) read through getters; the entry keeps only its own.
 */
export class Entry implements HeapItem {
  /** The next due time while in the heap, and its place there (-1: not in it): kept by the heap (min-heap.ts). */
  due = 0;
  slot = -1;

  constructor(
    readonly id: string,
    public profile: Profile,
    public config: Readonly<Record<string, unknown>>,
    public secretsEnc: string | null,
    public version: number,
    readonly phase: number,
  ) {}

  get orgId(): string {
    return this.profile.orgId;
  }

  get type(): string {
    return this.profile.type;
  }

  get intervalMs(): number {
    return this.profile.intervalMs;
  }

  get timeoutMs(): number {
    return this.profile.timeoutMs;
  }

  get regions(): readonly string[] {
    return this.profile.regions;
  }

  get runnerIds(): readonly string[] {
    return this.profile.runnerIds;
  }

  get tags(): readonly string[] {
    return this.profile.tags;
  }
}
