/**
 * The schedule grid: a monitor with interval I is due at phase + k·I (ms since the epoch) for
 * every integer k. The phase is a hash of the monitor id, so the grid is the same on every
 * scheduler instance and the monitors of one interval are spread over it.
 */

/** FNV-1a, 32 bits: deterministic on every runtime. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The monitor's offset into its interval, in whole ms: 0 <= phase < intervalMs. */
export function phaseOf(monitorId: string, intervalMs: number): number {
  // A second hash round mixes ids that differ only in their last characters (UUIDv7 neighbours).
  return fnv1a(`${fnv1a(monitorId)}:${monitorId}`) % intervalMs;
}

/** The first due time at or after `t`. */
export function dueAtOrAfter(t: number, phase: number, intervalMs: number): number {
  return phase + Math.ceil((t - phase) / intervalMs) * intervalMs;
}

/** The first due time strictly after `t`. */
export const dueAfter = (t: number, phase: number, intervalMs: number): number => dueAtOrAfter(t + 1, phase, intervalMs);

/** How long a job stays runnable: until the next one is due, and never more than a minute. */
export const expiryOf = (dueAt: number, intervalMs: number): number => dueAt + Math.min(intervalMs, 60_000);
