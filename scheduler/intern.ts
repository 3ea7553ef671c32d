import { frozenJsonCopy } from "../core/bus/index.ts";

/** Values longer than this are kept as they are: long ones rarely repeat (URLs, hostnames). */
const MAX_TEXT = 32;
const MAX_JSON = 256;
/** Past this many distinct values the table starts over, so monitors that come and go cannot grow it without end. */
const MAX_ENTRIES = 20_000;
const EMPTY: readonly string[] = Object.freeze([]);

/** What a monitor's schedule entry shares with the other monitors of its organisation set up alike. */
export interface Profile {
  readonly orgId: string;
  readonly type: string;
  readonly intervalMs: number;
  readonly timeoutMs: number;
  readonly regions: readonly string[];
  readonly runnerIds: readonly string[];
  readonly tags: readonly string[];
}

/**
 * One copy of the values many monitors of a schedule repeat: organisation ids, check types, region lists, empty
 * tag lists, and a config's short strings and small nested values (method, expected status ranges, headers).
 * The database driver gives every row its own copies; held for 100,000 monitors they are most of the schedule.
 * Shared values are frozen: nothing may change one monitor's copy under another.
 */
export class Interner {
  private readonly texts = new Map<string, string>();
  private readonly values = new Map<string, unknown>();
  private readonly profiles = new Map<string, Profile>();

  text(s: string): string {
    if (s.length > MAX_TEXT) return s;
    const hit = this.texts.get(s);
    if (hit !== undefined) return hit;
    if (this.texts.size >= MAX_ENTRIES) this.texts.clear();
    this.texts.set(s, s);
    return s;
  }

  list(items: readonly string[]): readonly string[] {
    return items.length === 0 ? EMPTY : (this.value(items) as readonly string[]);
  }

  /**
   * A copy of a check config whose own object stays per monitor and whose repeated values are shared. It is the
   * bus's frozen JSON copy (core/bus/frozen-copy.ts), so publishing a job hands the config on without copying it.
   */
  config(config: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(config)) out[k] = typeof v === "string" ? this.text(v) : v !== null && typeof v === "object" ? this.value(v) : v;
    return frozenJsonCopy(out);
  }

  /**
   * One frozen copy of what many monitors of a schedule share as a whole: organisation, check type, interval,
   * timeout and region/runner/tag lists (organisation ids are longer than the texts kept by text(); held here, each
   * organisation's id is kept once).
   */
  profile(p: Profile): Profile {
    const key = `${p.orgId}\u0000${p.type}\u0000${p.intervalMs}\u0000${p.timeoutMs}\u0000${JSON.stringify(p.regions)}\u0000${JSON.stringify(p.runnerIds)}\u0000${JSON.stringify(p.tags)}`;
    const hit = this.profiles.get(key);
    if (hit !== undefined) return hit;
    if (this.profiles.size >= MAX_ENTRIES) this.profiles.clear();
    const shared: Profile = Object.freeze({
      orgId: p.orgId,
      type: this.text(p.type),
      intervalMs: p.intervalMs,
      timeoutMs: p.timeoutMs,
      regions: this.list(p.regions),
      runnerIds: this.list(p.runnerIds),
      tags: this.list(p.tags),
    });
    this.profiles.set(key, shared);
    return shared;
  }

  /** Values come from JSON (the database's jsonb), so their frozen JSON copy says the same. */
  private value(v: object): unknown {
    const key = JSON.stringify(v);
    if (key.length > MAX_JSON) return v;
    const hit = this.values.get(key);
    if (hit !== undefined) return hit;
    if (this.values.size >= MAX_ENTRIES) this.values.clear();
    const shared = frozenJsonCopy(v);
    this.values.set(key, shared);
    return shared;
  }
}
